"""The agent surface: the tools every transport serves (MCP, OpenAI and Anthropic
schemas), each a thin client of the ``Brain`` facade."""
