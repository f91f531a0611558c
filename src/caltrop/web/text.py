"""The one check of every text a client sends that the server stores or looks up (issue 20 §2:
"a NUL character in command_id or encounter gives 422, not a 500").

PostgreSQL's text cannot hold a NUL character (U+0000): psycopg refuses to send one, and the
request died with a 500 and a traceback where SQLite stored it. JSON columns are safe (a NUL
inside JSON is written ``\\u0000``), so what needs the check is the plain text a client chooses:
a command id, an encounter's name, a form field. The JSON bodies check it in their pydantic
models (:data:`StoredText`, used by :mod:`caltrop.web.schemas`); the forms and multipart
fields, which no model reads, through :func:`checked_form`. Either way the refusal is a 422
that names the field, and nothing is stored.
"""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import AfterValidator
from starlette.datastructures import FormData

from caltrop.errors import RefusedError

NUL: Final = "\x00"


def no_nul(value: str) -> str:
    """``value`` if it holds no NUL character; ValueError (a 422 from pydantic) if it does."""
    if NUL in value:
        raise ValueError(
            f"holds a NUL character (U+0000) at position {value.index(NUL) + 1}; "
            "no text the server keeps may hold one"
        )
    return value


#: text a JSON body sends that the server stores or looks up: no NUL character
StoredText = Annotated[str, AfterValidator(no_nul)]


def checked_form(form: FormData) -> FormData:
    """``form`` if none of its text fields (nor an uploaded file's name) holds a NUL
    character; a 422 naming the field if one does."""
    for name, value in form.multi_items():
        text = value if isinstance(value, str) else (value.filename or "")
        for what, checked in ((f"the field name {name[:40]!r}", name), (f"{name[:40]}", text)):
            try:
                no_nul(checked)
            except ValueError as exc:
                raise RefusedError(f"{what}: {exc}") from None
    return form
