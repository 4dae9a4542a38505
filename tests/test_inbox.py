"""GET /interrupts, the inbox: every open pause the caller may answer across threads, over real uvicorn with people
signed in by HS256 tokens, on SQLite (the index reads themselves are held to every backend in tests/storage)."""

import json

import pytest

from stalwart_agents import BadRequest, Desk
from stalwart_agents.approvals.inbox import cursor_of, position
from stalwart_agents.approvals.principal import ANONYMOUS
from stalwart_agents.storage import open_storage

from .test_approvers import ALICE, FINANCE_FOR_LARGE, FIONA, MALLORY, opened, over_http, token

SHOP_RULES = FINANCE_FOR_LARGE


@pytest.fixture
def client(tmp_path, ledger):
    with over_http(tmp_path, SHOP_RULES) as (client, _):
        yield client


def say(client, who, thread, text):
    reply = client.post(f"/threads/{thread}/messages", json={"text": text}, headers=token(who))
    assert reply.status_code == 200, reply.text
    return reply.json()["waiting"]


def inbox(client, who, **query):
    answer = client.get("/interrupts", params=query, headers=token(who))
    assert answer.status_code == 200, answer.text
    return answer.json()


def named(pause):
    """The id its owner gave the pause's thread: the thread shows it scoped to them (``<tag>:<id>``)."""
    tag, _, given = pause["thread"].partition(":")
    assert len(tag) == 22, pause["thread"]
    return given


def listed(client, who, **query):
    return [(named(p), p["tool"], p["arguments"][0]["value"]) for p in inbox(client, who, **query)["waiting"]]


def test_each_person_sees_exactly_what_they_may_answer_newest_first(client):
    say(client, ALICE, "a-small", "charge 40 to order 4411")
    say(client, ALICE, "a-large", "charge 2000 to order 4411")
    say(client, MALLORY, "m-small", "charge 50 to order 4412")
    say(client, MALLORY, "m-large", "charge 3000 to order 4412")

    assert listed(client, ALICE) == [("a-small", "charge_card", 40)]
    assert listed(client, MALLORY) == [("m-small", "charge_card", 50)]
    assert listed(client, FIONA) == [("m-large", "charge_card", 3000), ("a-large", "charge_card", 2000)]
    first = inbox(client, FIONA)["waiting"][0]
    assert first["turn"] == "charge 3000 to order 4412" and first["token"]
    assert inbox(client, FIONA)["next"] is None


def test_what_the_inbox_lists_is_answerable_by_that_person_and_leaves_it_once_answered(client, ledger):
    say(client, MALLORY, "m-large", "charge 3000 to order 4412")
    [pause] = inbox(client, FIONA)["waiting"]
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    taken = client.post(f"/threads/{pause['thread']}/resume", json=body, headers=token(FIONA))
    assert taken.status_code == 200, taken.text
    assert inbox(client, FIONA)["waiting"] == [] and len(ledger("charge")) == 1


def test_pages_follow_the_cursor_without_repeating_or_missing_a_pause(client):
    for n in range(7):
        say(client, ALICE, f"t{n}", f"charge {10 + n} to order 4411")
    seen, cursor = [], None
    while True:
        page = inbox(client, ALICE, limit=3, **({"cursor": cursor} if cursor else {}))
        assert len(page["waiting"]) <= 3
        seen += [named(p) for p in page["waiting"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [f"t{n}" for n in reversed(range(7))]


def test_filters_by_kind_and_tool(client):
    say(client, ALICE, "charge", "charge 40 to order 4411")
    say(client, ALICE, "receipt", "send the receipt for order 4411")
    assert [named(p) for p in inbox(client, ALICE, tool="send_receipt")["waiting"]] == ["receipt"]
    assert [named(p) for p in inbox(client, ALICE, tool="charge_card")["waiting"]] == ["charge"]
    assert inbox(client, ALICE, kind="ask")["waiting"] == []
    assert len(inbox(client, ALICE, kind="confirm")["waiting"]) == 2


@pytest.mark.parametrize(
    "query",
    [{"cursor": "not-a-cursor"}, {"limit": "0"}, {"limit": "201"}, {"limit": "ten"}, {"kind": "approve"}],
)
def test_a_bad_query_is_a_400_naming_what_was_wrong(client, query):
    answer = client.get("/interrupts", params=query, headers=token(ALICE))
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")


def test_no_token_is_401(client):
    assert client.get("/interrupts").status_code == 401


@pytest.mark.parametrize(
    "query",
    [
        {"cursor": "1" + "0" * 400 + "~p"},
        {"cursor": "1.5~p\x00"},
        {"cursor": "NaN~p"},
        {"cursor": "inf~p"},
        {"cursor": "-1.5~p"},
        {"cursor": "1.5~" + "p" * 201},
        {"tool": ""},
        {"tool": "charge\x00card"},
        {"tool": "x" * 201},
    ],
)
def test_a_forged_cursor_or_tool_is_a_400_never_a_500(client, query):
    answer = client.get("/interrupts", params=query, headers=token(ALICE))
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), answer.text


def test_an_approver_answering_in_another_persons_conversation_sees_only_what_became_of_that_call(client, ledger):
    say(client, ALICE, "a", "look up order 4411 and charge 2000 to order 4411")
    [pause] = inbox(client, FIONA)["waiting"]
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    answer = client.post(f"/threads/{pause['thread']}/resume", json=body, headers=token(FIONA))
    assert answer.status_code == 200, answer.text
    seen = answer.json()
    assert [(s["tool"], s["status"]) for s in seen["steps"]] == [("charge_card", "done")]
    assert "look_up_order" not in json.dumps(seen["steps"]) and seen["waiting"] == [] and seen["reply"]["text"] == ""
    assert "stalwart-stream-ticket" not in answer.headers
    owner = client.get("/threads/a/interrupts", headers=token(ALICE))
    assert owner.status_code == 200 and len(ledger("charge")) == 1


def test_a_cursor_reads_back_the_exact_position_it_was_made_from_for_its_reader_and_nothing_else():
    store = open_storage("memory://")
    at = (1764538000.1234567, "p_abc.0123456789abcdef01234567")
    assert position(cursor_of(at, store, ALICE), store, ALICE) == at
    for forged in ("1.5~p\ud800", "1e5~p", "1.5~", "~p", cursor_of(at, store, FIONA), cursor_of(at, store, ALICE)[1:]):
        with pytest.raises(BadRequest):
            position(forged, store, ALICE)


def test_a_pause_of_an_agent_the_file_no_longer_has_is_in_nobodys_inbox_and_fails_no_one(tmp_path):
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    with opened(tmp_path, "") as desk:
        desk.send("t", "charge 40 to order 4411")
        assert len(desk.inbox(ANONYMOUS).waiting) == 1
    renamed = tmp_path / "agent.yaml"
    renamed.write_text(renamed.read_text().replace("name: shop", "name: shop2"))
    with Desk.from_file(renamed, storage=store) as desk:
        assert desk.inbox(ANONYMOUS).waiting == []
