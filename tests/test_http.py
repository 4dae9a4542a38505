"""The service's routes over a real socket (uvicorn on 127.0.0.1), as a browser or a channel uses them."""

import json
import threading
import time

import httpx
import pytest

from stalwart_agents import Desk, Webhook
from stalwart_agents.approvals.webhook import sign
from stalwart_agents.serve import make_app

from .server import free_port, receiving, serving
from .test_sagas import BANK

pytestmark = pytest.mark.sqlite  # the desk under uvicorn keeps its runs in a file, as `stalwart serve` does

CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
OPERATOR = "operator-token-for-tests"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def base(desk):
    with serving(make_app(desk, operator_token=OPERATOR)) as url:
        yield url


SHOP_CONFIG = {
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
"""What /config.json says of the shop: the interface's empty page shows its description and examples."""


def paused(client, thread="u-17"):
    answer = client.post(f"/threads/{thread}/messages", json=CHARGE)
    assert answer.status_code == 200, answer.text
    return answer.json()["waiting"][0]


def resume(client, pause, decision="approve", thread="u-17", **changes):
    body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"], **changes}
    return client.post(f"/threads/{thread}/resume", json=body)


def test_the_interface_page_is_served_under_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and "<stalwart-chat" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]


def test_a_turn_answers_the_reply_and_what_waits_as_data(client, ledger):
    answer = client.post("/threads/u-17/messages", json=CHARGE)
    body = answer.json()
    assert set(body) == {"thread", "reply", "steps", "waiting", "refusals", "rollback", "not_notified"}
    assert body["steps"][0]["result"]["total"] == "40.00"
    [pause] = body["waiting"]
    assert (pause["kind"], pause["tool"], pause["step"]) == ("confirm", "charge_card", 2)
    assert client.get("/threads/u-17/interrupts").json() == {"thread": "u-17", "waiting": [pause], "not_notified": []}
    assert ledger("charge") == []


def test_a_session_is_handed_out_once_and_kept(client):
    first = client.get("/healthz")
    session = first.headers["stalwart-session"]
    again = client.get("/config.json", headers={"Stalwart-Session": session})
    assert "stalwart-session" not in again.headers
    forged = client.get("/healthz", headers={"Stalwart-Session": "chosen-by-the-client"})
    assert forged.headers["stalwart-session"] not in ("chosen-by-the-client", session)


def test_resume_runs_the_call_once_and_a_second_answer_is_stale(client, ledger):
    pause = paused(client)
    done = resume(client, pause)
    assert done.status_code == 200 and done.json()["steps"][-1]["result"]["charge_id"] == "ch-4411"
    again = resume(client, pause)
    assert (again.status_code, again.json()["error"]) == (409, "interrupt_stale")
    assert len(ledger("charge")) == 1


def test_a_wrong_token_is_stale_and_changes_nothing(client, ledger):
    pause = paused(client)
    wrong = resume(client, pause, token="guessed")
    assert (wrong.status_code, wrong.json()["error"]) == (409, "interrupt_stale")
    assert client.get("/threads/u-17/interrupts").json()["waiting"] == [pause] and ledger("charge") == []


def test_a_late_answer_after_the_run_moved_on_is_stale(client):
    pause = paused(client)
    resume(client, pause, "skip")
    late = resume(client, pause, "approve")
    assert (late.status_code, late.json()["error"]) == (409, "interrupt_stale")


def test_a_new_turn_while_a_run_waits_lists_what_waits(client):
    pause = paused(client)
    refused = client.post("/threads/u-17/messages", json={"text": "look up order 4412"})
    assert refused.status_code == 409 and refused.json()["error"] == "run_waiting"
    assert refused.json()["waiting"] == [pause]


def test_an_ask_is_answered_with_a_value(client, ledger):
    ask = client.post("/threads/u-17/messages", json={"text": "charge order 4411"}).json()["waiting"][0]
    confirm = resume(client, ask, "answer", value="40").json()["waiting"][0]
    assert {"name": "amount", "value": 40, "origin": "reply", "label": "Amount"} in confirm["arguments"]
    assert resume(client, confirm).status_code == 200 and ledger("charge")[0]["amount"] == 40


