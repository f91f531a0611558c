"""Issue 20 §2, "Nothing unbounded for anyone who can reach the port": "every route refuses by
Content-Length before reading, counts a chunked body while reading and stops at its route's
limit (413), and checks the token before it reads a body it does not need. Limits named in
docs/limits.md, each tested with a body one byte over." And "creating tables is rate-limited per
client address (a clear 429 with Retry-After)"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Route as StarletteRoute

from caltrop.content.logfile import MAX_LOG_BYTES
from caltrop.store.service import MAX_UPLOAD_BYTES
from caltrop.web import Settings, create_app
from caltrop.web.limits import (
    ANY,
    DEFAULT_BODY_BYTES,
    PAGE_UPLOAD_BODY_BYTES,
    ROUTES,
    UPLOAD_BODY_BYTES,
    Limits,
    Route,
    route_of,
)
from caltrop.web.ratelimit import MAX_ADDRESSES, TokenBucket
from caltrop.web.seating import COOKIE
from tests.web.test_api import bearer, new_table, send

UNLIMITED = {"new_tables_burst": 0, "new_tables_per_minute": 0.0}


@pytest.fixture
def open_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of a server that lets one address open any number of tables."""
    url = f"sqlite:///{tmp_path / 'limits.db'}"
    app = create_app(Settings(database_url=url, base_url="http://testserver", **UNLIMITED))
    with TestClient(app) as client:
        yield client


def _concrete(path: str) -> str:
    return path.replace("*", "aria")


