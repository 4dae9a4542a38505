"""The service's routes over each door: the same statuses and the same JSON, whoever signs in, whichever door."""

from __future__ import annotations

import httpx
import pytest

from stalwart_agents.http.app import door_app
from stalwart_agents.http.session import HEADER as SESSION_HEADER
from stalwart_agents.http.ticket import HEADER as TICKET_HEADER

from .conftest import ALICE, BOB, OPERATOR, desk_door, graph_door

REPLY_KEYS = {"thread", "reply", "steps", "waiting", "refusals", "rollback", "not_notified"}
PAUSE_KEYS = {"id", "kind", "thread", "tool", "question", "answers", "arguments", "reasons", "token"}


def paused(served, thread="t1"):
    """Alice's turn, which waits for her to approve the charge: the reply and its one pause."""
    turn = served.say(ALICE, thread)
    assert turn.status_code == 200, turn.text
    [pause] = turn.json()["waiting"]
    return turn, pause


def test_a_turn_answers_the_reply_with_a_stream_ticket_and_the_pause_with_its_token(served):
    turn, pause = paused(served)
    assert set(turn.json()) == REPLY_KEYS and turn.json()["thread"] == "t1"
    assert turn.headers[TICKET_HEADER] and turn.headers[SESSION_HEADER]
    assert set(pause) >= PAUSE_KEYS and (pause["kind"], pause["tool"]) == ("confirm", "charge_card")
    assert pause["answers"] == ["approve", "skip", "cancel_all"] and served.charges() == []
    read = served.waiting(ALICE, "t1")
    assert read.status_code == 200 and read.json() == {"thread": "t1", "waiting": [pause], "not_notified": []}


def test_another_person_meets_404_on_every_route_of_the_thread_and_changes_nothing(served):
    """Alice's thread, by the id she used or the id it is stored under: nothing of it is Bob's to read or answer,
    and his turn on her id begins his own thread, as on an id nobody used, so whether an id is taken never shows."""
    _, pause = paused(served)
    for thread in ("t1", pause["thread"]):
        assert served.waiting(BOB, thread).status_code == 404
        assert served.answer(BOB, thread, pause).json()["error"] == "not_found"
        stream = served.client.get(f"/threads/{thread}/stream", headers=served.as_(BOB))
        thumb = {"message": "m_x", "thumb": "up"}
        rated = served.client.post(f"/threads/{thread}/feedback", json=thumb, headers=served.as_(BOB))
        assert (stream.status_code, rated.status_code) == (404, 404)
    on_taken, on_unused = served.say(BOB, "t1"), served.say(BOB, "never-used")
    assert (on_taken.status_code, on_unused.status_code) == (200, 200), on_taken.text
    assert on_taken.json().keys() == on_unused.json().keys() and on_taken.json()["thread"] == "t1"
    [his] = on_taken.json()["waiting"]
    assert his["thread"] != pause["thread"] and served.waiting(BOB, "t1").json()["waiting"] == [his]
    assert served.waiting(ALICE, "t1").json()["waiting"] == [pause] and served.charges() == []


def test_whoever_posts_an_id_first_takes_nothing_from_the_person_who_uses_it_next(served):
    squatted = served.say(BOB, "t1")
    assert squatted.status_code == 200, squatted.text
    _, pause = paused(served, "t1")
    taken = served.answer(ALICE, "t1", pause)
    assert taken.status_code == 200 and taken.json()["waiting"] == [], taken.text
    assert len(served.charges()) == 1 and served.waiting(BOB, "t1").json()["waiting"] == squatted.json()["waiting"]


def test_no_token_is_401_with_a_bearer_challenge(served):
    for answer in (served.say(None, "t1"), served.waiting(None, "t1"), served.client.get("/interrupts")):
        assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
        assert answer.json()["error"] == "unauthorized"


def test_the_owner_answers_once_and_every_other_answer_is_stale(served):
    _, pause = paused(served)
    wrong = served.answer(ALICE, "t1", pause, token="not-the-token")
    assert wrong.status_code == 409 and wrong.json()["error"] == "interrupt_stale"
    taken = served.answer(ALICE, "t1", pause)
    assert taken.status_code == 200, taken.text
    assert set(taken.json()) == REPLY_KEYS and taken.json()["waiting"] == [] and taken.headers[TICKET_HEADER]
    assert [(s["tool"], s["status"]) for s in taken.json()["steps"]][-1] == ("charge_card", "done")
    for decision in ("approve", "skip"):
        again = served.answer(ALICE, "t1", pause, decision)
        assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert len(served.charges()) == 1


