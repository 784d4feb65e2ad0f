"""SQLite for concurrent writers: the journal mode, set once when the database is migrated, and
the backend (base.py) whose transactions wait for the database in turn."""

from __future__ import annotations

from django.db import connections


def sqlite_wal(*, using: str = "default", **kwargs) -> None:
    """Put an SQLite database in WAL mode (readers never wait for the writer).

    The mode is kept in the file, so migrate sets it once for every later connection; set
    on each connection (an init_command) it would also write to a database that a command
    then refuses as unmigrated. The other options are in DATABASES (settings/base.py).
    """
    connection = connections[using]
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode=WAL")
