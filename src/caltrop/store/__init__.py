"""Storage of tables: SQLAlchemy 2, every query in :mod:`caltrop.store.repository` (issue 11).

A *table* is a night of encounters with its seats (token hashes, never tokens); each encounter
is its append-only event log ``(encounter_id, seq, event JSON)`` with ``UNIQUE(encounter_id,
seq)``, and its state is rebuilt by replaying that log. Commands are recorded by
``command_id`` so that a retry gets the stored answer. SQLite (a file in the user data
directory) by default, any SQLAlchemy URL (PostgreSQL with psycopg 3) by setting; Alembic
migrations are applied on start.
"""

from caltrop.store.database import default_url, open_database
from caltrop.store.repository import Repository

__all__ = ["Repository", "default_url", "open_database"]
