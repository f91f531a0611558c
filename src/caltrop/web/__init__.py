"""The table server's web layer (FastAPI): thin over :mod:`caltrop.store.service` and
:mod:`caltrop.table`. Build the app with :func:`create_app`."""

from caltrop.web.app import create_app
from caltrop.web.settings import Settings

__all__ = ["Settings", "create_app"]
