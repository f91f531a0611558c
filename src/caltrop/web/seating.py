"""What the JSON API and the browser pages share about seats: the cookie that names a seat and
the message that ends a revoked seat's sockets (issue 11, "Who may do what")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

#: the HttpOnly, SameSite cookie ``GET /join/TOKEN`` sets: the seat's token
COOKIE: Final = "caltrop_seat"
#: the last message of a socket whose seat the GM revoked
REVOKED: Final[Mapping[str, Any]] = {"type": "revoked", "detail": "this seat was revoked"}
