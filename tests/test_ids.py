"""Ids that cannot be probed, squatted or read: each person's own thread under an id, sealed inbox cursors, keyed
pause ids; over real uvicorn with people signed in by HS256 tokens, on SQLite (the inbox's paging on DynamoDB is
``test_lambda.py``'s, through the Lambda handler)."""

import base64
import hashlib
import re

import httpx
import pytest

from stalwart_agents.approvals import inbox
from stalwart_agents.approvals.admission import STORED_THREAD_MAX
from stalwart_agents.engine.pause import PausePoint, canonical
from stalwart_agents.storage import open_storage
from stalwart_agents.storage.keys import PAUSE_ID, keys_of

from .server import stalwart_serve
from .test_approvers import ALICE, FINANCE_FOR_LARGE, FIONA, MALLORY, over_http, shop, token
from .test_http import read_stream

pytestmark = pytest.mark.sqlite

SMALL = "charge 40 to order 4411"
LARGE = "charge 2000 to order 4411"


@pytest.fixture
def served(tmp_path, ledger):
    with over_http(tmp_path, FINANCE_FOR_LARGE) as served:
        yield served


def turn(client: httpx.Client, who, thread: str, text: str) -> httpx.Response:
    return client.post(f"/threads/{thread}/messages", json={"text": text}, headers=token(who))


def approve(client: httpx.Client, who, thread: str, pause: dict) -> httpx.Response:
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    return client.post(f"/threads/{thread}/resume", json=body, headers=token(who))


def waiting(client: httpx.Client, who, thread: str) -> httpx.Response:
    return client.get(f"/threads/{thread}/interrupts", headers=token(who))


def test_a_strangers_turn_on_a_taken_id_answers_as_on_an_unused_one_and_leaves_the_owners_thread_alone(served):
    client, desk = served
    [alices] = turn(client, ALICE, "u-17", SMALL).json()["waiting"]
    stored = alices["thread"]
    before = desk.storage.events(stored)

    on_taken, on_unused = turn(client, MALLORY, "u-17", "look up order 4412"), turn(client, MALLORY, "u-99", SMALL)
    assert (on_taken.status_code, on_unused.status_code) == (200, 200), (on_taken.text, on_unused.text)
    assert on_taken.json().keys() == on_unused.json().keys()
    assert on_taken.json()["thread"] == "u-17"  # the id she named, as a reply always showed it

    assert desk.storage.events(stored) == before
    assert [p["id"] for p in waiting(client, ALICE, "u-17").json()["waiting"]] == [alices["id"]]
    assert waiting(client, MALLORY, "u-17").json()["waiting"] == []  # hers: a look-up, nothing waits
    assert approve(client, MALLORY, "u-17", alices).status_code == 404
    assert approve(client, MALLORY, stored, alices).status_code == 404  # the full id: not hers to answer either


def test_whoever_posts_an_id_first_takes_nothing_from_the_person_who_uses_it_next(served, ledger):
    client, _ = served
    squatted = turn(client, MALLORY, "u-17", SMALL)
    assert squatted.status_code == 200, squatted.text

    [squatters] = squatted.json()["waiting"]
    [pause] = turn(client, ALICE, "u-17", SMALL).json()["waiting"]
    assert pause["thread"] != squatters["thread"]
    taken = approve(client, ALICE, "u-17", pause)
    assert taken.status_code == 200 and taken.json()["waiting"] == [], taken.text
    assert [c["amount"] for c in ledger("charge")] == [40]
    [mallorys] = waiting(client, MALLORY, "u-17").json()["waiting"]  # still waits, in her own
    assert mallorys == {**squatters, "card": mallorys["card"]}


def test_an_approver_answers_in_anothers_thread_by_the_id_the_pause_carries(served, ledger):
    client, _ = served
    [pause] = turn(client, ALICE, "big", LARGE).json()["waiting"]
    [listed] = client.get("/interrupts", headers=token(FIONA)).json()["waiting"]
    assert listed["id"] == pause["id"] and listed["thread"] == pause["thread"]

    assert waiting(client, FIONA, "big").status_code == 404  # "big" is nothing of hers: she has no thread of that id
    assert [p["id"] for p in waiting(client, FIONA, pause["thread"]).json()["waiting"]] == [pause["id"]]
    taken = approve(client, FIONA, pause["thread"], listed)
    assert taken.status_code == 200, taken.text
    assert [c["amount"] for c in ledger("charge")] == [2000]


