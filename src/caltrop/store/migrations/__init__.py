"""Alembic migrations of the store, applied on start (:func:`caltrop.store.database.migrate`)."""
