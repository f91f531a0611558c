"""What the JSON API and the browser pages share about seats: the cookie that names a seat and
the message that ends a revoked seat's sockets (issue 11, "Who may do what")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from starlette.requests import HTTPConnection
from starlette.responses import Response

#: the HttpOnly, SameSite cookie ``GET /join/TOKEN`` sets: the seat's token
COOKIE: Final = "caltrop_seat"
#: how long a browser keeps its seat
COOKIE_SECONDS: Final = 30 * 86400
#: the last message of a socket whose seat the GM revoked
REVOKED: Final[Mapping[str, Any]] = {"type": "revoked", "detail": "this seat was revoked"}


def set_seat_cookie(request: HTTPConnection, response: Response, token: str) -> None:
    """Bind the browser to the seat of ``token``: HttpOnly, SameSite=Strict, and ``Secure``
    when the page was served over HTTPS (directly, or behind a TLS proxy whose
    ``X-Forwarded-Proto`` uvicorn trusts: ``caltrop serve --forwarded-allow-ips``)."""
    response.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="strict",
        max_age=COOKIE_SECONDS,
        secure=request.url.scheme == "https",
    )
