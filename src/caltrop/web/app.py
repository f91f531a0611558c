"""``create_app(settings)``: the table server's HTTP and WebSocket API (issues 11 and 20).

Every request names its seat by its token: ``Authorization: Bearer TOKEN`` or the HttpOnly
cookie ``caltrop_seat`` that ``GET /join/TOKEN`` sets; a cookie-bound request that changes
anything must come from the server's own pages (:mod:`caltrop.web.deps`, the Origin rule). The
routes live in :mod:`caltrop.web.routes` (the API, one module a resource) and
:mod:`caltrop.web.pages` (the browser screens); the live stream in :mod:`caltrop.web.stream`.
Refusals are the kinds of :class:`~caltrop.errors.RefusalError` the service raises (no seat,
forbidden, out of step, too large, refused, not found: it knows no HTTP) and a request the schema
refuses (422, in words), mapped here, once, to the one error model and the status table of
:mod:`caltrop.web.errors`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.engine import make_url
from starlette.concurrency import run_in_threadpool

from caltrop.store import Repository, default_url, open_database
from caltrop.store.checkpoint import Checkpointer
from caltrop.store.repository import NotFoundError
from caltrop.store.service import RefusalError, Tables
from caltrop.web import pages
from caltrop.web.chance import ChanceHub
from caltrop.web.errors import document_errors, refusal_body, status_of, validation_detail
from caltrop.web.headers import SecurityHeaders
from caltrop.web.limits import Limits
from caltrop.web.ratelimit import TokenBucket
from caltrop.web.refusals import HtmxRefusals
from caltrop.web.routes import builder, chance, gm, log, play, socket, tables, tv
from caltrop.web.settings import Settings
from caltrop.web.stream import Hub
from caltrop.web.watch import Watcher


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server over ``settings.database_url`` (migrated on start)."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sqlite = make_url(settings.database_url or default_url()).get_backend_name() == "sqlite"
        engine = open_database(
            settings.database_url, autocheckpoint=not sqlite, synchronous=settings.sqlite_sync
        )
        checkpointer = Checkpointer(engine) if sqlite else None  # off the commit path
        if checkpointer is not None:
            checkpointer.start()
        app.state.tables = Tables(Repository(engine))
        app.state.hub = Hub(app.state.tables)
        if settings.chance:  # the live chance of winning, off the command path (issue 23)
            app.state.hub = ChanceHub(app.state.tables, n=settings.chance_n)
            await app.state.hub.chance.start()
        watcher = Watcher(app.state.hub, app.state.tables, engine)
        await watcher.start()  # other processes' commits reach this process's sockets
        try:
            yield
        finally:
            await watcher.stop()
            if isinstance(app.state.hub, ChanceHub):
                await app.state.hub.chance.stop()
            if checkpointer is not None:
                await run_in_threadpool(checkpointer.stop)
            engine.dispose()

    app = FastAPI(title="Caltrop table server", lifespan=lifespan)
    app.state.settings = settings
    document_errors(app)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HtmxRefusals)  # issue 22 item 8: no refusal is a console error
    # issue 20 §2: bodies, seats and table openings bounded before any route reads a byte
    opened = TokenBucket(settings.new_tables_burst, settings.new_tables_per_minute)
    app.add_middleware(Limits, tables=opened)
    for router in (tables.router, play.router, gm.router, socket.router, pages.router):
        app.include_router(router)
    app.include_router(builder.router)  # issue 23 item 3: the encounter builder
    app.include_router(log.router)  # issue 22 item 6: the whole log on the page
    app.include_router(tv.router)  # issue 22: the table screen (a TV's read-only view)
    app.include_router(chance.router)  # issue 23 item 4

    @app.exception_handler(RefusalError)
    async def refused(_request: Request, exc: RefusalError) -> JSONResponse:
        return JSONResponse(refusal_body(exc), status_code=status_of(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_detail(exc.errors())}, status_code=422)

    @app.exception_handler(NotFoundError)
    async def not_found(_request: Request, exc: NotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    return app
