"""The ``store`` fixture: every conformance test runs once per backend.

A backend joins the suite with one entry in BACKENDS: a function from the test's
request and a scratch folder to the storage URL to open.  A backend that needs
a service (postgres, dynamodb) calls ``pytest.skip`` there when none is
available; dynamodb runs against a moto server on 127.0.0.1, one table per test.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents.storage import Storage, open_storage

BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path], str]] = {
    "memory": lambda request, folder: "memory://",
    "sqlite": lambda request, folder: f"sqlite:///{folder / 'runs.db'}",
    "dynamodb": lambda request, folder: request.getfixturevalue("dynamodb_url"),
    "postgres": lambda request, folder: request.getfixturevalue("postgres_url"),
}


@pytest.fixture(params=list(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    opened = open_storage(BACKENDS[request.param](request, tmp_path))
    yield opened
    opened.close()


@pytest.fixture
def postgres_url(postgres_cluster: Any) -> str:
    """A fresh database of the session's cluster, for this test alone."""
    return postgres_cluster.create_database(f"t_{uuid.uuid4().hex}")