def _chunks(size: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    """A body of ``size`` bytes with no length: httpx sends it chunked."""
    while size > 0:
        yield b"x" * min(piece, size)
        size -= piece


# -- the table of routes ----------------------------------------------------------------------


def _walk(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for route in routes:
        included = getattr(route, "original_router", None)  # an included router, unexpanded
        if included is not None:
            yield from _walk(included.routes, prefix + getattr(included, "prefix", ""))
        elif isinstance(route, APIRoute | StarletteRoute):
            path = prefix + route.path
            path = "/".join("*" if p.startswith("{") else p for p in path.split("/"))
            for method in route.methods or ():
                yield method, path


def _app_routes() -> set[tuple[str, str]]:
    return set(_walk(create_app(Settings(database_url="sqlite://")).routes))


def test_every_route_that_takes_a_body_is_in_the_table() -> None:
    """A route added later gets a limit chosen for it, not the default by oversight."""
    table = {(r.method, r.path) for r in ROUTES}
    takes_a_body = {(m, p) for m, p in _app_routes() if m in ("POST", "PUT", "PATCH", "DELETE")}
    assert takes_a_body <= table, sorted(takes_a_body - table)
    assert table <= _app_routes(), sorted(table - _app_routes())  # no entry for a lost route


def test_the_limits_are_the_services() -> None:
    limits = {(r.method, r.path): r.body_bytes for r in ROUTES}
    assert limits[("POST", "/api/tables/import")] == MAX_LOG_BYTES
    assert limits[("POST", "/api/tables/upload")] == UPLOAD_BODY_BYTES > MAX_UPLOAD_BYTES
    assert limits[("POST", "/tables/upload")] == PAGE_UPLOAD_BODY_BYTES > MAX_LOG_BYTES
    assert limits[("POST", "/api/commands")] == DEFAULT_BODY_BYTES
    assert route_of("GET", "/api/library") is ANY
    assert route_of("POST", "/api/seats/aria/reissue").seat
    assert route_of("POST", "/api/seats/reissue") is ANY  # a segment is one segment
    assert route_of("POST", "/api/tables/").opens_table  # a trailing slash is the same route


# -- refused before anything is read ----------------------------------------------------------


async def _never_read() -> dict[str, Any]:
    raise AssertionError("the body was read")


async def _untouched_app(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the app was called")


async def _call(headers: list[tuple[bytes, bytes]], method: str, path: str) -> list[Any]:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": headers,
        "client": ("192.0.2.7", 5000),
    }
    await Limits(_untouched_app, TokenBucket(0, 0))(scope, _never_read, send)
    return sent


@pytest.mark.anyio
@pytest.mark.parametrize("route", [*ROUTES, ANY], ids=lambda r: f"{r.method} {r.path}")
async def test_a_declared_length_one_byte_over_is_refused_unread(route: Route) -> None:
    method = "POST" if route is ANY else route.method
    headers = [(b"content-length", str(route.body_bytes + 1).encode())]
    if route.seat:
        headers.append((b"authorization", b"Bearer t"))
    sent = await _call(headers, method, _concrete("/any" if route is ANY else route.path))
    assert sent[0]["status"] == 413
    assert (b"connection", b"close") in sent[0]["headers"]
    assert f"at most {route.body_bytes:,} bytes".encode() in sent[1]["body"]


@pytest.mark.anyio
@pytest.mark.parametrize("route", [r for r in ROUTES if r.seat], ids=lambda r: r.path)
async def test_a_seat_route_without_a_token_is_refused_unread(route: Route) -> None:
    headers = [(b"content-length", b"100"), (b"cookie", b"theme=dark; caltrop_seatx=1")]
    sent = await _call(headers, route.method, _concrete(route.path))
    assert sent[0]["status"] == 401
    assert b"no seat" in sent[1]["body"]


# -- one byte over, and exactly at, each limit --------------------------------------------------


def _send(client: TestClient, route: Route, size: int, *, chunked: bool, gm: str = "") -> Any:
    headers = bearer(gm) if route.seat else {}
    if "upload" in route.path:
        headers["Content-Type"] = "multipart/form-data; boundary=b"
    body: Any = _chunks(size) if chunked else b"x" * size
    return client.request(route.method, _concrete(route.path), content=body, headers=headers)


#: the routes whose limits differ (the rest share the default, tested once through commands)
DISTINCT = [
    r
    for r in ROUTES
    if r.body_bytes != DEFAULT_BODY_BYTES or (r.method, r.path) == ("POST", "/api/commands")
]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("route", DISTINCT, ids=lambda r: f"{r.method} {r.path}")
def test_one_byte_over_is_413_and_exactly_at_the_limit_is_read(
    open_client: TestClient, route: Route, chunked: bool
) -> None:
    gm = new_table(open_client)["gm"]["token"]  # a real seat: its routes go on to the body
    over = _send(open_client, route, route.body_bytes + 1, chunked=chunked, gm=gm)
    assert over.status_code == 413, over.text[:200]
    assert f"is at most {route.body_bytes:,} bytes" in over.json()["detail"]
    at = _send(open_client, route, route.body_bytes, chunked=chunked, gm=gm)
    # passed to the route, which reads it and refuses it for what it says (not a log, not
    # multipart, not JSON)
    assert at.status_code in (400, 422), at.text[:200]


def test_a_route_without_an_entry_has_the_default_limit(open_client: TestClient) -> None:
    over = open_client.request("GET", "/api/library", content=b"x" * (DEFAULT_BODY_BYTES + 1))
    assert over.status_code == 413
    assert over.json()["detail"] == (
        "this request's body is at most 16,384 bytes (this one declares 16,385)"
    )
    assert open_client.request("GET", "/api/library", content=b"x" * 100).status_code == 200
    # a chunked body the route never reads is never read (uvicorn stops taking it in at its
    # buffer's high-water mark): the route answers as it would
    unread = open_client.request("GET", "/api/library", content=_chunks(DEFAULT_BODY_BYTES + 1))
    assert unread.status_code == 200


def test_a_seat_cookie_passes_to_the_route_that_checks_it(open_client: TestClient) -> None:
    table = new_table(open_client)
    assert open_client.get("/api/view").status_code == 401
    open_client.cookies.set(COOKIE, table["gm"]["token"])
    assert open_client.get("/api/view").status_code == 200
    open_client.cookies.clear()
    assert open_client.get("/api/view", headers=bearer(table["gm"]["token"])).status_code == 200


# -- opening tables, per address ----------------------------------------------------------------


def test_opening_tables_past_the_burst_is_429_with_retry_after(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rate.db'}"
    settings = Settings(database_url=url, new_tables_burst=2, new_tables_per_minute=1.0)
    app = create_app(settings)
    with TestClient(app) as client, TestClient(app, client=("198.51.100.9", 1)) as other:
        for _ in range(2):
            assert client.post("/api/tables", json={}).status_code == 201
        refused = client.post("/api/tables", json={})
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "60"
        assert refused.json()["detail"] == (
            "too many tables opened from this address: 2 at once, then 1 a minute; try again "
            "in 60 s"
        )
        # every route that opens a table draws on the same bucket, the page form too
        assert client.post("/tables", data={"encounter": "orc-bridge"}).status_code == 429
        assert client.post("/api/tables/import", content=b"{}").status_code == 429
        # and nothing else is limited, nor another address
        assert client.get("/api/library").status_code == 200
        assert other.post("/api/tables", json={}).status_code == 201


def test_a_refused_opening_gives_its_share_back(tmp_path: Path) -> None:
    """Only a table opened counts: a request the route refuses (an unknown encounter, a foreign
    page's form) opened none, so many of them leave the address its whole burst."""
    url = f"sqlite:///{tmp_path / 'refused.db'}"
    app = create_app(Settings(database_url=url, new_tables_burst=2, new_tables_per_minute=1.0))
    with TestClient(app) as client:
        for _ in range(5):
            assert client.post("/api/tables", json={"encounter": "nope"}).status_code == 422
            foreign = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
            page = client.post("/tables", data={"encounter": "orc-bridge"}, headers=foreign)
            assert page.status_code == 403
        assert [client.post("/api/tables", json={}).status_code for _ in range(3)] == [
            201,
            201,
            429,
        ]


def test_a_share_given_back_never_passes_the_burst() -> None:
    now = [0.0]
    bucket = TokenBucket(2, 6.0, clock=lambda: now[0])
    bucket.give_back("a")  # never took: nothing to give back
    assert [bucket.take("a") for _ in range(2)] == [None, None]
    bucket.give_back("a")
    bucket.give_back("a")
    bucket.give_back("a")
    assert [bucket.take("a") is None for _ in range(3)] == [True, True, False]
    TokenBucket(0, 0).give_back("a")  # no limit: nothing kept


def test_a_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(3, 6.0, clock=lambda: now[0])  # one every 10 s
    assert [bucket.take("a") for _ in range(3)] == [None, None, None]
    assert bucket.take("a") is not None
    assert bucket.take("a").retry_after == 10  # type: ignore[union-attr]
    now[0] = 9.0
    assert bucket.take("a").retry_after == 1  # type: ignore[union-attr]
    now[0] = 10.0
    assert bucket.take("a") is None
    assert bucket.take("a") is not None
    now[0] = 1000.0  # refilled to the burst, never past it
    assert [bucket.take("a") for _ in range(4)][3] is not None


def test_the_buckets_of_many_addresses_are_bounded() -> None:
    now = [0.0]
    bucket = TokenBucket(1, 60.0, clock=lambda: now[0])
    for n in range(MAX_ADDRESSES + 500):
        assert bucket.take(f"10.0.{n // 256}.{n % 256}") is None
        now[0] += 0.0001
    assert bucket.addresses() <= MAX_ADDRESSES
    assert bucket.take("10.0.0.0") is None  # forgotten: starts again with a full bucket


def test_no_limit_when_both_are_zero() -> None:
    bucket = TokenBucket(0, 0)
    assert all(bucket.take("a") is None for _ in range(1000))
    assert bucket.take("b") is None
    with pytest.raises(ValueError, match="0 or more"):
        TokenBucket(-1, 1)


# -- every route of the table, one byte over, through the app ----------------------------------

#: routes that never read a body: a chunked one sent to them is left unread, not refused
READS_NO_BODY = {
    ("GET", "/api/view"),
    ("GET", "/api/events"),
    ("GET", "/api/log"),
    ("GET", "/api/night"),
    ("POST", "/api/seats/*/reissue"),
    ("POST", "/table/seats/*/reissue"),
    ("POST", "/join/*"),
    ("GET", "/table/log"),
    ("POST", "/table/screen"),
    ("POST", "/table/screen/revoke"),
    ("POST", "/api/screen"),
    ("DELETE", "/api/screen"),
}


def _seat_headers(client: TestClient, route: Route, gm: str) -> dict[str, str]:
    """The GM's seat as the route takes it: the cookie for the pages, the bearer token else."""
    client.cookies.clear()
    if route.path.startswith("/table/"):
        client.cookies.set(COOKIE, gm)
        return {}
    return bearer(gm) if route.seat else {}


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_every_route_refuses_a_declared_length_one_byte_over(
    open_client: TestClient, route: Route
) -> None:
    """Each route's own limit, from the table, through the whole app with a real seat."""
    gm = new_table(open_client)["gm"]["token"]
    headers = _seat_headers(open_client, route, gm)
    over = open_client.request(
        route.method,
        _concrete(route.path),
        content=b"x" * (route.body_bytes + 1),
        headers=headers,
    )
    assert over.status_code == 413, over.text[:200]
    assert over.json()["detail"] == (
        f"a {route.method} {route.path} body is at most {route.body_bytes:,} bytes "
        f"(this one declares {route.body_bytes + 1:,})"
    )


@pytest.mark.parametrize(
    "route",
    [r for r in ROUTES if (r.method, r.path) not in READS_NO_BODY],
    ids=lambda r: f"{r.method} {r.path}",
)
def test_every_route_that_reads_a_body_stops_a_chunked_one_a_byte_over(
    open_client: TestClient, route: Route
) -> None:
    gm = new_table(open_client)["gm"]["token"]
    headers = _seat_headers(open_client, route, gm)
    if "upload" in route.path:
        headers["Content-Type"] = "multipart/form-data; boundary=b"
    elif route.path.startswith("/table") or route.path == "/tables":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    else:
        headers["Content-Type"] = "application/json"
    over = open_client.request(
        route.method, _concrete(route.path), content=_chunks(route.body_bytes + 1), headers=headers
    )
    assert over.status_code == 413, over.text[:200]
    assert f"is at most {route.body_bytes:,} bytes (this one passed it at" in over.text


@pytest.mark.parametrize(
    "route",
    [r for r in ROUTES if (r.method, r.path) in READS_NO_BODY],
    ids=lambda r: f"{r.method} {r.path}",
)
def test_a_chunked_body_a_route_never_reads_changes_nothing(
    open_client: TestClient, route: Route
) -> None:
    """The route answers a chunked body past the limit as it answers no body: it never read it
    (uvicorn, not the app, stops taking it in; see test_slow_clients)."""
    table = new_table(open_client)
    gm = table["gm"]["token"]
    headers = _seat_headers(open_client, route, gm)
    path = route.path.replace("*", "nobody")  # a reissue of no creature: refused, changes nothing
    plain = open_client.request(route.method, path, headers=headers)
    chunked = open_client.request(
        route.method, path, content=_chunks(route.body_bytes + 1), headers=headers
    )
    assert chunked.status_code == plain.status_code != 413


# -- a token that is no seat's: refused before its body is read ---------------------------------

#: the JSON API's routes that take a body and a seat
API_SEAT_BODIES = [r for r in ROUTES if r.seat and r.method != "GET" and r.path.startswith("/api/")]


def _through_the_app(client: TestClient, method: str, path: str, token: str) -> list[Any]:
    """The app's answer to a request whose body may not be read (the read fails the test)."""
    sent: list[Any] = []

    async def answer(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"testserver"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(DEFAULT_BODY_BYTES).encode()),
        ],
        "client": ("192.0.2.7", 5000),
        "server": ("testserver", 80),
    }
    assert client.portal is not None
    client.portal.call(client.app, scope, _never_read, answer)
    return sent


@pytest.mark.parametrize("kind", ["unknown", "revoked"])
@pytest.mark.parametrize("route", API_SEAT_BODIES, ids=lambda r: f"{r.method} {r.path}")
def test_a_token_that_is_no_seat_is_refused_before_its_body_is_read(
    open_client: TestClient, route: Route, kind: str
) -> None:
    table = new_table(open_client)
    token = "not-a-seat-token"
    if kind == "revoked":
        token = table["players"]["bron"]["token"]
        assert send(open_client, token, "bron: strike orc-brute").status_code == 200  # known
        gm = bearer(table["gm"]["token"])
        assert open_client.post("/api/seats/bron/reissue", headers=gm).status_code == 200
    sent = _through_the_app(open_client, route.method, _concrete(route.path), token)
    assert sent[0]["status"] == 401
    assert sent[1]["body"] == b'{"detail":"unknown or revoked seat token"}'


def test_a_real_seat_still_reaches_its_route(open_client: TestClient) -> None:
    table = new_table(open_client)
    bron = table["players"]["bron"]["token"]
    assert send(open_client, bron, "bron: strike orc-brute").json()["accepted"] is True
    malformed = open_client.post("/api/commands", headers={"Authorization": "Basic x"}, json={})
    assert malformed.status_code == 401  # the route's own refusal of a header not a bearer
    assert malformed.json()["detail"] == "Authorization must be 'Bearer TOKEN'"
