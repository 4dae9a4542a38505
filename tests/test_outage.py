"""Storage going away mid-run: the service answers 503 storage_unavailable, and nothing waiting is lost."""

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving


@pytest.fixture
def cluster():
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    from tests.postgres import throwaway_cluster

    with throwaway_cluster() as started:
        yield started


WAIT = 1.0
"""Seconds a request waits for a connection of the store's pool before it answers 503 (5 by default): the server is
down, so each request below waits that long in full, and this one second is as telling as five."""


@pytest.mark.timeout(120)
def test_postgres_stopped_mid_run_answers_503_and_every_paused_run_resumes_after_restart(cluster, ledger):
    from stalwart_agents.storage.postgres import PostgresStorage

    store = PostgresStorage(cluster.create_database("outage"), timeout=WAIT)
    store.setup()  # as open_storage(url) would, which takes no timeout
    with (
        Desk.from_file(SHOP, store) as desk,
        serving(make_app(desk)) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        paused = {
            thread: client.post(f"/threads/{thread}/messages", json={"text": "charge 40 to order 4411"}).json()[
                "waiting"
            ][0]
            for thread in ("a", "b", "c")
        }
        cluster.stop()
        for answer in (
            client.post("/threads/d/messages", json={"text": "look up order 4411"}),
            client.get("/threads/a/interrupts"),
            client.post(
                "/threads/a/resume",
                json={"interrupt_id": paused["a"]["id"], "decision": "approve", "token": paused["a"]["token"]},
            ),
            client.get("/healthz"),
        ):
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"] == "storage_unavailable"
            assert "cannot be reached" in answer.json()["message"] and "outage" in answer.json()["message"]
        assert ledger("charge") == []

        cluster.start()
        for thread, pause in paused.items():
            assert client.get(f"/threads/{thread}/interrupts").json()["waiting"] == [pause]
            body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
            assert (
                client.post(f"/threads/{thread}/resume", json=body).json()["steps"][-1]["result"]["charge_id"]
                == "ch-4411"
            )
    assert len(ledger("charge")) == 3
