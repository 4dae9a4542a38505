"""The ``store`` fixture: every conformance test runs once per backend.

A backend joins the suite with one entry in BACKENDS: a function from the test's
request and a scratch folder to the storage URL to open.  A backend that needs
a service (postgres, dynamodb) calls ``pytest.skip`` there when none is
available; dynamodb runs against a moto server on 127.0.0.1, one table per test.
"""

from __future__ import annotations

import copy
import logging
import threading
import types
import uuid
from collections.abc import Callable, Iterable, Iterator
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
}


@pytest.fixture(params=list(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    opened = open_storage(BACKENDS[request.param](request, tmp_path))
    yield opened
    opened.close()


def _one_request_at_a_time(app: Callable[..., Iterable[bytes]]) -> Callable[..., list[bytes]]:
    """moto applies a transaction as check-then-write without a lock, where DynamoDB decides each atomically:
    serving one request at a time gives the racing tests DynamoDB's outcome."""
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


def _backing_up_each_table_once(patch: pytest.MonkeyPatch) -> None:
    """moto backs a table up before a transaction once per item it writes, each a deep copy of the whole table with
    every record its stream kept: quadratic, minutes for a 700-item run.  The copies are identical, so make one."""
    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    transact_write_items = models.DynamoDBBackend.transact_write_items

    def backed_up_once(backend: Any, transact_items: list[dict[str, Any]]) -> None:
        backups: dict[int, Any] = {}

        def deepcopy(value: Any) -> Any:
            if not isinstance(value, Table):
                return copy.deepcopy(value)
            if id(value) not in backups:
                backups[id(value)] = copy.deepcopy(value)
            return backups[id(value)]

        models.copy = types.SimpleNamespace(deepcopy=deepcopy)
        try:
            transact_write_items(backend, transact_items)
        finally:
            models.copy = copy

    patch.setattr(models.DynamoDBBackend, "transact_write_items", backed_up_once)


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """A moto server over HTTP on 127.0.0.1, shared by the session (each test uses its own table)."""
    pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    with pytest.MonkeyPatch.context() as patch:
        _backing_up_each_table_once(patch)
        server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        server._server.app = _one_request_at_a_time(server._server.app)
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
        server.stop()


@pytest.fixture
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials moto accepts, and no AWS configuration of this machine's."""
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.fixture
def dynamodb_url(moto_endpoint: str, fake_aws: None) -> str:
    return f"dynamodb://t-{uuid.uuid4().hex}?region={REGION}&endpoint={moto_endpoint}"