@pytest.mark.parametrize(
    ("route", "body", "status", "code"),
    [
        ("messages", b"{not json", 400, "bad_request"),
        ("messages", b'{"text": 5}', 400, "bad_request"),
        ("messages", b'{"text": ""}', 400, "bad_request"),
        ("messages", b'{"text": "hi", "extra": 1}', 400, "bad_request"),
        ("messages", b"[" * 100_00 + b"]" * 100_00, 400, "bad_request"),
        ("messages", b'{"text": "' + b"a" * 70_000 + b'"}', 413, "payload_too_large"),
        ("resume", b'{"interrupt_id": "p_x", "decision": "approve"}', 400, "bad_request"),
        ("resume", b'{"interrupt_id": "p_x", "decision": "approve", "token": "t"}', 404, "not_found"),
        ("feedback", b'{"message": "m_1", "thumb": "sideways"}', 400, "bad_request"),
    ],
)
def test_bad_input_is_a_clear_json_error(client, route, body, status, code):
    client.post("/threads/u-9/messages", json={"text": "look up order 4412"})
    answer = client.post(f"/threads/u-9/{route}", content=body, headers=JSON)
    assert (answer.status_code, answer.json()["error"]) == (status, code)
    assert answer.json()["message"]


def test_a_decision_the_pause_does_not_take_changes_nothing(client, ledger):
    pause = paused(client)
    answer = resume(client, pause, "happened")
    assert answer.status_code == 400 and "approve, skip, cancel_all" in answer.json()["message"]
    assert client.get("/threads/u-17/interrupts").json()["waiting"] == [pause]


def test_a_body_streamed_past_the_limit_is_refused_without_a_length(client):
    chunks = (b"x" * 16_384 for _ in range(8))
    answer = client.post("/threads/u-1/messages", content=chunks, headers=JSON)
    assert (answer.status_code, answer.json()["error"]) == (413, "payload_too_large")


def test_unknown_routes_and_methods_answer_json(client):
    assert client.get("/nowhere").json()["error"] == "not_found"
    assert client.get("/threads/u-1/messages").json()["error"] == "method_not_allowed"


def test_health_config_and_openapi(client):
    assert client.get("/healthz").json() == {"ok": True}
    assert client.get("/config.json").json() == SHOP_CONFIG
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths) == {
        "/",
        "/inbox",
        "/interrupts",
        "/interrupts/answers",
        "/threads/{thread}/messages",
        "/threads/{thread}/interrupts",
        "/threads/{thread}/resume",
        "/threads/{thread}/stream",
        "/threads/{thread}/results/{run}/{key}",
        "/threads/{thread}/rollback",
        "/threads/{thread}/decisions",
        "/audit",
        "/threads/{thread}/feedback",
        "/healthz",
        "/config.json",
    }