def test_a_new_turn_while_a_pause_waits_is_refused_with_what_waits(served):
    _, pause = paused(served)
    refused = served.say(ALICE, "t1")
    assert refused.status_code == 409 and refused.json()["error"] == "run_waiting"
    assert refused.json()["waiting"] == [pause]


def test_the_inbox_lists_each_persons_own_pauses_across_threads(served):
    _, first = paused(served, "t1")
    _, second = paused(served, "t2")
    mine = served.client.get("/interrupts", headers=served.as_(ALICE))
    assert mine.status_code == 200 and [p["id"] for p in mine.json()["waiting"]] == [second["id"], first["id"]]
    assert mine.json()["next"] is None
    theirs = served.client.get("/interrupts", headers=served.as_(BOB))
    assert theirs.json() == {"waiting": [], "next": None, "not_notified": []}


def test_the_stream_opens_with_the_ticket_of_its_own_thread_and_person_only(served):
    turn, pause = paused(served, "t1")
    paused(served, "t2")
    ticket = turn.headers[TICKET_HEADER]
    events = served.client.get("/threads/t1/stream", params={"ticket": ticket})
    assert events.status_code == 200 and "event: pause" in events.text and pause["id"] in events.text
    other = served.client.get("/threads/t2/stream", params={"ticket": ticket})
    assert other.status_code == 401 and other.json()["error"] == "unauthorized"


def test_a_rollback_needs_the_operator_token_and_closes_what_waits(served):
    _, pause = paused(served)
    refused = served.client.post("/threads/t1/rollback", headers=served.as_(ALICE))
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    operator = {**served.as_(ALICE), "Stalwart-Operator-Token": OPERATOR}
    rolled = served.client.post("/threads/t1/rollback", headers=operator)
    assert rolled.status_code == 200 and rolled.json()["rollback"]["reason"] == "operator"
    assert rolled.json()["waiting"] == [] and served.waiting(ALICE, "t1").json()["waiting"] == []
    assert served.answer(ALICE, "t1", pause).json()["error"] == "interrupt_stale"
    assert served.charges() == []


def test_a_thumb_is_taken_only_from_the_session_the_reply_was_shown_to(served):
    _, pause = paused(served)
    taken = served.answer(ALICE, "t1", pause)
    message, session = taken.json()["reply"]["id"], taken.headers[SESSION_HEADER]
    thumb = {"message": message, "thumb": "up"}
    elsewhere = served.client.post("/threads/t1/feedback", json=thumb, headers=served.as_(ALICE))
    assert elsewhere.status_code == 403
    headers = {**served.as_(ALICE), SESSION_HEADER: session}
    kept = served.client.post("/threads/t1/feedback", json=thumb, headers=headers)
    assert kept.status_code == 200 and kept.json() == thumb


def test_a_signed_link_shows_without_acting_then_answers_once_as_the_person_signed_in(served):
    _, pause = paused(served)
    [delivery] = [d for d in served.receiver.got if d["interrupt"]["id"] == pause["id"]]
    link = delivery["links"]["approve"]
    assert httpx.get(link).status_code == 200 and served.charges() == []
    assert httpx.post(link, headers={"Origin": served.base}).status_code == 401
    stranger = httpx.post(link, headers={"Origin": served.base, **served.as_(BOB)})
    assert stranger.status_code == 403 and served.charges() == []  # a link is no way into another's thread
    assert served.waiting(ALICE, "t1").json()["waiting"] == [pause]
    answered = httpx.post(link, headers={"Origin": served.base, **served.as_(ALICE)})
    assert answered.status_code == 200 and "Answer taken" in answered.text
    again = httpx.post(link, headers={"Origin": served.base, **served.as_(ALICE)})
    assert again.status_code == 409 and len(served.charges()) == 1


@pytest.mark.parametrize("route", ["/threads/t1/messages", "/threads/t1/resume"])
def test_a_body_that_is_not_json_is_refused_before_any_door_sees_it(served, route):
    refused = served.client.post(route, content=b"text=x", headers={"Content-Type": "text/plain", **served.as_(ALICE)})
    assert refused.status_code == 415 and served.charges() == []


def test_both_doors_document_the_same_routes_with_the_same_statuses_and_bodies(tmp_path, monkeypatch, ledger):
    (tmp_path / "desk").mkdir()
    (tmp_path / "graph").mkdir()
    documented = []
    for made in (desk_door(tmp_path / "desk", ledger), graph_door(tmp_path / "graph", monkeypatch)):
        door, _, _ = next(made)
        documented.append(door_app(door, public_url="https://approvals.shop.example").openapi()["paths"])
        next(made, None)
    assert documented[0] == documented[1]
    assert {"/threads/{thread}/messages", "/interrupts", "/links/{link}"} <= documented[0].keys()
