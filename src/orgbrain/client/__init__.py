"""``orgbrain.Client``: the HTTP API with the Brain's methods, typed results and errors.

    with Client("http://127.0.0.1:8765", "ob_...") as brain:
        item = brain.add_file("handbook.md")
        brain.index(item.id)
        result = brain.search("who owns billing?")
        ack = brain.write_back({"run_id": "run-42", "outcome": "succeeded", "summary": "…"})
        brain.approve(brain.proposals()[0].id)

Results are the model's dataclasses (``Item``, ``Hit``, ``Citation``, ``SearchResult``),
parsed from the same views the server sends (``orgbrain.views``); a problem response
raises the exception of the tree its ``code`` names (``OrgBrainError.from_code``), with
that ``.code``. Every call has a 30 s timeout and is retried once on a transient failure
(a connection reset, 502, 503, 504); writes are safe to retry because identity is the
source key.
"""

from .resources import Client, IndexState
from .transport import error_from_response

__all__ = ["Client", "IndexState", "error_from_response"]
