"""Reading a request's body within its limit (issue 20: nothing unbounded): the raw body of a
log, and the multipart upload of content files."""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException

from caltrop.errors import RefusedError, TooLargeError
from caltrop.store.service import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES
from caltrop.web.text import checked_form

#: multipart framing beyond the files' own bytes that an upload may carry
UPLOAD_SLACK: Final = 64 * 1024

#: The multipart body of the upload routes, for the OpenAPI schema (they read it themselves,
#: bounded, so that an oversized upload is refused before it is parsed).
UPLOAD_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        "seed": {"type": "integer", "minimum": 0},
                        "reset": {"type": "array", "items": {"type": "string"}},
                    },
                }
            }
        },
    }
}


async def bounded_body(request: Request, limit: int, what: str = "a log") -> bytes:
    """The request's body, refused with 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLargeError(f"{what} is at most {limit:,} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLargeError(f"{what} is at most {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def uploaded(request: Request) -> tuple[dict[str, bytes], FormData]:
    """The uploaded files (name → bytes) and the other fields of a multipart body of at most
    MAX_UPLOAD_BYTES (and the framing); 413 past it, 422 for a body that is not multipart."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise RefusedError("send the files as multipart/form-data (field 'files')")
    body = await bounded_body(request, MAX_UPLOAD_BYTES + UPLOAD_SLACK, "an upload")
    request._body = body  # Starlette's cached body: the form parser reads it, not the socket
    try:
        form = checked_form(await request.form(max_files=MAX_UPLOAD_FILES, max_fields=20))
    except (MultiPartException, HTTPException) as exc:
        raise RefusedError(f"not a multipart upload: {_detail(exc)}") from None
    files: dict[str, bytes] = {}
    for value in form.getlist("files"):
        if not isinstance(value, UploadFile):
            raise RefusedError("'files' holds files, not text fields")
        name = value.filename or f"file-{len(files) + 1}.yaml"
        if name in files:
            raise RefusedError(f"two uploaded files are both named {name!r}")
        files[name] = await value.read()
    return files, form


def _detail(exc: Exception) -> str:
    return str(getattr(exc, "detail", None) or getattr(exc, "message", None) or exc)


def seed_field(form: FormData) -> int | None:
    """The ``seed`` field of a form: a whole number from 0, at most 18 digits; 422 otherwise."""
    raw = form.get("seed")
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise RefusedError("seed is a whole number from 0 (at most 18 digits)")
    return int(raw)
