"""Several answers in one request (POST /interrupts/answers) over real uvicorn: each claimed on its own, each
succeeding or failing alone, each judged by the rules as if it had come by itself."""

import json

import httpx
import pytest

from .test_approvers import ALICE, FINANCE_FOR_LARGE, FIONA, FRANK, MALLORY, over_http, resume, started, token


@pytest.fixture
def served(tmp_path, ledger):
    with over_http(tmp_path, FINANCE_FOR_LARGE) as served:
        yield served


def batch(client: httpx.Client, who, answers) -> httpx.Response:
    return client.post("/interrupts/answers", json={"answers": answers}, headers=token(who))


def given(pause: dict, decision: str = "approve", **more) -> dict:
    return {"interrupt_id": pause["id"], "token": pause["token"], "decision": decision, **more}


def test_twenty_answers_in_one_request_one_taken_meanwhile_by_someone_else(served, ledger):
    client, desk = served
    pauses = [started(client, f"t{n}", "charge 2000 to order 4411") for n in range(20)]
    inbox = client.get("/interrupts", headers=token(FIONA)).json()["waiting"]
    assert {p["id"] for p in inbox} == {p["id"] for p in pauses}
    assert (
        resume(client, pauses[7]["thread"], pauses[7], FRANK).status_code == 200
    )  # Frank answers one while Fiona reads

    answered = batch(client, FIONA, [given(p) for p in inbox])
    assert answered.status_code == 200, answered.text
    outcomes = {o["interrupt_id"]: o for o in answered.json()["answers"]}
    assert [o["interrupt_id"] for o in answered.json()["answers"]] == [p["id"] for p in inbox]
    stale = outcomes.pop(pauses[7]["id"])
    assert (stale["status"], stale["error"]) == (409, "interrupt_stale")
    assert {(o["status"], o["decision"]) for o in outcomes.values()} == {(200, "approve")}
    assert all(o["steps"][0]["status"] == "done" and o["steps"][0]["tool"] == "charge_card" for o in outcomes.values())
    assert len(ledger("charge")) == 20  # nineteen by Fiona's batch, one by Frank: each call once
    assert [(r["by"], r["outcome"]) for r in desk.history(pauses[7]["thread"])] == [
        ("frank", "taken"),
        ("fiona", "refused"),
    ]
    again = batch(client, FIONA, [given(p) for p in inbox])  # the same request retried: nothing runs twice
    assert {o["status"] for o in again.json()["answers"]} == {409} and len(ledger("charge")) == 20


def test_a_batch_mixing_what_the_person_may_answer_with_what_they_may_not_answers_each_as_alone(served, ledger):
    client, desk = served
    large = [started(client, f"large{n}", "charge 2000 to order 4411") for n in range(2)]
    small = started(client, "small", "charge 40 to order 4411")  # the owner's alone
    wrong = {**given(large[1]), "token": "not-the-token-shown-with-it"}
    answers = [given(large[0]), given(small), wrong, given({"id": "p_nothing.000000000000000000000000", "token": "x"})]
    answers.append(given(large[0], "skip"))  # the same pause twice: answered once

    outcomes = [(o["status"], o.get("error")) for o in batch(client, FIONA, answers).json()["answers"]]
    assert outcomes == [
        (200, None),
        (404, "not_found"),
        (409, "interrupt_stale"),
        (404, "not_found"),
        (400, "bad_request"),
    ]
    assert [c["amount"] for c in ledger("charge")] == [2000]
    assert {p["id"] for p in client.get("/interrupts", headers=token(FIONA)).json()["waiting"]} == {large[1]["id"]}
    assert [p.id for p in desk.waiting(small["thread"])] == [small["id"]]

    unknown = batch(client, MALLORY, [given(large[1])]).json()["answers"][0]
    nowhere = batch(client, MALLORY, [given({"id": "p_nothing.000000000000000000000000", "token": "x"})])
    assert unknown["message"] == nowhere.json()["answers"][0]["message"]  # another's pause looks like none at all

    mine = client.post("/interrupts/answers", json=[given(small, "skip")], headers=token(ALICE))  # a bare list
    assert mine.status_code == 200 and mine.json()["answers"][0]["steps"][0]["status"] == "skipped"


def test_a_batch_carries_edits_and_is_refused_whole_only_when_it_is_too_large(served, ledger):
    client, _ = served
    pause = started(client, "t", "charge 2000 to order 4411")
    answered = batch(client, FIONA, [given(pause, edits={"amount": 1500})]).json()["answers"]
    assert answered[0]["steps"][0]["arguments"][0] == {"name": "amount", "value": 1500, "origin": "edited:fiona"}
    assert [c["amount"] for c in ledger("charge")] == [1500]

    too_many = batch(client, FIONA, [given({"id": f"p{n}", "token": "x"}) for n in range(101)])
    assert (too_many.status_code, too_many.json()["error"]) == (400, "bad_request")
    assert "answers" in too_many.json()["message"]
    assert client.post("/interrupts/answers", json={"answers": []}).status_code == 401


def test_a_hostile_page_cannot_send_a_batch_through_the_persons_browser(served, ledger):
    client, _ = served
    pause = started(client, "t", "charge 2000 to order 4411")
    body = json.dumps({"answers": [given(pause)]})
    forged = client.post("/interrupts/answers", content=body, headers={**token(FIONA), "content-type": "text/plain"})
    assert (forged.status_code, forged.json()["error"]) == (415, "unsupported_media_type")
    assert ledger("charge") == []


def test_where_a_resume_must_be_signed_a_batch_must_be_too(tmp_path, ledger):
    from stalwart_agents.approvals.signature import sign
    from stalwart_agents.serve import make_app

    from .server import serving
    from .test_approvers import opened

    secret = "a-resume-secret-of-at-least-32-bytes"
    with opened(tmp_path, "check: {}") as desk, serving(make_app(desk, secret=secret)) as base:
        [pause] = desk.send("t", "charge 40 to order 4411").waiting
        body = json.dumps({"answers": [{"interrupt_id": pause.id, "token": pause.token, "decision": "approve"}]})
        plain = {"content-type": "application/json"}
        unsigned = httpx.post(f"{base}/interrupts/answers", content=body, headers=plain)
        assert (unsigned.status_code, unsigned.json()["error"]) == (401, "bad_signature")
        assert ledger("charge") == []
        signed = {**plain, "Stalwart-Signature": sign(secret, body.encode())}
        taken = httpx.post(f"{base}/interrupts/answers", content=body, headers=signed)
        assert taken.json()["answers"][0]["status"] == 200 and len(ledger("charge")) == 1
        assert [r["channel"] for r in desk.history("t")] == ["signed"]
