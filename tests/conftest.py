"""What every test shares."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run last. pytest-playwright's sync API keeps an event loop running in
    the main thread from its first browser test to the end of the session, and any later test
    that runs its own loop there (``asyncio.run``, an anyio test, schemathesis's ASGI calls)
    fails with "Cannot run the event loop while another loop is running". Ordering the session
    fixes that class of failure for every such test, wherever it is."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))