def test_one_stored_id_an_approver_sees_links_none_of_the_owners_other_threads(served):
    """Each of a person's threads carries its own tag, so Fiona, shown one, cannot tell Alice's others apart from
    anyone's, nor make the stored id of another name Alice uses."""
    client, _ = served
    [first] = turn(client, ALICE, "big", LARGE).json()["waiting"]
    [second] = turn(client, ALICE, "bigger", LARGE).json()["waiting"]
    [other] = turn(client, MALLORY, "big", LARGE).json()["waiting"]
    tags = [pause["thread"].rpartition(":")[0] for pause in (first, second, other)]
    assert len(set(tags)) == 3, tags
    made_up = f"{tags[0]}:bigger"  # Alice's first tag with her second id: no id of hers
    assert made_up != second["thread"] and waiting(client, FIONA, made_up).status_code == 404


def test_a_thread_begun_before_ids_were_scoped_still_answers_its_owner_and_nobody_else(served, ledger):
    client, desk = served
    # as the service began a thread until now: under the client's id itself, owned by whoever wrote it first
    desk._engine.start("old-17", SMALL, desk.agent(), None, None, ALICE.key, None)
    [pause] = waiting(client, ALICE, "old-17").json()["waiting"]
    assert pause["thread"] == "old-17"

    assert turn(client, MALLORY, "old-17", SMALL).json()["waiting"][0]["thread"] != "old-17"
    assert approve(client, MALLORY, "old-17", pause).status_code == 404
    taken = approve(client, ALICE, "old-17", pause)
    assert taken.status_code == 200 and taken.json()["thread"] == "old-17", taken.text
    assert [c["amount"] for c in ledger("charge")] == [40]


def test_the_stream_its_ticket_and_thumbs_reach_the_callers_own_thread_of_an_id(served):
    client, _ = served
    turn(client, ALICE, "u-17", "look up order 4411")
    mine = turn(client, MALLORY, "u-17", "look up order 4412")
    ticket = mine.headers["stalwart-stream-ticket"]
    streamed = read_stream(str(client.base_url), "u-17", params={"ticket": ticket})
    assert "4412" in streamed and "4411" not in streamed
    thumb = {"message": mine.json()["reply"]["id"], "thumb": "up"}
    session = {"Stalwart-Session": mine.headers["stalwart-session"]}
    rated = client.post("/threads/u-17/feedback", json=thumb, headers={**token(MALLORY), **session})
    assert rated.status_code == 200 and rated.json() == thumb, rated.text


def test_a_new_threads_id_is_at_most_200_characters_and_a_stored_scoped_one_is_reached_whole(served):
    client, _ = served
    refused = turn(client, ALICE, "a" * 201, SMALL)
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
    [pause] = turn(client, ALICE, "a" * 200, SMALL).json()["waiting"]
    assert len(pause["thread"]) == STORED_THREAD_MAX
    assert [p["id"] for p in waiting(client, ALICE, pause["thread"]).json()["waiting"]] == [pause["id"]]


# --- cursors -------------------------------------------------------------------------------------------------------


def revealed(text: str, pauses) -> list[str]:
    """What ``text`` shows of ``pauses``: an id, a run, a day, or any time in seconds since 1970."""
    shown = [p.id for p in pauses if p.id in text or p.run.removeprefix("r_") in text or p.created_at[:10] in text]
    return shown + re.findall(r"1[0-9]{9}", text)


def test_the_cursor_of_someone_who_may_answer_nothing_shows_no_pause_nor_when_and_is_theirs_alone(served, monkeypatch):
    client, desk = served
    for n in range(4):
        turn(client, ALICE, f"a-{n}", SMALL)
    monkeypatch.setattr(inbox, "READ_AT_MOST", 3)  # the service is this process's: read at most 3 a request
    page = client.get("/interrupts", headers=token(MALLORY)).json()
    cursor = page["next"]
    assert page["waiting"] == [] and cursor

    opened = [p for n in range(4) for p in desk.waiting(f"a-{n}", ALICE)]
    assert revealed(cursor, opened) == []
    assert revealed(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("latin-1"), opened) == []

    read_on = client.get("/interrupts", params={"cursor": cursor}, headers=token(MALLORY))
    assert read_on.status_code == 200 and read_on.json()["waiting"] == []
    tampered = cursor[:10] + ("A" if cursor[10] != "A" else "B") + cursor[11:]
    forged = f"{desk.storage.inbox(limit=1)[0].pause.created_at!r}~{opened[0].id}"
    for other, who in ((cursor, FIONA), (tampered, MALLORY), (forged, MALLORY), ("AAAA", MALLORY)):
        refused = client.get("/interrupts", params={"cursor": other}, headers=token(who))
        assert refused.status_code == 400, (other, refused.text)


