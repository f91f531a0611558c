"""Issue 24 item 3: "``store/service.py`` raises domain errors (refused, forbidden, conflict,
not found) and one handler maps them to HTTP statuses; the service no longer knows HTTP
codes"."""

from __future__ import annotations

import ast
import inspect

import caltrop.errors
import caltrop.store.service
from caltrop.errors import RefusalError
from caltrop.web.errors import MEANING, STATUS, status_of


def _kinds() -> list[type[RefusalError]]:
    return [
        value
        for name in caltrop.errors.__all__
        if isinstance(value := getattr(caltrop.errors, name), type)
        and issubclass(value, RefusalError)
        and value is not RefusalError
    ]


def test_every_kind_of_refusal_has_one_status_and_its_meaning() -> None:
    kinds = _kinds()
    assert len(kinds) >= 6
    for kind in kinds:
        status = status_of(kind("why"))
        assert status in MEANING, kind
        assert 400 <= status < 500
    assert {STATUS[k] for k in STATUS} == {401, 403, 404, 409, 413, 422, 429}


def test_the_service_knows_no_http() -> None:
    """No status number goes into a refusal in the service, and it imports no web framework."""
    tree = ast.parse(inspect.getsource(caltrop.store.service))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
            assert not any(n.split(".")[0] in {"fastapi", "starlette"} for n in names)
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            called = ast.unparse(node.func)
            if called.endswith("Error") and isinstance(first, ast.Constant):
                assert not isinstance(first.value, int), f"{called}({first.value}, …)"
    assert not hasattr(RefusalError("x"), "status")


def test_a_kind_carries_the_fields_a_client_acts_on() -> None:
    stale = caltrop.errors.OutOfStepError("stale expected_seq 0: the log is at 3", head=3)
    assert status_of(stale) == 409
    assert stale.extra == {"head": 3}
    assert stale.reason.startswith("stale")
