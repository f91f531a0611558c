"""What the routes depend on (the full-stack FastAPI template's ``deps.py``): the service, the
sockets' hub, the seat a request names, and the one Origin rule (issue 20, "one Origin rule for
every state-changing route").

**The Origin rule.** A browser sends its cookies with any request to this server, whichever
page made it. A request that a page made (it says so by ``Origin`` or ``Sec-Fetch-Site``,
which no page can forge) is therefore honoured only when that page is one of this server's:
``Sec-Fetch-Site`` is ``same-origin`` or ``none`` (typed or bookmarked), and the ``Origin``
is this server's. A page on another port of the same host is another origin and is refused,
whether the request names its seat by the cookie or by a bearer token (no page of ours sends
one cross-origin, and the server answers no CORS preflight). A tool (curl, a script) sends
neither header and names its seat by ``Authorization: Bearer``. Every non-GET route and every
socket applies the rule (``tests/web/test_origin.py`` walks the app's routes to make sure).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final
from urllib.parse import urlsplit

from fastapi import Depends, Request, WebSocket
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from caltrop.errors import ForbiddenError, NoSeatError
from caltrop.store.repository import Seat
from caltrop.store.service import Tables
from caltrop.web.seating import COOKIE
from caltrop.web.stream import Hub

#: ``Sec-Fetch-Site`` values of a request a page of this server (or the user) made
OWN_SITES: Final = frozenset({"same-origin", "none"})


def foreign(headers: Mapping[str, str]) -> str | None:
    """Why a request made by a page does not come from this server's own pages, or None (a
    tool, which sends neither header, is not a page).

    ``Sec-Fetch-Site``, which no page can set, decides when the browser sends it. Its
    ``Origin`` may then be ``null``: under the pages' ``Referrer-Policy: no-referrer`` Chromium
    sends ``Origin: null`` with a same-origin form post. Without ``Sec-Fetch-Site`` (an older
    browser) the Origin decides, and ``null`` is refused. The Origin's host and port are
    compared with the ``Host`` the request was sent to (not the scheme: behind a TLS proxy the
    server sees http while the page is https)."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in OWN_SITES:
        return f"refused: sent from another site's page (Sec-Fetch-Site {site[:40]})"
    origin = headers.get("origin")
    if origin is None or (origin == "null" and site is not None):
        return None
    if origin == "null" or urlsplit(origin).netloc != headers.get("host"):
        return f"refused: sent from another site's page (Origin {origin[:100]})"
    return None


async def same_origin(request: Request) -> None:
    """The Origin rule (module docstring) for an HTTP route: 403 with the reason."""
    why = foreign(request.headers)
    if why is not None:
        raise ForbiddenError(why)


def service_of(connection: Request | WebSocket) -> Tables:
    service: Tables = connection.app.state.tables
    return service


def hub_of(connection: Request | WebSocket) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


def token_of(authorization: str | None, cookie: str | None) -> str:
    """The seat token a request names: the bearer header, else the seat cookie; 401 if none."""
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise NoSeatError("Authorization must be 'Bearer TOKEN'")
        return token.strip()
    if cookie:
        return cookie
    raise NoSeatError("no seat: send 'Authorization: Bearer TOKEN' or open your link")


async def seat_of_token(service: Tables, token: str) -> Seat:
    """The seat of ``token``: a seat looked up a moment ago needs no trip to the database (nor
    to a worker thread); 401 if there is none or it was revoked."""
    known = service.known_seat(token)
    if known is not None:
        return known
    found: Seat = await run_in_threadpool(service.seat, token)
    return found


#: the two ways a request names its seat, as the OpenAPI schema documents them (either will do);
#: :func:`token_of` reads them, and says what is wrong with a malformed one
BEARER: Final = HTTPBearer(
    auto_error=False, description="a seat token: the GM's, or a player's from its link"
)
SEAT_COOKIE: Final = APIKeyCookie(
    name=COOKIE, auto_error=False, description="the seat cookie GET /join/TOKEN sets"
)


async def _seat(
    request: Request,
    _bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
    _cookie: Annotated[str | None, Depends(SEAT_COOKIE)],
) -> Seat:
    service = service_of(request)
    authorization = request.headers.get("authorization")
    return await seat_of_token(service, token_of(authorization, request.cookies.get(COOKIE)))


async def _tables(request: Request) -> Tables:
    return service_of(request)


async def _hub(request: Request) -> Hub:
    return hub_of(request)


TablesDep = Annotated[Tables, Depends(_tables)]
HubDep = Annotated[Hub, Depends(_hub)]
SeatDep = Annotated[Seat, Depends(_seat)]
#: every state-changing route's dependency list (the routers apply it to all their routes)
ORIGIN_CHECKED: Final = [Depends(same_origin)]
