"""Redelivery: a pause whose announcement failed is tried again in the background until it is delivered or given up.

Real receivers (uvicorn on 127.0.0.1) and a real SQLite store; time is passed in, so no test waits for a backoff.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import standardwebhooks
import stripe

from stalwart_agents import Desk
from stalwart_agents.approvals.announce import FIRST_RETRY
from stalwart_agents.approvals.redeliver import Backoff, Redelivered, Redeliverer, redeliver
from stalwart_agents.approvals.webhook import Webhook
from stalwart_agents.storage import open_storage

from .conftest import delivery_of, present
from .server import at_once, receiving, stalwart_serve
from .test_crash import wait_for
from .test_sagas import BANK

SECRET = "whsec_redelivery-secret"
NO_JITTER = Backoff(random=lambda: 0.0)  # 30 s, 60 s, 120 s, ... up to an hour


class Ticking:
    """The senders' clock: now, but always at least a second later than its last read, so every attempt is signed
    at another time."""

    def __init__(self) -> None:
        self.now = 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now = max(int(time.time()), self.now + 1)
            return self.now


SIGNING = Ticking()  # one for every sender, as two workers' clocks both move on


@pytest.fixture
def bank(tmp_path, monkeypatch):
    monkeypatch.setenv("STALWART_BANK_LEDGER", str(tmp_path / "ledger.jsonl"))
    return f"sqlite:///{tmp_path / 'runs.db'}"


@pytest.fixture
def down():
    """A receiver that answers 503 until its ``status`` is set back to 200."""
    with receiving(SECRET) as receiver:
        receiver.status = 503
        yield receiver


def webhook(receiver) -> Webhook:
    return Webhook(receiver.url, SECRET, attempts=1, clock=SIGNING)


def a_pause_not_notified(url: str, receiver) -> tuple[str, float]:
    """A big payment asks to be confirmed; its announcement fails once inside the request.  The pause id, and when
    the background's first retry is due: ``FIRST_RETRY`` seconds after that failure, not at its next look."""
    with Desk.from_file(BANK, storage=url, on_interrupt=webhook(receiver)) as desk:
        reply = desk.send("t", "pay 500 to ana")
        failed = time.time()
        [missed] = reply.not_notified
        assert redeliver(desk.storage, webhook(receiver), failed + 5, NO_JITTER) == Redelivered()
        assert delivery_of(desk.storage, missed["interrupt"])["next_at"] <= failed + FIRST_RETRY
        return missed["interrupt"], failed + FIRST_RETRY


def test_a_receiver_down_at_first_gets_the_pause_later_signed_afresh_once_per_attempt(bank, down):
    pause_id, t0 = a_pause_not_notified(bank, down)
    store = open_storage(bank)
    sender = webhook(down)
    assert redeliver(store, sender, t0 + 1, NO_JITTER).failed == [pause_id]
    assert delivery_of(store, pause_id)["next_at"] == t0 + 1 + 60  # the second failure waits 60 s
    assert redeliver(store, sender, t0 + 60, NO_JITTER).failed == []  # not due yet: nothing is sent
    assert len(down.tried) == 2
    down.status = 200
    assert redeliver(store, sender, t0 + 61, NO_JITTER).delivered == [pause_id]
    assert redeliver(store, sender, t0 + 10_000, NO_JITTER).delivered == []  # delivered once, never again
    store.close()

    assert [request["status"] for request in down.tried] == [503, 503, 200]
    assert len({request["headers"]["stalwart-delivery"] for request in down.tried}) == 1  # one delivery id
    signatures = [request["headers"]["stalwart-signature"] for request in down.tried]
    assert len(set(signatures)) == 3  # each attempt signed afresh
    [got] = down.got
    assert got["interrupt"]["id"] == pause_id and got["interrupt"]["token"]
    [last] = down.tried[-1:]
    stripe.WebhookSignature.verify_header(
        (raw := _canonical(got)).decode(), last["headers"]["stalwart-signature"], SECRET
    )
    standard = standardwebhooks.Webhook(_standard_secret(SECRET))
    assert standard.verify(raw, last["headers"]) == got


def test_a_restart_between_attempts_loses_nothing(bank, down):
    pause_id, t0 = a_pause_not_notified(bank, down)
    first = open_storage(bank)
    assert redeliver(first, webhook(down), t0 + 1, NO_JITTER).failed == [pause_id]
    first.close()  # the worker stops; a new one opens the same store

    down.status = 200
    with Desk.from_file(BANK, storage=bank, on_interrupt=webhook(down)) as desk:
        assert redeliver(desk.storage, webhook(down), t0 + 30, NO_JITTER).delivered == []  # the schedule was kept
        assert redeliver(desk.storage, webhook(down), t0 + 61, NO_JITTER).delivered == [pause_id]
        assert present(desk.storage.get_pause(pause_id)).delivery == {"delivered": True, "attempts": 3, "at": t0 + 61}
    assert len(down.tried) == 3 and [got["interrupt"]["id"] for got in down.got] == [pause_id]


