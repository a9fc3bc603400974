"""What the SQLite and PostgreSQL stores share. Both keep the same tables under the same
column names, so one mapping between rows and records serves both (``rows.py``), and the
queries both can run are written once (``items``, ``edges``, ``events``, ``statements``,
``versions``, ``proposals``, ``jobs``, ``transfer``), over the store's ``Dialect``.

What differs stays explicit: ``dialect.py`` names it (parameter marks ``?`` or ``%s``, a
list spelled out or bound as one array, ``rowid`` or ``pk``, ``FOR UPDATE``), each
backend's ``rows.py`` says how it stores a time and a flag (ISO text and 0/1, or
``timestamptz`` and ``boolean``), and what only one backend can do stays in its own
modules: item writes, vectors, keyword search, the job claim (SQLite's one writer,
PostgreSQL's ``FOR UPDATE SKIP LOCKED``), the event log's writes and counts.
"""
