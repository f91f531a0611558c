"""An htmx request's refusal is answered ``200`` with its status in ``X-Caltrop-Status`` (issue
22 item 8: "every refused command logs a console resource error").

The browser logs every 4xx answer to a page's own request as a failed resource in its console,
whatever the page does with it; yet a refusal (a rule, a right, a stale screen) is no failure of
the page: it is the answer, shown beside the form (``hx-target``) with the server's reason. So
every refusal of a request htmx made (``HX-Request: true``) leaves as 200 — htmx swaps it in
as before — and says its status in :data:`STATUS_HEADER`; every other client (a plain form post,
a tool, the JSON API) gets the status itself. One pure ASGI middleware, so every route, present
and future, answers alike."""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the header that carries the refusal's own status to an htmx page
STATUS_HEADER: Final = "x-caltrop-status"


def is_htmx(scope: Scope) -> bool:
    """Whether the request is htmx's (it sends ``HX-Request: true``)."""
    return any(k == b"hx-request" and v == b"true" for k, v in scope.get("headers", ()))


class HtmxRefusals:
    """The middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_htmx(scope):
            await self.app(scope, receive, send)
            return

        async def answered(message: Message) -> None:
            status = message.get("status", 200) if message["type"] == "http.response.start" else 0
            if 400 <= status < 500:
                headers = [*message.get("headers", ()), (STATUS_HEADER.encode(), b"%d" % status)]
                message = {**message, "status": 200, "headers": headers}
            await send(message)

        await self.app(scope, receive, answered)
