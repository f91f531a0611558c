"""The API's one error model (issue 20 §4, "The API says what it does").

Every refusal, whoever makes it, is answered with one body, :class:`ErrorOut`:
``{"detail": "why, in words"}``, plus ``head`` for a stale ``expected_seq``. That covers the
service's refusals (:class:`~caltrop.errors.RefusalError`'s kinds, each given its status by
:data:`STATUS`), a table or log that is gone (404), a request the schema refuses (422, the field and the reason in words:
``body.seed: Input should be a valid integer``; FastAPI's own list of validation errors is
never sent) and Starlette's own refusals (404 no such route, 405 no such method), which
already send ``{"detail": "…"}``.

:data:`ANSWERS` says, per operation, which refusal statuses it can answer; each route passes
:func:`responses` of its operation to FastAPI so that the OpenAPI schema documents exactly
those, each with this body (``tests/web/test_schema_fuzz.py`` runs every operation under all of
schemathesis's checks against it). The statuses mean the same on every route
(:data:`MEANING`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from caltrop.errors import (
    BusyError,
    ForbiddenError,
    NoSeatError,
    NotFoundError,
    OutOfStepError,
    RefusalError,
    RefusedError,
    TooLargeError,
)


class ErrorOut(BaseModel):
    """The body of every refusal of the API."""

    model_config = ConfigDict(extra="forbid")

    detail: str = Field(description="why the request was refused, in words")
    head: StrictInt | None = Field(
        default=None, description="409 for a stale expected_seq only: the log's head seq now"
    )


#: what a refusal status means, on every route that answers it
MEANING: Final[Mapping[int, str]] = {
    400: "the body cannot be read as JSON text (it is not UTF-8, say)",
    401: "no seat: no bearer token or seat cookie, or an unknown or revoked one",
    403: "refused: the seat may not do this, or the request came from another site's page",
    404: "no such thing: the encounter asked for, or the table's stored log",
    409: "the table is not where the request thought: a stale expected_seq (with head), a "
    "command_id another seat used, or a creature that does not play in the encounter now",
    413: "the body is larger than the route takes",
    422: "a field is wrong (the field and why), or the game's rules refuse it (the rule's words)",
    429: "too many tables opened from this address (Retry-After says when to try again), or "
    "more builder computations waiting than the server takes",
}

#: the seat's token routes (the table may be gone: 404)
_SEAT: Final = (401, 404)
#: the state-changing routes (the Origin rule: 403)
_ORIGIN: Final = (403,)
#: the routes that take a JSON body (FastAPI reads it: 400 when it cannot)
_JSON: Final = (400, 422)

#: the refusal statuses each operation of the API can answer ("METHOD /path")
ANSWERS: Final[Mapping[str, Sequence[int]]] = {
    "GET /api/library": (),
    "POST /api/tables": (*_ORIGIN, *_JSON, 413, 422, 429),
    "POST /api/tables/upload": (*_ORIGIN, 413, 422, 429),
    "POST /api/tables/import": (*_ORIGIN, 413, 422, 429),
    "GET /join/{token}": (401, 422),
    "POST /join/{token}": (401, *_ORIGIN, 422),
    "GET /api/view": (*_SEAT, 409),
    "POST /api/commands": (*_SEAT, *_ORIGIN, *_JSON, 409, 413, 422),
    "GET /api/events": (*_SEAT, 422),
    "GET /api/log": (*_SEAT, 403, 422),
    "GET /api/night": (*_SEAT, 403),
    "PUT /api/visibility": (*_SEAT, *_ORIGIN, *_JSON, 413, 422),
    "POST /api/encounters": (*_SEAT, *_ORIGIN, *_JSON, 413, 422),
    "POST /api/encounters/upload": (*_SEAT, *_ORIGIN, 413, 422),
    "POST /api/seats/{creature_id}/reissue": (*_SEAT, *_ORIGIN, 422),
}


#: where the schema keeps :class:`ErrorOut` (:func:`document_errors` puts it there)
ERROR_REF: Final = "#/components/schemas/ErrorOut"


def responses(operation: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route: each refusal status it answers, with :class:`ErrorOut`
    as JSON (named by reference, not as FastAPI's ``model``: FastAPI would document it in the
    route's own media type, text or zip for the exports, while a refusal is always JSON)."""
    return {
        status: {
            "description": MEANING[status],
            "content": {"application/json": {"schema": {"$ref": ERROR_REF}}},
        }
        for status in sorted(set(ANSWERS[operation]))
    }


def document_errors(app: FastAPI) -> None:
    """Make ``app``'s OpenAPI schema hold :class:`ErrorOut` (which :func:`responses` names)."""
    make = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = make()
            schemas = schema.setdefault("components", {}).setdefault("schemas", {})
            schemas["ErrorOut"] = ErrorOut.model_json_schema(ref_template=ERROR_REF)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


#: how many of a request's validation errors its refusal names (the rest are counted)
MAX_NAMED: Final = 3


def validation_detail(errors: Sequence[Mapping[str, Any]]) -> str:
    """A request the schema refuses, in words: each wrong field's location and pydantic's
    message (``body.seed: Input should be a valid integer``), never the value sent."""
    said = [_one(e) for e in errors[:MAX_NAMED]]
    if len(errors) > MAX_NAMED:
        said.append(f"and {len(errors) - MAX_NAMED} more")
    return "; ".join(said) or "the request does not match the API's schema"


def _one(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "is wrong"))
    return f"{where}: {message}" if where else message


#: the HTTP status of each kind of refusal (issue 24 item 3: the service raises the kind, and
#: only the web layer knows the status, here, once)
STATUS: Final[Mapping[type[RefusalError], int]] = {
    NoSeatError: 401,
    ForbiddenError: 403,
    NotFoundError: 404,
    OutOfStepError: 409,
    TooLargeError: 413,
    RefusedError: 422,
    BusyError: 429,
}


def status_of(exc: RefusalError) -> int:
    """The HTTP status of ``exc``'s kind (the nearest kind in :data:`STATUS` it is)."""
    for kind in type(exc).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    raise TypeError(f"a refusal of no kind: {type(exc).__name__}")  # every kind is listed


def refusal_body(exc: RefusalError) -> dict[str, Any]:
    """A :class:`RefusalError` as its :class:`ErrorOut` body."""
    return {"detail": exc.reason, **exc.extra}
