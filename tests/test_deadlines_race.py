"""A person's approval racing the expiry, across processes: two `stalwart serve` workers on one store, each with its
clock ticking every second, and the approval sent to one of them around the deadline.  The charge runs at most once,
and each side is told what happened: the person 200 (it ran) or 410 pause_expired (nothing ran)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from .server import stalwart_serve
from .test_approvers import ALICE, AUDIENCE, SECRET, TEAM, shop, token

EXPIRES = "1s"
AROUND = (-0.4, -0.05, 0.0, 0.02, 0.3)
"""Seconds from the deadline at which each round's approval is sent: before, at, and after it."""


@pytest.fixture(params=["sqlite", "postgres"])
def workers(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ledger: Any
) -> Iterator[Any]:
    monkeypatch.setenv("STALWART_JWT_SECRET", SECRET)
    config = shop(tmp_path, f"deadlines: [{{tool: charge_card, expires: {EXPIRES}}}]")
    if request.param == "postgres":
        storage = request.getfixturevalue("postgres_cluster").create_database(f"race_{uuid.uuid4().hex[:8]}")
    else:
        storage = f"sqlite:///{tmp_path / 'runs.db'}"
    options = ["--storage", storage, "--auth", "hs256", "--jwt-issuer", TEAM, "--jwt-audience", AUDIENCE]
    with stalwart_serve(config, *options) as (one, _), stalwart_serve(config, *options) as (two, _):
        yield one, two


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_an_approval_racing_the_expiry_runs_the_charge_at_most_once_and_both_are_told(
    workers: Any, ledger: Any
) -> None:
    one, two = workers
    told: list[int] = []
    for round, offset in enumerate(AROUND):
        thread = f"race-{round}"
        asked = httpx.post(
            f"{two}/threads/{thread}/messages",
            json={"text": "charge 40 to order 4411"},
            headers=token(ALICE),
            timeout=30,
        )
        [pause] = asked.json()["waiting"]
        time.sleep(max(0.0, seconds(pause["expires_at"]) + offset - time.time()))
        body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
        answered = httpx.post(f"{one}/threads/{thread}/resume", json=body, headers=token(ALICE), timeout=30)
        assert answered.status_code in (200, 410), answered.text
        if answered.status_code == 410:
            assert answered.json()["error"] == "pause_expired"
        told.append(answered.status_code)
        charges = [c for c in ledger("charge")]
        assert len(charges) == told.count(200)  # at most once, and only where the person was told it ran
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the clocks settle: nothing waits, and exactly one answer was taken
            waiting = httpx.get(f"{two}/threads/{thread}/interrupts", headers=token(ALICE), timeout=30).json()
            if not waiting["waiting"]:
                break
            time.sleep(0.2)
        assert waiting["waiting"] == []
    assert told[0] == 200 and told[-1] == 410  # well before the deadline it runs; well after, it never does
    assert len(ledger("charge")) == told.count(200)
