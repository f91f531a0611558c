"""The one Origin rule (issue 20 §3): "one dependency applied to every non-GET route and the
sockets … a test that walks every route in the app and fails if one lacks it".

Before, ``/table/visibility``, ``/table/seats/ID/reissue``, ``/table/encounters`` and ``POST
/api/seats/ID/reissue`` took a request from a page on another port of the same host: it
revoked a player's seat and showed players an NPC's exact Health. Here every route is walked
from the app itself, so a route added later without the rule fails this test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from caltrop.web.deps import foreign, same_origin
from tests.web.test_api import bearer, new_table

#: headers a page on another origin makes a browser send (another port of the same host is
#: another origin; a sandboxed frame sends Origin null)
FOREIGN: tuple[dict[str, str], ...] = (
    {"origin": "http://testserver:8702"},
    {"origin": "http://evil.example"},
    {"origin": "null"},
    {"sec-fetch-site": "same-site"},
    {"sec-fetch-site": "cross-site", "origin": "null"},
)
#: what each path parameter of the app's routes is filled with
PATH_VALUES = {"creature_id": "bron", "token": "x", "name": "htmx.min.js"}
SAFE = {"GET", "HEAD", "OPTIONS"}


def _routes(app: FastAPI) -> Iterator[APIRoute | APIWebSocketRoute]:
    """Every route of the app, through included routers too."""
    for route in app.router.routes:
        inner = getattr(route, "original_router", None)
        for each in inner.routes if inner is not None else [route]:
            if isinstance(each, APIRoute | APIWebSocketRoute):
                yield each


def _calls(route: APIRoute) -> set[Any]:
    found: set[Any] = set()
    stack = [route.dependant]
    while stack:
        dependant = stack.pop()
        found.add(dependant.call)
        stack += dependant.dependencies
    return found


def _path(route: APIRoute | APIWebSocketRoute) -> str:
    return route.path_format.format(**{p: PATH_VALUES[p] for p in route.param_convertors})


@pytest.fixture
def app(client: TestClient) -> FastAPI:
    assert isinstance(client.app, FastAPI)
    return client.app


def test_the_app_has_the_routes_this_test_knows(app: FastAPI) -> None:
    """The walk sees the app's routes (so an empty walk cannot pass the tests below)."""
    unsafe = [r for r in _routes(app) if isinstance(r, APIRoute) and r.methods - SAFE]
    sockets = [r for r in _routes(app) if isinstance(r, APIWebSocketRoute)]
    assert len(unsafe) >= 12
    assert {r.path for r in sockets} == {"/ws", "/ws/screen", "/ws/tv/{token}"}


def test_every_state_changing_route_depends_on_the_origin_rule(app: FastAPI) -> None:
    missing = [
        f"{sorted(r.methods)} {r.path}"
        for r in _routes(app)
        if isinstance(r, APIRoute) and r.methods - SAFE and same_origin not in _calls(r)
    ]
    assert missing == []


def test_every_state_changing_route_refuses_a_foreign_page_before_anything(
    client: TestClient, app: FastAPI
) -> None:
    """With the GM's cookie (a browser sends it whichever page asks), each route refuses a
    request a foreign page made: 403 saying so, and the table is unchanged."""
    table = new_table(client)
    gm = table["gm"]["token"]
    client.get(f"/join/{gm}")  # the browser holds the GM's seat cookie
    before = client.get("/api/view", headers=bearer(gm)).json()
    for route in _routes(app):
        if not isinstance(route, APIRoute) or not route.methods - SAFE:
            continue
        for method in sorted(route.methods - SAFE):
            for headers in FOREIGN:
                got = client.request(method, _path(route), headers=headers, data={"x": "1"})
                assert got.status_code == 403, (method, route.path, headers, got.text)
                assert "another site's page" in got.json()["detail"]
    after = client.get("/api/view", headers=bearer(gm)).json()
    assert after == before
    assert client.get("/api/view").status_code == 200  # the cookie's seat was not revoked


def test_every_socket_refuses_a_foreign_page(client: TestClient, app: FastAPI) -> None:
    table = new_table(client)
    client.get(f"/join/{table['gm']['token']}")
    for route in _routes(app):
        if not isinstance(route, APIWebSocketRoute):
            continue
        for headers in FOREIGN:
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                client.websocket_connect(_path(route), headers=headers) as ws,
            ):
                ws.receive_json()
            assert refused.value.code == 1008, (route.path, headers)


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({}, False),  # a tool
        ({"origin": "http://testserver", "host": "testserver"}, False),
        ({"sec-fetch-site": "same-origin", "origin": "null", "host": "testserver"}, False),
        ({"sec-fetch-site": "none"}, False),
        (
            {"sec-fetch-site": "same-site", "origin": "http://testserver", "host": "testserver"},
            True,
        ),
        ({"origin": "http://testserver:8702", "host": "testserver"}, True),
        ({"origin": "null"}, True),
        ({"origin": "http://evil.example", "authorization": "Bearer t"}, True),
    ],
)
def test_the_rule(headers: dict[str, str], refused: bool) -> None:
    """Sec-Fetch-Site decides when sent (Chromium sends ``Origin: null`` with a same-origin
    form under ``Referrer-Policy: no-referrer``); else a page's Origin must be this host."""
    assert (foreign(headers) is not None) is refused


def test_pages_carry_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/table", "/api/library"):
        got = client.get(path)
        policy = got.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]
        assert "frame-ancestors 'none'" in policy
        assert got.headers["x-frame-options"] == "DENY"
        assert got.headers["referrer-policy"] == "no-referrer"
        assert got.headers["x-content-type-options"] == "nosniff"


def test_no_page_holds_inline_script(client: TestClient) -> None:
    """The policy forbids inline script: a page that had some would break in the browser."""
    table = new_table(client)
    client.get(f"/join/{table['gm']['token']}")
    for path in ("/", "/table"):
        html = client.get(path).text
        for chunk in html.split("<script")[1:]:
            head = chunk.split(">", 1)[0]
            assert "src=" in head, f"inline script on {path}: <script{head}>"
        assert " onclick=" not in html
        assert " onload=" not in html
