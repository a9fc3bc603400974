"""The agent surface: read injection (a service, ``agents.inject``) and the tools every
transport serves (``agents.tools``, a client of the ``Brain`` facade).

Nothing is imported here, so the facade can use injection without importing the tools.
"""
