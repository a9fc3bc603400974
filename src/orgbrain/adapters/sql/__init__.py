"""What the SQLite and PostgreSQL stores share: the same tables under the same column
names, so the same mapping between rows and records (``rows.py``).

What differs stays in each adapter, written out: how a time or a flag is stored (ISO text
and 0/1, or ``timestamptz`` and ``boolean``), the parameter marks (``?``, ``%s``), the
row's own number (``rowid``, ``pk``), and how a write takes its locks (SQLite's one
writer, PostgreSQL's ``FOR UPDATE SKIP LOCKED``).
"""
