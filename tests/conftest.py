import json
from pathlib import Path

import pytest

from stalwart_agents import Desk
from stalwart_agents.aws_local import start_moto

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


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


@pytest.fixture
def desk(ledger):
    with Desk.from_file(SHOP, storage="memory://") as desk:
        yield desk


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
