"""Durable background work: the job kinds, the worker that runs them, and what a reader
sees of the queue. The queue itself is a port (``ports.JobQueue``) with a SQLite adapter
in the brain's file, so every process over a brain shares it.

The kinds: indexing (``index``), derivation (``derive``), write-back (``writeback``) and
the audit pass (``audit``, asked for by derivation once a file's sections are derived);
each is a ``JobHandler`` in ``default_handlers``.
"""

from __future__ import annotations

from .access import JOB_STATES, get_job, list_jobs, visible_job
from .audit import AuditJobs, audited_within
from .derive import DeriveJobs, wait_derived
from .index import (
    INDEX_KIND,
    INDEX_MAX_ATTEMPTS,
    IndexJobs,
    IndexState,
    index_key,
    index_state,
    index_states,
    request_index,
)
from .own import work_on_own
from .worker import JobHandler, Outcome, RetryPolicy, Settle, Worker, WorkReport, worker_name
from .writeback import WriteBackJobs

__all__ = [
    "INDEX_KIND",
    "INDEX_MAX_ATTEMPTS",
    "JOB_STATES",
    "AuditJobs",
    "DeriveJobs",
    "IndexJobs",
    "IndexState",
    "JobHandler",
    "Outcome",
    "RetryPolicy",
    "Settle",
    "WorkReport",
    "Worker",
    "WriteBackJobs",
    "audited_within",
    "default_handlers",
    "get_job",
    "index_key",
    "index_state",
    "index_states",
    "list_jobs",
    "request_index",
    "visible_job",
    "wait_derived",
    "work_on_own",
    "worker_name",
]


def default_handlers() -> list[JobHandler]:
    """Every job kind this version of orgbrain runs."""
    return [IndexJobs(), DeriveJobs(), WriteBackJobs(), AuditJobs()]
