"""What a stranger who can reach the port may make the server read (issue 20 §2): a pure ASGI
middleware in front of every HTTP route.

Before the app sees a request, :class:`Limits`:

* refuses a body whose ``Content-Length`` passes its route's limit (413, nothing read);
* refuses a request to a route that needs a seat when it carries neither ``Authorization`` nor
  the seat cookie (401, nothing read: the token is checked before any body it does not need),
  and a JSON API request with a body whose token is no seat's (401, its body unread: FastAPI
  reads a JSON body before the route's seat dependency runs);
* refuses opening a table past the client address's share (429 with ``Retry-After``,
  :mod:`caltrop.web.ratelimit`); a request the route refuses (a foreign page, an unknown
  encounter, a body too large) gives its share back, since it opened no table;
* counts a body without a length (chunked) as the app reads it, and stops it at the route's
  limit: the app's read fails, and the client gets 413 whatever the app would have answered;
* once a request or a socket is over, has the memory it freed given back to the system
  (:mod:`caltrop.web.memory`).

The limits are one table, :data:`ROUTES` (method and path → bytes; a path segment ``*`` is any
one segment); every other request gets :data:`DEFAULT_BODY_BYTES`, which is far past any JSON
command. ``docs/limits.md`` lists them (tests/test_limits_doc.py checks the numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from caltrop.content.limits import MAX_FILE_BYTES
from caltrop.content.logfile import MAX_LOG_BYTES
from caltrop.store.service import MAX_UPLOAD_BYTES, RefusalError, Tables
from caltrop.web.memory import Trimmer
from caltrop.web.ratelimit import TokenBucket
from caltrop.web.seating import COOKIE

#: a JSON command, a form, a visibility change: far past what the pages or a client send
DEFAULT_BODY_BYTES: Final = 16 * 1024
#: the multipart framing an upload carries beyond its files' own bytes (boundaries, headers)
UPLOAD_SLACK_BYTES: Final = 64 * 1024
#: ``POST /api/tables/upload``, ``/api/encounters/upload`` and ``/builder/upload``: content
#: files and framing
UPLOAD_BODY_BYTES: Final = MAX_UPLOAD_BYTES + UPLOAD_SLACK_BYTES
#: the home page's upload form (``POST /tables/upload``): a log or content files, and framing
PAGE_UPLOAD_BODY_BYTES: Final = max(MAX_LOG_BYTES, MAX_UPLOAD_BYTES) + UPLOAD_SLACK_BYTES

#: the encounter builder's form (``POST /builder/...``): at most a content file's size, which
#: the form's encounter is written as (issue 23 item 3)
BUILDER_BODY_BYTES: Final = MAX_FILE_BYTES


@dataclass(frozen=True, slots=True)
class Route:
    """One route's limits: its largest body, whether it needs a seat (a bearer token or the
    seat cookie), and whether it opens a table (rate-limited per client address)."""

    method: str
    path: str
    body_bytes: int = DEFAULT_BODY_BYTES
    seat: bool = False
    opens_table: bool = False

    def matches(self, method: str, segments: list[str]) -> bool:
        pattern = self.path.split("/")
        return (
            method == self.method
            and len(pattern) == len(segments)
            and all(p in ("*", s) for p, s in zip(pattern, segments, strict=True))
        )


#: every route that takes a body or a seat; anything else: DEFAULT_BODY_BYTES, no seat needed
ROUTES: Final = (
    # opening a table: no seat yet, so rate-limited per address
    Route("POST", "/api/tables", opens_table=True),
    Route("POST", "/api/tables/upload", UPLOAD_BODY_BYTES, opens_table=True),
    Route("POST", "/api/tables/import", MAX_LOG_BYTES, opens_table=True),
    Route("POST", "/tables", opens_table=True),
    Route("POST", "/tables/upload", PAGE_UPLOAD_BODY_BYTES, opens_table=True),
    # a GM's browser's yes to taking a seat (the token in the path, no fields)
    Route("POST", "/join/*"),
    # the JSON API of a seat
    Route("GET", "/api/view", seat=True),
    Route("GET", "/api/events", seat=True),
    Route("GET", "/api/log", seat=True),
    Route("GET", "/api/night", seat=True),
    Route("PUT", "/api/visibility", seat=True),
    Route("POST", "/api/commands", seat=True),
    Route("POST", "/api/encounters", seat=True),
    Route("POST", "/api/encounters/upload", UPLOAD_BODY_BYTES, seat=True),
    Route("POST", "/api/seats/*/reissue", seat=True),
    # the page forms of a seat (the cookie)
    Route("POST", "/table/command", seat=True),
    Route("POST", "/table/visibility", seat=True),
    Route("POST", "/table/seats/*/reissue", seat=True),
    Route("POST", "/table/encounters", seat=True),
    # the encounter builder's form (a save and a table rate-limited as openings are)
    Route("POST", "/builder/upload", UPLOAD_BODY_BYTES),
    Route("POST", "/builder/edit", BUILDER_BODY_BYTES),
    Route("POST", "/builder/validate", BUILDER_BODY_BYTES),
    Route("POST", "/builder/difficulty", BUILDER_BODY_BYTES),
    Route("POST", "/builder/vary", BUILDER_BODY_BYTES),
    Route("POST", "/builder/export", BUILDER_BODY_BYTES),
    Route("POST", "/builder/save", BUILDER_BODY_BYTES, opens_table=True),
    Route("POST", "/builder/open", BUILDER_BODY_BYTES, opens_table=True),
    # the whole log on the page, and the table screen's link (issue 22)
    Route("GET", "/table/log", seat=True),
    Route("POST", "/table/screen", seat=True),
    Route("POST", "/table/screen/revoke", seat=True),
    Route("POST", "/api/screen", seat=True),
    Route("DELETE", "/api/screen", seat=True),
    Route("POST", "/table/chance", seat=True),
)
#: the limits of a request no route of ROUTES matches
ANY: Final = Route("*", "*")


def route_of(method: str, path: str) -> Route:
    """The limits of a request (ANY when no route of :data:`ROUTES` matches)."""
    segments = path.rstrip("/").split("/") if path != "/" else [""]
    for route in ROUTES:
        if route.matches(method, segments):
            return route
    return ANY


class _BodyTooLargeError(Exception):
    """Raised into the app's read of a body that passed its route's limit."""


class Limits:
    """The middleware (see the module docstring); ``tables`` is the per-address bucket of
    table openings, shared by every route that opens one; ``trimmer`` gives freed memory back
    once a request or socket is over (one of its own unless given)."""

    def __init__(self, app: ASGIApp, tables: TokenBucket, trimmer: Trimmer | None = None) -> None:
        self.app = app
        self.tables = tables
        self.trimmer = Trimmer() if trimmer is None else trimmer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http":
            try:
                await self._limited(scope, receive, send)
            finally:
                self.trimmer.soon()
            return
        self.trimmer.opened()  # a socket: its memory comes back once it closes
        try:
            await self.app(scope, receive, send)
        finally:
            self.trimmer.closed()

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = route_of(scope["method"], scope["path"])
        headers = _headers(scope)
        limit = route.body_bytes
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            if not declared.isdigit():
                await _refuse(send, 400, "Content-Length is a whole number of bytes")
                return
            await _refuse(send, 413, _too_large(route, f"this one declares {int(declared):,}"))
            return
        if route.seat and b"authorization" not in headers and not _has_cookie(headers):
            await _refuse(
                send, 401, "no seat: send 'Authorization: Bearer TOKEN' or open your link"
            )
            return
        if route.seat and route.method != "GET" and route.path.startswith("/api/"):
            unknown = await _unknown_seat(scope, headers)
            if unknown is not None:
                await _refuse(send, 401, unknown)
                return
        address = None
        if route.opens_table:
            client = scope.get("client")
            address = client[0] if client else ""
            refused = self.tables.take(address)
            if refused is not None:
                await _refuse(
                    send,
                    429,
                    f"too many tables opened from this address: {self.tables.burst} at once, "
                    f"then {self.tables.per_second * 60:g} a minute; try again in "
                    f"{refused.retry_after} s",
                    retry_after=refused.retry_after,
                )
                return
        status = await self._counted(scope, receive, send, route)
        if address is not None and (status is None or status >= 400):
            self.tables.give_back(address)  # refused (a foreign page, a bad body): no table

    async def _counted(
        self, scope: Scope, receive: Receive, send: Send, route: Route
    ) -> int | None:
        """Run the app with its body counted: past the limit its read fails, and whatever it
        answers then is replaced by the 413. The status answered (None: none was)."""
        read = 0
        over = False
        started = False
        status: int | None = None

        async def counted_receive() -> Message:
            nonlocal read, over
            if over:
                raise _BodyTooLargeError
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > route.body_bytes:
                    over = True
                    raise _BodyTooLargeError
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started, status
            if over:
                return  # the app's answer to a cut body: the 413 is sent instead
            if message["type"] == "http.response.start":
                started = True
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except _BodyTooLargeError:
            pass
        except Exception:
            if not over:
                raise
        if over and not started:
            await _refuse(send, 413, _too_large(route, f"this one passed it at {read:,}"))
            return 413
        return status


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {name: value for name, value in scope["headers"]}


async def _unknown_seat(scope: Scope, headers: dict[bytes, bytes]) -> str | None:
    """Why the request's token is no seat (the service's own refusal), or None when it is one
    or the route is left to say so (no service yet, a malformed header). The seat found is
    remembered by the service, so the route's own look-up of it costs no query."""
    service = getattr(getattr(scope.get("app"), "state", None), "tables", None)
    if not isinstance(service, Tables):
        return None
    scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if not scheme:
        token = _cookie(headers)
    elif scheme.lower() != "bearer":
        return None
    token = token.strip()
    if not token or service.known_seat(token) is not None:
        return None
    try:
        await run_in_threadpool(service.seat, token)
    except RefusalError as refused:
        return refused.reason
    return None


def _cookie(headers: dict[bytes, bytes]) -> str:
    """The seat cookie's value ('' if none)."""
    key = COOKIE.encode() + b"="
    for part in headers.get(b"cookie", b"").split(b";"):
        if part.strip().startswith(key):
            return part.strip()[len(key) :].decode("latin-1")
    return ""


def _has_cookie(headers: dict[bytes, bytes]) -> bool:
    return _cookie(headers) != ""


def _too_large(route: Route, this_one: str) -> str:
    what = "this request's body" if route is ANY else f"a {route.method} {route.path} body"
    return f"{what} is at most {route.body_bytes:,} bytes ({this_one})"


async def _refuse(send: Send, status: int, detail: str, *, retry_after: int | None = None) -> None:
    """The JSON refusal ``{"detail": …}`` the API answers every refusal with. A 413 closes the
    connection: the rest of an unread body is not worth reading to find the next request."""
    body = orjson.dumps({"detail": detail})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    if status == 413:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
