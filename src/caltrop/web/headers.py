"""Security headers on every HTTP response (issue 20, "one Origin rule"): no inline script
(``script-src 'self'``: the pages load only the vendored htmx and ``caltrop.js``), never framed,
no referrer (invite tokens are in URLs), no sniffing. ``/docs`` (FastAPI's Swagger page, which
needs its own inline script) is left without the policy."""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)
HEADERS: Final = (
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
)
#: pages that bring inline script of their own (FastAPI's interactive docs)
UNGUARDED: Final = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})


class SecurityHeaders:
    """A pure ASGI middleware (no body buffering) adding :data:`HEADERS` and the policy."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        guarded = scope.get("path") not in UNGUARDED

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(n, v) for n, v in HEADERS if n not in names]
                if guarded and b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
