"""`stalwart serve` over a real socket: the README's first command, exercised."""

import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from .conftest import SHOP


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, ledger):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "stalwart_agents", "serve", str(SHOP), "--port", str(port),
         "--storage", f"sqlite:///{tmp_path / 'runs.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz").status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail(process.stdout.read())
    yield base, process
    process.terminate()
    process.wait(timeout=10)


def test_serve_announces_itself_and_stops_cleanly_on_sigterm(server):
    base, process = server
    assert httpx.get(f"{base}/healthz").json() == {"ok": True}
    process.terminate()
    assert process.wait(timeout=10) in (0, -signal.SIGTERM)
    assert process.stdout.readline().startswith(f"stalwart serve: {base}/ (agent shop, storage sqlite:///")


def test_a_turn_pauses_and_a_resume_with_its_token_runs_it_once(server, ledger):
    base, _ = server
    turn = httpx.post(f"{base}/threads/u-17/messages", content=b'{"text": "look up order 4411 and charge 40 to order 4411"}')
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
    answer = httpx.post(f"{base}/threads/u-1/messages", content=body)
    assert (answer.status_code, answer.json()["error"]) == (status, code)
    assert answer.json()["message"]
