"""`stalwart serve` over a real socket: the README's first command, exercised."""

import signal
import subprocess
import sys
import time
from functools import partial

import httpx
import pytest

from stalwart_agents.approvals.principal import ANONYMOUS, Principal
from stalwart_agents.serve import make_app
from stalwart_agents.storage.sqlite import SqliteStorage

from .conftest import SHOP
from .server import at_once, receiving, serving, stalwart_serve


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
            pause = httpx.post(f"{one}/threads/{thread}/messages", json={"text": "charge 40 to order 4411"}).json()[
                "waiting"
            ][0]
            assert httpx.get(f"{two}/threads/{thread}/interrupts").json()["waiting"] == [pause]
            body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
            answers = at_once(
                *(partial(httpx.post, f"{base}/threads/{thread}/resume", json=body, timeout=30) for base in (one, two))
            )
            assert sorted(a.status_code for a in answers) == [200, 409]
            assert [a.json()["error"] for a in answers if a.status_code == 409] == ["interrupt_stale"]
    assert len(ledger("charge")) == 6


def test_serve_with_moto_fans_new_pauses_out_from_the_stream_as_deployed(monkeypatch):
    with receiving("whsec-local-parity") as receiver:
        monkeypatch.setenv("STALWART_WEBHOOK_URL", receiver.url)
        monkeypatch.setenv("STALWART_WEBHOOK_SECRET", "whsec-local-parity")
        with stalwart_serve(SHOP, "--storage", "moto") as (base, _):
            pause = httpx.post(f"{base}/threads/u-17/messages", json={"text": "charge 40 to order 4411"}).json()[
                "waiting"
            ][0]
            deadline = time.monotonic() + 20
            while not receiver.got and time.monotonic() < deadline:
                time.sleep(0.1)
            listed = httpx.get(f"{base}/threads/u-17/interrupts").json()
    assert [delivery["interrupt"]["id"] for delivery in receiver.got] == [pause["id"]]
    assert listed["waiting"] == [pause] and listed["not_notified"] == []


