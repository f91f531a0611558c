"""The browser reproduction of issue 20 §3: "in Chromium a page on ``http://127.0.0.1:8702``
(same site, other port) revoked a player's seat and revealed an NPC's exact Health and Aspects
to players with the GM's cookie". The GM's browser, holding its seat cookie, visits a page
served on another port of the same host that posts the table's forms and fetches with
credentials; nothing changes, and the GM's own screen still works."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import _free_port
from tests.browser.screens import DESKTOP, open_table

ATTACK = """<!doctype html><html><body>
<iframe name="sink" title="sink"></iframe>
<form id="show" method="post" action="{base}/table/visibility" target="sink">
  <input name="creature" value="orc-brute"><input name="health" value="exact">
  <input name="aspects" value="on"><input name="resources" value="on"></form>
<form id="revoke" method="post" action="{base}/table/seats/aria/reissue" target="sink"></form>
<form id="next" method="post" action="{base}/table/encounters" target="sink">
  <input name="encounter" value="duel"></form>
<script src="/attack.js"></script>
</body></html>"""
SCRIPT = """
document.getElementById('show').submit();
setTimeout(() => document.getElementById('revoke').submit(), 300);
setTimeout(() => document.getElementById('next').submit(), 600);
fetch('{base}/table/visibility', {{method: 'POST', credentials: 'include', mode: 'no-cors',
  headers: {{'Content-Type': 'application/x-www-form-urlencoded'}},
  body: 'creature=orc-brute&health=exact&aspects=on'}}).finally(() => {{
  fetch('{base}/api/seats/aria/reissue', {{method: 'POST', credentials: 'include',
    mode: 'no-cors'}}).finally(() => {{ document.title = 'done'; }});
}});
"""


@pytest.fixture
def foreign_site(server: str) -> Iterator[str]:
    """A page on another port of the same host (same site, another origin)."""
    page = ATTACK.format(base=server).encode()
    script = SCRIPT.format(base=server).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = (
                (script, "text/javascript") if self.path == "/attack.js" else (page, "text/html")
            )
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    port = _free_port()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()


def test_a_page_on_another_port_changes_nothing(
    browser: Browser, server: str, foreign_site: str
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    aria_token = links["aria"].rsplit("/join/", 1)[1]
    gm_token = gm.context.cookies(server)[0]["value"]
    api = httpx.Client(base_url=server, timeout=10)
    before = api.get("/api/view", headers={"Authorization": f"Bearer {aria_token}"}).json()
    brute = next(c for c in before["creatures"] if c["id"] == "orc-brute")

    evil = gm.context.new_page()  # the same browser, holding the GM's cookie
    posts: list[int] = []
    evil.on(
        "response",
        lambda r: posts.append(r.status) if r.request.method == "POST" else None,
    )
    evil.goto(foreign_site)
    evil.wait_for_function("document.title === 'done'", timeout=15000)
    evil.wait_for_timeout(1200)  # the delayed form posts
    assert posts, "the attack page posted nothing"
    assert set(posts) == {403}, posts

    # Aria's seat still works, the players still see the brute as before, same encounter
    after = api.get("/api/view", headers={"Authorization": f"Bearer {aria_token}"}).json()
    assert after["seq"] == before["seq"]
    assert next(c for c in after["creatures"] if c["id"] == "orc-brute") == brute
    assert json.dumps(after, sort_keys=True) == json.dumps(before, sort_keys=True)
    # and the GM's own screen, on its own origin, still changes things
    gm_view = api.get("/api/view", headers={"Authorization": f"Bearer {gm_token}"})
    assert gm_view.status_code == 200


def test_the_gm_screen_itself_is_not_refused(browser: Browser, server: str) -> None:
    """The rule must not refuse the pages' own posts (Chromium sends ``Origin: null`` with a
    same-origin form under ``Referrer-Policy: no-referrer``)."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.request.method == "POST" else None)
    page.goto(f"{server}/")
    page.get_by_role("button", name="Open table: Orc Bridge").click()
    page.wait_for_selector("#seats")
    assert statuses
    assert all(s < 400 for s in statuses), statuses
