"""uvicorn's HTTP protocol with the deadlines it lacks (issue 20 §2: "idle and slow connections
time out").

uvicorn closes a kept-alive connection that stays idle (``timeout_keep_alive``) but has no
deadline for a request's headers nor its body: its keep-alive timer is cancelled by every byte
received, and a connection that never finishes its headers is never timed out at all — a
"slowloris" client that sends a header a byte every few seconds holds a connection (and its
parser's buffers) for ever, and a thousand of them hold the server's sockets. Nor does the
httptools parser bound the size of the headers (h11's ``h11_max_incomplete_event_size`` does,
for h11 only). :class:`BoundedHttpProtocol` adds, per request:

* :data:`HEADER_SECONDS` from the connection's first byte (or from its opening) to the end of
  the headers, then 408 and the connection is closed;
* :data:`MAX_HEADER_BYTES` of request line and headers, then 431 and closed;
* :data:`BODY_SECONDS` from the end of the headers to the end of the body, then the connection
  is closed (the app's read of the body sees the client gone).

A WebSocket upgrade leaves these deadlines behind (the socket has its own ping timeout).
``caltrop serve`` starts uvicorn with this protocol (``http=BoundedHttpProtocol``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: from a request's first byte to the end of its headers (a phone on a poor line sends its
#: headers in well under a second)
HEADER_SECONDS: Final = 10.0
#: from the end of a request's headers to the end of its body: the largest upload (a 20 MiB
#: log) at about 350 KB/s
BODY_SECONDS: Final = 60.0
#: a request line and headers (a browser's, cookie included, are a few KiB)
MAX_HEADER_BYTES: Final = 64 * 1024


class BoundedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header deadline, a header size bound and a body
    deadline (see the module docstring). A subclass may set the three class attributes."""

    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    max_header_bytes: int = MAX_HEADER_BYTES

    _deadline: asyncio.TimerHandle | None = None
    _in_headers: bool = True
    _header_bytes: int = 0

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._arm(self.header_seconds, self._headers_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._in_headers or self.transport.is_closing():
            return
        self._header_bytes += len(data)
        if self._header_bytes > self.max_header_bytes:
            self._disarm()
            self._refuse(431, "Request Header Fields Too Large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers = True
        self._header_bytes = 0
        if self._deadline is None:  # the first request's deadline runs from the opening
            self._arm(self.header_seconds, self._headers_too_slow)

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._disarm()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._arm(self.body_seconds, self._body_too_slow)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        self._in_headers = False
        super().handle_websocket_upgrade()

    # -- the deadlines ------------------------------------------------------------------------

    def _arm(self, seconds: float, callback: Callable[[], None]) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, callback)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self._refuse(408, "Request Timeout")

    def _body_too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, reason: str) -> None:
        """A plain answer and the connection closed (no app has seen this request)."""
        body = f"{status} {reason}: see docs/limits.md".encode()
        self.transport.write(
            f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body
        )
        self.transport.close()