def sse(text):
    """The events of an SSE body as (id, event, data) triples."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and not line.startswith(":"))
        if "data" in fields:
            events.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
    return events


def read_stream(base, thread, seconds=1.5, **options):
    """What the live stream sends within ``seconds`` (it stays open, so read until then)."""
    received = b""
    try:
        with httpx.stream("GET", f"{base}/threads/{thread}/stream", timeout=seconds, **options) as answer:
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
            for chunk in answer.iter_bytes():
                received += chunk
    except httpx.ReadTimeout:
        pass
    return received.decode()


def test_the_stream_replays_after_last_event_id_by_header_or_query(base, client):
    resume(client, paused(client))
    everything = sse(read_stream(base, "u-17"))
    assert [kind for _, kind, _ in everything] == ["turn", "step", "pause", "answer", "step", "run"]
    assert "retry: 3000" in read_stream(base, "u-17", seconds=0.5)
    third = everything[2][0]
    assert sse(read_stream(base, "u-17", headers={"Last-Event-ID": str(third)})) == everything[3:]
    assert sse(read_stream(base, "u-17", params={"last_event_id": str(third)})) == everything[3:]


def test_the_stream_with_nothing_new_is_200_and_empty_and_of_a_thread_nobody_began_404(base, client):
    everything = sse(read_stream(base, paused(client)["thread"], seconds=0.5))
    assert sse(read_stream(base, "u-17", seconds=0.5, params={"last_event_id": str(everything[-1][0])})) == []
    nobody = httpx.get(f"{base}/threads/nobody-yet/stream", timeout=5)
    assert (nobody.status_code, nobody.json()["error"]) == (404, "not_found")


def test_the_live_stream_sends_what_happens_while_it_is_open(base, client):
    client.post("/threads/u-17/messages", json={"text": "look up order 4412"})
    last = sse(read_stream(base, "u-17", seconds=0.5))[-1][0]
    received = []
    reader = threading.Thread(
        target=lambda: received.append(read_stream(base, "u-17", seconds=3, params={"last_event_id": str(last)}))
    )
    reader.start()
    time.sleep(0.5)
    paused(client)
    reader.join()
    assert [kind for _, kind, _ in sse(received[0])] == ["turn", "step", "pause"]


def test_the_once_stream_sends_what_is_there_and_closes(desk, client):
    paused(client)
    with serving(make_app(desk, stream_mode="once")) as once:
        answer = httpx.get(f"{once}/threads/u-17/stream", timeout=5)
    assert answer.text.startswith("retry: 3000")
    assert [kind for _, kind, _ in sse(answer.text)] == ["turn", "step", "pause"]


def test_feedback_is_taken_from_the_session_that_was_shown_the_reply(desk, client):
    shown = client.post("/threads/u-17/messages", json={"text": "look up order 4412"})
    session, message = shown.headers["stalwart-session"], shown.json()["reply"]["id"]
    body = {"message": message, "thumb": "up"}

    other = client.post("/threads/u-17/feedback", json=body)
    assert (other.status_code, other.json()["error"]) == (403, "forbidden")
    kept = client.post("/threads/u-17/feedback", json=body, headers={"Stalwart-Session": session})
    assert kept.status_code == 200 and kept.json() == body
    stored = desk.storage.feedback(message)
    assert (stored.thumb, stored.text) == ("up", shown.json()["reply"]["text"])


def test_a_thumb_is_taken_only_under_the_thread_that_showed_the_reply(desk, client):
    shown = client.post("/threads/u-17/messages", json={"text": "look up order 4412"})
    session, message = shown.headers["stalwart-session"], shown.json()["reply"]["id"]
    client.post("/threads/u-18/messages", json={"text": "look up order 4411"}, headers={"Stalwart-Session": session})
    elsewhere = client.post(
        "/threads/u-18/feedback", json={"message": message, "thumb": "down"}, headers={"Stalwart-Session": session}
    )
    assert (elsewhere.status_code, elsewhere.json()["error"]) == (403, "forbidden")
    assert desk.storage.feedback(message) is None


def test_the_webhook_of_a_pause_an_answer_opened_says_who_answered(desk):
    with (
        receiving("whsec-after") as receiver,
        serving(make_app(desk, on_interrupt=Webhook(receiver.url, "whsec-after"))) as base,
    ):
        ask = httpx.post(f"{base}/threads/u-17/messages", json={"text": "charge order 4411"}).json()["waiting"][0]
        body = {"interrupt_id": ask["id"], "decision": "answer", "value": "40", "token": ask["token"]}
        confirm = httpx.post(f"{base}/threads/u-17/resume", json=body).json()["waiting"][0]
    first, second = receiver.got
    assert first["interrupt"]["id"] == ask["id"] and "after_answer" not in first["interrupt"]
    assert second["interrupt"]["id"] == confirm["id"]
    assert second["interrupt"]["after_answer"] == {
        "decision": "answer",
        "channel": "http",
        "by": "anonymous",
        "principal": {"iss": "stalwart:none", "sub": "anonymous", "verified": False},
    }


def test_rollback_needs_the_operator_token(desk, client, ledger):
    resume(client, paused(client))
    with serving(make_app(desk)) as without:
        off = httpx.post(f"{without}/threads/u-17/rollback")
    assert off.status_code == 403 and "--operator-token" in off.json()["message"]
    wrong = client.post("/threads/u-17/rollback", headers={"Authorization": "Bearer nope"})
    assert (wrong.status_code, wrong.json()["error"]) == (403, "forbidden")
    right = client.post("/threads/u-17/rollback", headers={"Authorization": f"Bearer {OPERATOR}"})
    assert right.status_code == 200
    assert right.json()["rollback"]["undone"][0]["tool"] == "charge_card"
    assert ledger("refund")[0]["charge_id"] == "ch-4411"


@pytest.fixture
def receiver():
    with receiving("whsec-test") as received:
        yield received


def test_each_new_pause_is_posted_signed_to_the_webhook(desk, receiver):
    with serving(make_app(desk, on_interrupt=Webhook(receiver.url, "whsec-test"))) as base:
        answer = httpx.post(f"{base}/threads/u-17/messages", json=CHARGE).json()
    [body] = receiver.got
    shown = dict(answer["waiting"][0])
    chat_card = shown.pop("card")
    assert body["interrupt"] == shown and body["thread"] == "u-17" and receiver.delivery_ids == [body["delivery"]]
    assert answer["not_notified"] == []
    # The delivery's card is the chat's card as someone other than the person who asked reads it.
    assert [a["decision"] for a in body["card"]["answers"]] == ["approve", "skip", "cancel_all"]
    assert chat_card["arguments"][0]["origin"] == {"key": "origin_typed", "values": {}}
    assert body["card"]["arguments"][0]["origin"] == {"key": "origin_typed_them", "values": {}}
    assert body["card"]["title"] == chat_card["title"] == "Charge 40.00 EUR to order 4411"


def test_a_dead_webhook_never_fails_the_turn(desk):
    dead = Webhook(f"http://127.0.0.1:{free_port()}/hook?key=hidden", "whsec-test", timeout=1)
    with serving(make_app(desk, on_interrupt=dead)) as base:
        answer = httpx.post(f"{base}/threads/u-17/messages", json=CHARGE)
        listed = httpx.get(f"{base}/threads/u-17/interrupts").json()
    assert answer.status_code == 200 and answer.json()["waiting"]
    [missed] = answer.json()["not_notified"]
    assert missed["interrupt"] == answer.json()["waiting"][0]["id"]
    assert "hidden" not in json.dumps(missed) and "/hook" not in json.dumps(missed)
    assert listed["not_notified"] == [missed]


def test_with_a_secret_only_a_signed_resume_is_taken(desk, ledger):
    with serving(make_app(desk, secret="resume-secret")) as base:
        pause = httpx.post(f"{base}/threads/u-17/messages", json=CHARGE).json()["waiting"][0]
        body = json.dumps({"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}).encode()
        unsigned = httpx.post(f"{base}/threads/u-17/resume", content=body, headers=JSON)
        forged = httpx.post(
            f"{base}/threads/u-17/resume", content=body, headers={**JSON, "Stalwart-Signature": sign("other", body)}
        )
        signed = httpx.post(
            f"{base}/threads/u-17/resume",
            content=body,
            headers={**JSON, "Stalwart-Signature": sign("resume-secret", body)},
        )
    assert [(a.status_code, a.json().get("error")) for a in (unsigned, forged)] == [(401, "bad_signature")] * 2
    assert signed.status_code == 200 and len(ledger("charge")) == 1


def test_a_bank_agent_rollback_over_http_reports_what_could_not_be_undone(tmp_path):
    desk = Desk.from_file(BANK, storage=f"sqlite:///{tmp_path / 'bank.db'}")
    with serving(make_app(desk, operator_token=OPERATOR)) as base:
        httpx.post(f"{base}/threads/t/messages", json={"text": "pay 5 to ana and mail ana"})
        report = httpx.post(f"{base}/threads/t/rollback", headers={"Authorization": f"Bearer {OPERATOR}"}).json()[
            "rollback"
        ]
    assert [line["tool"] for line in report["undone"]] == ["pay"]
    assert [(line["tool"], line["why"]) for line in report["not_undone"]] == [("mail", "irreversible")]


def test_a_service_of_one_route_answers_that_route_alone(desk):
    with serving(make_app(desk, routes=("healthz",))) as base:
        assert httpx.get(f"{base}/healthz").status_code == 200
        assert httpx.post(f"{base}/threads/u-1/messages", json={"text": "hi"}).json()["error"] == "not_found"
    with pytest.raises(ValueError, match="no such route: chat"):
        make_app(desk, routes=("chat",))


def test_a_method_a_route_does_not_take_is_405_with_allow(client):
    answer = client.request("TRACE", "/threads/u-1/stream")
    assert answer.status_code == 405 and "GET" in answer.headers["allow"]


@pytest.mark.parametrize("thread", ["ü 🚀 עברית", "a\u202eb", "x" * 200, "%00", "..", "a/b"])
def test_odd_thread_ids_and_turns_get_an_answer_never_a_failure(client, thread):
    from urllib.parse import quote

    path = f"/threads/{quote(thread, safe='')}"
    turn = client.post(f"{path}/messages", json={"text": "look up order 4411 \u202e and charge 40 to order 4411 🚀"})
    assert turn.status_code in (200, 400, 404), turn.text
    listed = client.get(f"{path}/interrupts")
    assert listed.status_code in (200, 404) and listed.headers["content-type"].startswith("application/json")


def test_a_turn_with_a_nul_and_every_plane_of_unicode_is_kept_as_given(client):
    text = "look up order 4411\x00 — 日本語 𝄞 \ud7ff"
    answer = client.post("/threads/odd/messages", json={"text": text})
    assert answer.status_code == 200 and answer.json()["waiting"][0]["turn"] == text
