"""A small SQLite file of a few tables, opened once and brought up to date as it is opened.

The key store and the chat thread registry each keep their rows in such a file. A file written by
an earlier version lacks the columns added since: they are added on opening (``ALTER TABLE ...
ADD COLUMN``), so an upgrade never needs a migration step of its own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path


def open_tables(
    path: Path, creates: Sequence[str], added_columns: Mapping[str, Mapping[str, str]] | None = None
) -> sqlite3.Connection:
    """A connection to ``path`` (made with its folder if new) whose tables exist (``creates``:
    ``CREATE TABLE IF NOT EXISTS`` statements) and have every column of ``added_columns``
    (table -> column -> its type and default), for use from several threads under the caller's
    lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), check_same_thread=False)
    with db:
        for create in creates:
            db.execute(create)
        for table, columns in (added_columns or {}).items():
            present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            for column, declaration in columns.items():
                if column not in present:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    return db
