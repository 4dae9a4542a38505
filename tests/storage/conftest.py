"""The ``store`` fixture: every conformance test runs once per backend.

A backend joins the suite with one entry in BACKENDS: a function from a
scratch folder to the storage URL to open.  A backend that needs a service
(postgres, dynamodb) calls ``pytest.skip`` there when none is configured.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from stalwart_agents.storage import Storage, open_storage

BACKENDS: dict[str, Callable[[Path], str]] = {
    "memory": lambda folder: "memory://",
    "sqlite": lambda folder: f"sqlite:///{folder / 'runs.db'}",
}


@pytest.fixture(params=list(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    opened = open_storage(BACKENDS[request.param](tmp_path))
    yield opened
    opened.close()
