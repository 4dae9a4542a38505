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

REGION = "us-east-1"
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
}

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
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials moto accepts, and no AWS configuration of this machine's."""
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.fixture
def dynamodb_url(moto_endpoint: str, fake_aws: None) -> str:
    return f"dynamodb://t-{uuid.uuid4().hex}?region={REGION}&endpoint={moto_endpoint}"


@pytest.fixture
def postgres_url(postgres_cluster: Any) -> str:
    """A fresh database of the session's cluster, for this test alone."""
    return postgres_cluster.create_database(f"t_{uuid.uuid4().hex}")
