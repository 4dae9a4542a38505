"""Deadlines over HTTP (a real uvicorn on 127.0.0.1, people signed in by HS256 tokens, the desk's clock injected):
the card and the inbox row say when the pause ends and what then; a late answer is 410 pause_expired and acts on
nothing; an escalated pause reaches the wider group's inbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from stalwart_agents.approvals.overdue import tick
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.serve import make_app

from .server import serving
from .test_approvers import ALICE, AUDIENCE, SECRET, TEAM, opened, token
from .test_deadlines import BOSS, CHARGES_WAIT_FOUR_HOURS, HOUR, Clock

CHARGE = {"text": "charge 40 to order 4411"}


@pytest.fixture
def served(tmp_path: Path, ledger: Any) -> Iterator[tuple[httpx.Client, Any, Clock]]:
    clock = Clock()
    with (
        opened(tmp_path, CHARGES_WAIT_FOUR_HOURS, clock=clock) as desk,
        serving(make_app(desk, auth=SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE))) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        yield client, desk, clock


def test_the_card_and_the_inbox_row_say_when_it_ends_and_what_then(served: Any) -> None:
    client, _, _ = served
    client.post("/threads/t-1/messages", json=CHARGE, headers=token(ALICE)).raise_for_status()
    [pause] = client.get("/threads/t-1/interrupts", headers=token(ALICE)).json()["waiting"]
    assert (pause["expires_at"], pause["on_expiry"]) == ("2027-01-15T12:00:00.000Z", "skip")
    assert pause["card"]["deadline"] == {"key": "deadlineSkip", "values": {"when": "2027-01-15T12:00:00.000Z"}}
    assert pause["card"]["escalation"] == {
        "key": "escalatesAt",
        "values": {"who": "the managers", "when": "2027-01-15T10:00:00.000Z"},
    }
    [row] = client.get("/interrupts", headers=token(ALICE)).json()["waiting"]
    assert row["id"] == pause["id"] and row["card"]["deadline"] == pause["card"]["deadline"]


def test_a_late_answer_is_410_and_acts_on_nothing(served: Any, ledger: Any) -> None:
    client, _, clock = served
    [pause] = client.post("/threads/t-1/messages", json=CHARGE, headers=token(ALICE)).json()["waiting"]
    clock.later(4 * HOUR)
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    late = client.post("/threads/t-1/resume", json=body, headers=token(ALICE))
    assert late.status_code == 410 and late.json()["error"] == "pause_expired"
    assert "nobody answered in time" in late.json()["message"]
    assert ledger("charge") == []
    assert client.get("/threads/t-1/interrupts", headers=token(ALICE)).json()["waiting"] == []


def test_an_escalated_pause_reaches_the_wider_groups_inbox_and_they_may_answer(served: Any, ledger: Any) -> None:
    client, desk, clock = served
    [pause] = client.post("/threads/t-1/messages", json=CHARGE, headers=token(ALICE)).json()["waiting"]
    assert client.get("/interrupts", headers=token(BOSS)).json()["waiting"] == []
    clock.later(2 * HOUR)
    tick(desk)
    [row] = client.get("/interrupts", headers=token(BOSS)).json()["waiting"]
    assert row["escalation"]["done"] is True
    assert row["card"]["escalation"] == {"key": "escalated", "values": {"who": "the managers"}}
    assert [a["decision"] for a in row["card"]["answers"]] == ["approve", "skip", "cancel_all"]
    body = {"interrupt_id": pause["id"], "token": row["token"], "decision": "approve"}
    assert client.post(f"/threads/{pause['thread']}/resume", json=body, headers=token(BOSS)).status_code == 200
    assert len(ledger("charge")) == 1