def test_without_moto_installed_storage_moto_is_one_line_naming_the_extra():
    """As after `pip install -e .` alone: moto's server cannot be imported."""
    script = (
        "import sys; sys.modules['moto.server'] = None; "
        "from stalwart_agents.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "serve", str(SHOP), "--storage", "moto"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = done.stderr
    assert done.returncode == 2 and said.startswith(
        "stalwart: --storage moto needs the moto extra: pip install -e '.[moto]' in the stalwart-agents checkout"
    )
    assert said.count("\n") == 1


def test_the_empty_page_learns_the_agent_its_description_and_turns_it_reads(server, ledger):
    base, _ = server
    shown = httpx.get(f"{base}/config.json").json()
    assert shown == {
        "agent": "shop",
        "base": "",
        "description": "Looks up orders and charges them, with a person's approval.",
        "examples": [
            "look up order 4411",
            "charge 40 to order 4411",
            "send the receipt for order 4411",
            "read the messages for order 4411",
        ],
        "sign_in": False,
    }
    for n, example in enumerate(shown["examples"]):
        reply = httpx.post(f"{base}/threads/example-{n}/messages", json={"text": example}).json()
        assert [pause["kind"] for pause in reply["waiting"]] in ([], ["confirm"]), example  # read, never delegated


def test_the_page_names_its_icon_and_the_icon_is_served(server):
    base, _ = server
    assert '<link rel="icon" href="/favicon.ico"' in httpx.get(f"{base}/").text
    icon = httpx.get(f"{base}/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml" and icon.text.startswith("<svg")


def test_the_openapi_states_400_bad_request_and_no_422(server):
    base, _ = server
    document = httpx.get(f"{base}/openapi.json").json()
    answers = [operation["responses"] for path in document["paths"].values() for operation in path.values()]
    assert not any("422" in responses for responses in answers)
    bad = document["paths"]["/threads/{thread}/messages"]["post"]["responses"]["400"]["content"]["application/json"]
    assert bad["example"]["error"] == "bad_request" and bad["schema"] == {"$ref": "#/components/schemas/ErrorOut"}
    assert httpx.post(f"{base}/threads/u-1/messages", json={"txt": "hi"}).json()["error"] == "bad_request"


def test_the_shops_stand_in_model_answers_a_delegated_turn_offline(server, ledger):
    base, _ = server
    [delegate] = httpx.post(f"{base}/threads/u-9/messages", json={"text": "what is the total of 4412?"}).json()[
        "waiting"
    ]
    assert delegate["kind"] == "delegate"
    answer = {"interrupt_id": delegate["id"], "decision": "approve", "token": delegate["token"]}
    done = httpx.post(f"{base}/threads/u-9/resume", json=answer).json()
    assert [(step["tool"], step["result"]["total"]) for step in done["steps"]] == [("look_up_order", "125.50")]
    assert "I read that as look_up_order for order 4412." in done["reply"]["text"]

    [delegate] = httpx.post(f"{base}/threads/u-9/messages", json={"text": "bill 4411 for $40"}).json()["waiting"]
    answer = {"interrupt_id": delegate["id"], "decision": "approve", "token": delegate["token"]}
    [charge] = httpx.post(f"{base}/threads/u-9/resume", json=answer).json()["waiting"]
    assert (charge["tool"], charge["reasons"][0]) == ("charge_card", "write") and ledger("charge") == []
    assert {(a["name"], a["value"], a["origin"]) for a in charge["arguments"]} == {
        ("amount", 40, "model"),
        ("order_id", "4411", "model"),
    }


def test_a_turn_is_one_write_transaction_in_a_new_thread_and_in_one_it_owns(tmp_path, ledger, monkeypatch):
    """The thread's owner is written in the turn's own commit, not in a transaction (an fsync) of its own."""
    sent: list[str] = []
    connect = SqliteStorage._connect

    def traced(store):
        connection = connect(store)
        connection.set_trace_callback(sent.append)
        return connection

    monkeypatch.setattr(SqliteStorage, "_connect", traced)
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}")
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        # a new store's first move also writes the key its ids are made with, once in its life
        assert client.post("/threads/first/messages", json={"text": "look up order 4411"}).status_code == 200
        for _ in range(3):
            sent.clear()
            turn = client.post("/threads/t/messages", json={"text": "look up order 4411"})
            assert turn.status_code == 200 and turn.json()["steps"][-1]["status"] == "done", turn.text
            assert sent.count("BEGIN IMMEDIATE") == 1
    assert app.state.desk.storage.owner("t") == ANONYMOUS.key


class ByHeader:
    """Whoever the X-Person header names: two people on one service."""

    name = "header"

    def principal(self, request):
        return Principal(issuer="test", subject=request.headers["x-person"], verified=True)


def test_two_people_beginning_one_id_at_once_each_begin_their_own_thread(tmp_path, ledger):
    """Each person's id is their own: neither meets the other's thread, neither's turn is refused."""
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", auth=ByHeader())
    turn = {"text": "look up order 4411 and charge 40 to order 4411"}
    with serving(app) as base:
        for n in range(5):
            url = f"{base}/threads/race-{n}/messages"
            answers = dict(
                zip(
                    ("ana", "bo"),
                    at_once(*(partial(httpx.post, url, json=turn, headers={"x-person": who}) for who in ("ana", "bo"))),
                    strict=True,
                )
            )
            assert [answer.status_code for answer in answers.values()] == [200, 200]
            threads = {who: answer.json()["waiting"][0]["thread"] for who, answer in answers.items()}
            assert threads["ana"] != threads["bo"] and all(t.endswith(f":race-{n}") for t in threads.values())
            read = f"{base}/threads/race-{n}/interrupts"
            for who, answer in answers.items():
                assert httpx.get(read, headers={"x-person": who}).json()["waiting"] == answer.json()["waiting"]
                assert [body["type"] for _, body in app.state.desk.events(threads[who])] == ["turn", "step", "pause"]
            assert app.state.desk.events(f"race-{n}") == []