def test_two_workers_on_one_store_never_both_send_an_attempt(bank, down):
    pause_id, t0 = a_pause_not_notified(bank, down)
    desks = [Desk.from_file(BANK, storage=bank) for _ in range(4)]
    pairs = [(desk, webhook(down)) for desk in desks]
    try:
        for number, now in enumerate([t0 + 1, t0 + 61, t0 + 181, t0 + 421], start=2):
            if number == 5:
                down.status = 200
            results = at_once(
                *(lambda d=desk, s=sender, n=now: redeliver(d.storage, s, n, NO_JITTER) for desk, sender in pairs)
            )
            assert sum(len(r.failed) + len(r.delivered) for r in results) == 1
            assert len(down.tried) == number  # exactly one request per attempt
            assert delivery_of(desks[0].storage, pause_id)["attempts"] == number
    finally:
        for desk in desks:
            desk.close()
    assert [got["interrupt"]["id"] for got in down.got] == [pause_id]


def test_past_its_age_a_delivery_is_given_up_and_says_so(bank, down):
    pause_id, t0 = a_pause_not_notified(bank, down)
    store = open_storage(bank)
    backoff = Backoff(give_up_after=3600.0, random=lambda: 0.0)
    assert redeliver(store, webhook(down), t0 + 3601, backoff).given_up == [pause_id]
    assert delivery_of(store, pause_id)["given_up"] is True
    assert store.due_deliveries(t0 + 10 * 86400) == []
    assert len(down.tried) == 1  # only the request's own attempt
    store.close()
    with Desk.from_file(BANK, storage=bank) as desk:
        [pause] = desk.waiting("t")
    said = present(pause.delivery)["error"]
    assert said.startswith("gave up after 1 attempt over 1 h; the last: ") and "503" in said


def test_a_pause_never_noted_is_announced_a_minute_after_it_opened(bank):
    with receiving(SECRET) as receiver:
        with Desk.from_file(BANK, storage=bank) as desk:  # no webhook while the turn ran: its worker died, say
            opened = time.time()
            [pause] = desk.send("t", "pay 500 to ana").waiting
            assert redeliver(desk.storage, webhook(receiver), opened - 1, NO_JITTER).delivered == []
            assert redeliver(desk.storage, webhook(receiver), opened + 61, NO_JITTER).delivered == [pause.id]
        assert [got["interrupt"]["id"] for got in receiver.got] == [pause.id]


def test_a_redeliverer_retries_in_the_background_until_stopped(bank, down):
    pause_id, t0 = a_pause_not_notified(bank, down)
    down.status = 200
    store = open_storage(bank)
    worker = Redeliverer(store, webhook(down), backoff=NO_JITTER, every=0.05, clock=lambda: t0 + 1).start()
    try:
        wait_for(lambda: len(down.got) == 1)
    finally:
        worker.stop()
    assert delivery_of(store, pause_id)["delivered"] is True
    store.close()


def test_two_stalwart_serve_processes_redeliver_a_failed_pause_once(bank, down, monkeypatch):
    pause_id, _ = a_pause_not_notified(bank, down)  # failed in its request: due again FIRST_RETRY seconds later
    down.status = 200
    monkeypatch.setenv("STALWART_WEBHOOK_URL", down.url)
    monkeypatch.setenv("STALWART_WEBHOOK_SECRET", SECRET)
    store = open_storage(bank)
    run, failed = present(store.get_pause(pause_id)).run, delivery_of(store, pause_id)

    def due_at(moment: float) -> None:
        store.note_delivery(run, pause_id, {**failed, "next_at": moment})

    # Rather than wait out FIRST_RETRY (and the looks between), the retry is due only once both workers are up,
    # then at once, as if that time had passed: whichever looks first takes it, and the other never sends it.
    due_at(time.time() + 3600)
    with stalwart_serve(BANK, "--storage", bank) as (base, _one), stalwart_serve(BANK, "--storage", bank) as (_, _two):
        assert down.tried[1:] == [], "not due yet: neither worker tried it while both started"
        due_at(time.time())
        wait_for(lambda: len(down.got) == 1)
        wait_for(lambda: httpx.get(f"{base}/threads/t/interrupts").json()["not_notified"] == [])
        assert len(down.tried) == 2  # the request's attempt, then one of the two workers'
    store.close()
    assert [got["interrupt"]["id"] for got in down.got] == [pause_id]


def test_backoff_doubles_to_its_cap_with_jitter_on_top():
    backoff = Backoff(first=30, cap=3600, jitter=0.25, random=lambda: 1.0)
    assert [backoff.delay(n) for n in (1, 2, 3, 8, 50)] == [37.5, 75.0, 150.0, 4500.0, 4500.0]
    assert Backoff(random=lambda: 0.0).delay(20) == 3600.0
    with pytest.raises(ValueError):
        Backoff(first=0)


def _canonical(body: dict) -> bytes:
    from stalwart_agents.engine.pause import canonical

    return canonical(body).encode()


def _standard_secret(secret: str) -> str:
    import base64

    return "whsec_" + base64.b64encode(secret.encode()).decode()
