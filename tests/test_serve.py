"""`stalwart serve` over a real socket: the README's first command, exercised."""

import signal
import time
from functools import partial

import httpx
import pytest

from .conftest import SHOP
from .server import at_once, receiving, stalwart_serve


@pytest.fixture
def server(tmp_path, ledger):
    with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}") as served:
        yield served


def test_serve_announces_itself_and_stops_cleanly_on_sigterm(server):
    base, process = server
    assert httpx.get(f"{base}/healthz").json() == {"ok": True}
    process.terminate()
    assert process.wait(timeout=10) in (0, -signal.SIGTERM)
    assert process.stdout.readline().startswith(f"stalwart serve: {base}/ (agent shop, storage sqlite:///")


def test_a_turn_pauses_and_a_resume_with_its_token_runs_it_once(server, ledger):
    base, _ = server
    turn = httpx.post(f"{base}/threads/u-17/messages", json={"text": "look up order 4411 and charge 40 to order 4411"})
    assert turn.status_code == 200, turn.text
    [pause] = turn.json()["waiting"]
    assert httpx.get(f"{base}/threads/u-17/interrupts").json()["waiting"] == [pause]

    body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    done = httpx.post(f"{base}/threads/u-17/resume", json=body)
    assert done.status_code == 200 and done.json()["steps"][-1]["result"]["charge_id"] == "ch-4411"
    again = httpx.post(f"{base}/threads/u-17/resume", json=body)
    assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert len(ledger("charge")) == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{not json", 400, "bad_request"),
        (b'{"text": 5}', 400, "bad_request"),
        (b'{"txt": "hi"}', 400, "bad_request"),
        (b'{"text": "' + b"a" * 70_000 + b'"}', 413, "payload_too_large"),
    ],
)
def test_bad_turns_are_clear_json_errors(server, body, status, code):
    base, _ = server
    answer = httpx.post(f"{base}/threads/u-1/messages", content=body, headers={"Content-Type": "application/json"})
    assert (answer.status_code, answer.json()["error"]) == (status, code)
    assert answer.json()["message"]


def test_two_serve_processes_on_one_file_answer_a_racing_resume_once(tmp_path, ledger):
    storage = ("--storage", f"sqlite:///{tmp_path / 'runs.db'}")
    with stalwart_serve(SHOP, *storage) as (one, _), stalwart_serve(SHOP, *storage) as (two, _):
        for n in range(6):
            thread = f"race-{n}"
            pause = httpx.post(f"{one}/threads/{thread}/messages", json={"text": "charge 40 to order 4411"}).json()["waiting"][0]
            assert httpx.get(f"{two}/threads/{thread}/interrupts").json()["waiting"] == [pause]
            body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
            answers = at_once(*(partial(httpx.post, f"{base}/threads/{thread}/resume", json=body, timeout=30) for base in (one, two)))
            assert sorted(a.status_code for a in answers) == [200, 409]
            assert [a.json()["error"] for a in answers if a.status_code == 409] == ["interrupt_stale"]
    assert len(ledger("charge")) == 6


def test_serve_with_moto_fans_new_pauses_out_from_the_stream_as_deployed(monkeypatch):
    with receiving("whsec-local-parity") as receiver:
        monkeypatch.setenv("STALWART_WEBHOOK_URL", receiver.url)
        monkeypatch.setenv("STALWART_WEBHOOK_SECRET", "whsec-local-parity")
        with stalwart_serve(SHOP, "--storage", "moto") as (base, _):
            pause = httpx.post(f"{base}/threads/u-17/messages", json={"text": "charge 40 to order 4411"}).json()["waiting"][0]
            deadline = time.monotonic() + 20
            while not receiver.got and time.monotonic() < deadline:
                time.sleep(0.1)
            listed = httpx.get(f"{base}/threads/u-17/interrupts").json()
    assert [delivery["interrupt"]["id"] for delivery in receiver.got] == [pause["id"]]
    assert listed["waiting"] == [pause] and listed["not_notified"] == []