def test_paging_by_the_sealed_cursor_reads_each_pause_once(served):
    client, _ = served
    for n in range(7):
        turn(client, ALICE, f"b-{n}", LARGE)
    seen, cursor = [], None
    while True:
        page = client.get(
            "/interrupts", params={"limit": 3, **({"cursor": cursor} if cursor else {})}, headers=token(FIONA)
        )
        assert page.status_code == 200, page.text
        seen += [p["id"] for p in page.json()["waiting"]]
        cursor = page.json()["next"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 7


# --- pause ids -----------------------------------------------------------------------------------------------------


def _inputs(record) -> tuple[PausePoint, tuple]:
    """What a confirm's id is made of, read back from its stored pause."""
    payload = record.payload
    called = [{"name": a["name"], "value": a["value"], "origin": a["origin"]} for a in payload["arguments"]]
    point = PausePoint.call(record.step, str(record.step))
    return point, (record.thread, record.run, payload["tool"], called, record.kind)


def test_a_pause_id_is_keyed_by_the_store_not_a_plain_digest_of_what_it_asks(served, tmp_path):
    client, desk = served
    [pause] = turn(client, ALICE, "k", SMALL).json()["waiting"]
    point, made_of = _inputs(desk.storage.get_pause(pause["id"]))
    thread, run, tool, called, kind = made_of
    material = canonical([thread, run, point.step, tool, sorted(called, key=lambda a: a["name"]), kind, point.subject])
    unkeyed = f"p{run.removeprefix('r')}.{hashlib.sha256(material.encode()).hexdigest()[:24]}"  # as ids were made
    assert pause["id"] != unkeyed and point.unkeyed_id(*made_of) == unkeyed
    assert pause["id"] == point.pause_id(keys_of(desk.storage).key(PAUSE_ID), *made_of)
    other = open_storage(f"sqlite:///{tmp_path / 'another.db'}")
    try:
        assert point.pause_id(keys_of(other).key(PAUSE_ID), *made_of) != pause["id"]
    finally:
        other.close()


def test_a_pause_opened_by_one_process_is_answered_by_another_on_the_same_store(tmp_path, ledger):
    config = shop(tmp_path, "")
    storage = f"sqlite:///{tmp_path / 'runs.db'}"
    with (
        stalwart_serve(config, "--storage", storage) as (first, _),
        stalwart_serve(config, "--storage", storage) as (
            second,
            _,
        ),
    ):
        [pause] = httpx.post(f"{first}/threads/t/messages", json={"text": SMALL}).json()["waiting"]
        body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
        answered = httpx.post(f"{second}/threads/t/resume", json=body, timeout=10)
    assert answered.status_code == 200 and answered.json()["waiting"] == [], answered.text
    assert [c["amount"] for c in ledger("charge")] == [40]


def test_a_run_paused_under_the_unkeyed_ids_resumes_once_after_the_upgrade(served, ledger, monkeypatch):
    client, desk = served
    keyed = PausePoint.pause_id
    monkeypatch.setattr(PausePoint, "pause_id", lambda point, key, *made_of: point.unkeyed_id(*made_of))
    [pause] = turn(client, ALICE, "before", SMALL).json()["waiting"]
    monkeypatch.setattr(PausePoint, "pause_id", keyed)
    point, made_of = _inputs(desk.storage.get_pause(pause["id"]))
    assert pause["id"] == point.unkeyed_id(*made_of)

    assert [p["id"] for p in waiting(client, ALICE, "before").json()["waiting"]] == [pause["id"]]
    taken = approve(client, ALICE, "before", pause)
    assert taken.status_code == 200 and taken.json()["waiting"] == [], taken.text
    assert [c["amount"] for c in ledger("charge")] == [40]
    assert approve(client, ALICE, "before", pause).status_code == 409
    assert [c["amount"] for c in ledger("charge")] == [40]
