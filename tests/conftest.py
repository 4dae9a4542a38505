import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.aws.local import start_moto
from stalwart_agents.storage import Storage, open_storage

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
REGION = "us-east-1"
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
}
"""Credentials moto accepts, and none of this machine's own AWS configuration."""

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, which the test expects to be there (a run, a pause, a match); None fails the test."""
    assert value is not None
    return value


def delivery_of(store: Storage, pause_id: str) -> dict[str, Any]:
    """What ``store`` keeps of the announcement of pause ``pause_id``, which must be there and have been announced."""
    return present(present(store.get_pause(pause_id)).delivery)


@pytest.fixture
def ledger(tmp_path, monkeypatch):
    """The shop's own record of what really happened: one line per charge, refund or mail."""
    path = tmp_path / "ledger.jsonl"
    path.touch()
    monkeypatch.setenv("STALWART_SHOP_LEDGER", str(path))

    def entries(kind=None):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line]
        return [e for e in lines if kind is None or e["kind"] == kind]

    return entries


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "sqlite: the desk fixture keeps its runs in a SQLite file of the test's own, as a served desk does"
    )


@pytest.fixture
def desk(request, tmp_path, ledger):
    """The shop example's desk: in memory, or in ``tmp_path``'s runs.db where the test is marked ``sqlite``."""
    sqlite = request.node.get_closest_marker("sqlite") is not None
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}" if sqlite else "memory://") as desk:
        yield desk


@pytest.fixture(params=["memory", "sqlite", "postgres", "dynamodb"])
def each_store(request, tmp_path) -> Iterator[Storage]:
    """Each backend in turn, one store per test, shared by every desk (worker) the test opens on it."""
    urls = {"memory": lambda: "memory://", "sqlite": lambda: f"sqlite:///{tmp_path / 'runs.db'}"}
    urls["postgres"] = lambda: request.getfixturevalue("postgres_cluster").create_database(f"d_{uuid.uuid4().hex[:8]}")
    urls["dynamodb"] = lambda: request.getfixturevalue("dynamodb_url")
    store = open_storage(urls[request.param]())
    yield store
    store.close()


@pytest.fixture
def client(base):
    """An httpx client on the service at ``base``, a fixture of the test's module: it is served there."""
    with httpx.Client(base_url=base, timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def moto_endpoint():
    """A moto server over HTTP on 127.0.0.1, shared by the session (each test uses its own table)."""
    pytest.importorskip("moto.server")
    server, endpoint = start_moto()
    yield endpoint
    server.stop()


@pytest.fixture(scope="session")
def postgres_cluster():
    """A throwaway PostgreSQL server on 127.0.0.1, shared by the session (each test uses its own database)."""
    pytest.importorskip("psycopg", reason="the postgres extra is not installed: pip install -e '.[postgres]'")
    from tests.postgres import throwaway_cluster

    with throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture
def fake_aws(monkeypatch):
    """Credentials moto accepts, and no AWS configuration of this machine's."""
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.fixture
def dynamodb_url(moto_endpoint, fake_aws):
    """A table of its own on the session's moto server (the store creates it on first open)."""
    return f"dynamodb://t-{uuid.uuid4().hex}?region={REGION}&endpoint={moto_endpoint}"
