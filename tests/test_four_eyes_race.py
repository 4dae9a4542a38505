"""Four eyes across two `stalwart serve` processes on one store: the last two approvals, sent at the same moment to
different workers by two people, run the call once; the other is told it came too late."""

from functools import partial

import httpx
import pytest

from .server import at_once, stalwart_serve
from .test_approvers import ALICE, AUDIENCE, FIONA, FOUR_EYES, FRANK, GINA, SECRET, TEAM, shop, token

ROUNDS = 4


@pytest.fixture
def workers(tmp_path, monkeypatch, ledger):
    monkeypatch.setenv("STALWART_JWT_SECRET", SECRET)
    config = shop(tmp_path, FOUR_EYES)
    options = ["--storage", f"sqlite:///{tmp_path / 'runs.db'}", "--auth", "hs256"]
    options += ["--jwt-issuer", TEAM, "--jwt-audience", AUDIENCE]
    with stalwart_serve(config, *options) as (one, _), stalwart_serve(config, *options) as (two, _):
        yield one, two


def resume(base, thread, pause, who):
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    return httpx.post(f"{base}/threads/{thread}/resume", json=body, headers=token(who), timeout=30)


def test_two_final_approvals_racing_on_two_workers_run_the_call_once(workers, ledger):
    one, two = workers
    for round in range(ROUNDS):
        thread = f"race-{round}"
        asked = httpx.post(
            f"{one}/threads/{thread}/messages",
            json={"text": "charge 40 to order 4411"},
            headers=token(ALICE),
            timeout=30,
        )
        [pause] = asked.json()["waiting"]
        first = resume(two, pause["thread"], pause, FIONA)  # an approver reaches Alice's thread by its stored id
        assert first.status_code == 200 and first.json()["waiting"][0]["approvals"]["given"][0]["by"] == "fiona"

        stored = pause["thread"]
        frank, gina = at_once(partial(resume, one, stored, pause, FRANK), partial(resume, two, stored, pause, GINA))
        outcomes = sorted((r.status_code, r.json().get("error")) for r in (frank, gina))
        assert outcomes == [(200, None), (409, "interrupt_stale")], (frank.text, gina.text)
        assert len(ledger("charge")) == round + 1
