"""The inbox every backend keeps: open pauses across threads, newest first, a page at a time.  Each test runs once
per backend; how each reads them (an index, never a scan) is checked in test_inbox_plans.py."""

from __future__ import annotations

from typing import Any

import pytest

from stalwart_agents.storage import Changes, InboxEntry, PauseRecord, RunRecord, Storage
from stalwart_agents.storage.base import ANYONE, owner_party

from ..conftest import present
from .test_conformance import DAY, T0, a_pause, a_run, a_whole_finished_thread, at
from .writes import begin_run, claim, open_pause


def a_waiting_thread(store: Storage, thread: str, owner: str | None = None) -> RunRecord:
    if owner is not None:
        store.own(thread, owner)
    return begin_run(store, a_run(f"run-{thread}", thread, status="waiting", state={"turn": f"hello from {thread}"}))


def a_question(
    store: Storage, run: RunRecord, id: str, created_at: float, kind: str = "confirm", tool: Any = None
) -> PauseRecord:
    payload = {"question": f"{id}?"} | ({"tool": tool} if tool is not None else {})
    return open_pause(store, a_pause(id, run.id, run.thread, kind=kind, payload=payload, created_at=created_at))


def listed(entries: list[InboxEntry]) -> list[str]:
    return [entry.pause.id for entry in entries]


def every_page(store: Storage, limit: int, **filters: Any) -> list[list[str]]:
    """The inbox read page after page, each from where the last one ended, as a reader with a cursor does."""
    pages, before = [], None
    while True:
        page = store.inbox(before=before, limit=limit, **filters)
        pages.append(listed(page))
        if len(page) < limit:
            return pages
        before = (page[-1].pause.created_at, page[-1].pause.id)


def open_pauses(store: Storage) -> dict[str, PauseRecord]:
    """Pauses over three threads (one owned), two runs' worth of confirms and asks, several opened at one time."""
    ana = a_waiting_thread(store, "thread-ana", owner="iss|ana")
    bo = a_waiting_thread(store, "thread-bo", owner="iss|bo")
    nobody = a_waiting_thread(store, "thread-nobody")
    pauses = [
        a_question(store, ana, "p-a1", 10.0, tool="charge_card"),
        a_question(store, bo, "p-b1", 20.0, tool="send_mail"),
        a_question(store, nobody, "p-n1", 20.0, kind="ask"),
        a_question(store, ana, "p-a2", 20.0, tool="charge_card"),
        a_question(store, bo, "p-b2", 30.0, kind="ask", tool="charge_card"),
        a_question(store, nobody, "p-n2", 5.0, tool=7),  # a tool that is not text is no tool
        a_question(store, ana, "p-a3", 20.0, tool="send_mail"),
    ]
    return {pause.id: pause for pause in pauses}


NEWEST_FIRST = ["p-b2", "p-n1", "p-b1", "p-a3", "p-a2", "p-a1", "p-n2"]
"""By (created_at, id) descending: four were opened at 20.0, and their ids order them."""


def test_the_inbox_lists_every_open_pause_newest_first_with_its_run_and_owner(store: Storage) -> None:
    pauses = open_pauses(store)
    entries = store.inbox()
    assert listed(entries) == NEWEST_FIRST
    by_id = {entry.pause.id: entry for entry in entries}
    assert all(by_id[id].pause == pause for id, pause in pauses.items())
    assert by_id["p-a1"].run == store.get_run("run-thread-ana")
    assert by_id["p-b2"].run.state == {"turn": "hello from thread-bo"}
    owners = {entry.pause.thread: entry.owner for entry in entries}
    assert owners == {"thread-ana": "iss|ana", "thread-bo": "iss|bo", "thread-nobody": None}


def test_a_page_ends_strictly_before_the_pause_it_is_given(store: Storage) -> None:
    pauses = open_pauses(store)
    at_20 = (20.0, "p-b1")
    assert listed(store.inbox(before=at_20)) == ["p-a3", "p-a2", "p-a1", "p-n2"]
    assert listed(store.inbox(before=(pauses["p-n2"].created_at, "p-n2"))) == []
    assert listed(store.inbox(before=(20.0, "p-zz"), limit=2)) == ["p-n1", "p-b1"]
    assert listed(store.inbox(before=(1e9, ""), limit=3)) == NEWEST_FIRST[:3]


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_pages_follow_on_through_pauses_opened_at_the_same_time(store: Storage, limit: int) -> None:
    open_pauses(store)
    pages = every_page(store, limit)
    assert [id for page in pages for id in page] == NEWEST_FIRST
    assert all(len(page) == limit for page in pages[:-1])


def test_the_inbox_filters_by_kind_and_by_tool(store: Storage) -> None:
    open_pauses(store)
    assert listed(store.inbox(kind="ask")) == ["p-b2", "p-n1"]
    assert listed(store.inbox(tool="charge_card")) == ["p-b2", "p-a2", "p-a1"]
    assert listed(store.inbox(kind="confirm", tool="charge_card")) == ["p-a2", "p-a1"]
    assert listed(store.inbox(tool="send_mail", before=(20.0, "p-a3"))) == []
    assert store.inbox(kind="delegate") == [] and store.inbox(tool="7") == []
    assert every_page(store, 1, kind="confirm", tool="charge_card") == [["p-a2"], ["p-a1"], []]


def test_an_answered_pause_leaves_the_inbox_in_the_commit_that_answers_it(store: Storage) -> None:
    open_pauses(store)
    run = present(store.get_run("run-thread-bo"))
    claim(store, "p-b2", {"decision": "approve"}, run.replace(status="running"), expected_version=run.version)
    assert "p-b2" not in listed(store.inbox())
    assert listed(store.inbox(tool="charge_card")) == ["p-a2", "p-a1"] and listed(store.inbox(kind="ask")) == ["p-n1"]
    assert present(store.get_pause("p-b2")).status == "answered"


def test_a_pruned_threads_pauses_leave_the_inbox(store: Storage) -> None:
    """A finished thread's pause left open (its run ended without an answer) goes with the thread."""
    a_whole_finished_thread(store, "thread-old", T0)
    at(store, T0 + 2 * DAY)
    waiting = a_waiting_thread(store, "thread-new")
    a_question(store, waiting, "p-new", T0 + 2 * DAY, tool="charge_card")
    assert listed(store.inbox()) == ["p-new", "pause-thread-old"]
    now = T0 + store.retention + DAY
    store.prune(now)
    at(store, now)  # DynamoDB's TTL removes, where the others' prune deletes: an expired item is gone for reads
    assert listed(store.inbox()) == ["p-new"]


def test_a_limit_caps_the_page(store: Storage) -> None:
    open_pauses(store)
    assert store.inbox(limit=0) == []
    assert listed(store.inbox(limit=2)) == NEWEST_FIRST[:2]
    with pytest.raises(ValueError):
        store.inbox(limit=-1)


def test_an_empty_store_has_an_empty_inbox(store: Storage) -> None:
    assert store.inbox() == [] and store.inbox(before=(T0, "x"), kind="ask", tool="t") == []


def test_a_reader_reads_at_least_the_open_pauses_listed_under_one_of_their_parties(store: Storage) -> None:
    """A pause is listed under its thread's owner and the parties its commit names (anyone where it names none);
    a reader given parties gets at least those listed under one of them, newest first, until it is answered."""
    ana = a_waiting_thread(store, "thread-ana", owner="iss|ana")
    finance = a_pause("p-finance", ana.id, ana.thread, payload={"tool": "charge_card"}, created_at=20.0)
    store.commit(Changes(pauses=[finance], parties={"p-finance": ("group:finance",)}))
    owners = a_pause("p-owners", ana.id, ana.thread, created_at=30.0)
    store.commit(Changes(pauses=[owners], parties={"p-owners": ()}))
    anyones = a_question(store, ana, "p-anyone", 10.0)  # no parties named: listed under anyone
    for reader, wanted in [
        (("group:finance",), ["p-finance"]),
        ((owner_party("iss|ana"),), ["p-owners", "p-finance", "p-anyone"]),
        ((ANYONE,), ["p-anyone"]),
        (("group:finance", ANYONE), ["p-finance", "p-anyone"]),
    ]:
        found = listed(store.inbox(parties=reader))
        assert [pause for pause in found if pause in wanted] == wanted, reader
    assert listed(store.inbox(parties=("group:finance",), tool="charge_card")) == ["p-finance"]
    claim(store, finance.id, {"ok": True}, ana.replace(status="running"), expected_version=ana.version)
    assert "p-finance" not in listed(store.inbox(parties=("group:finance", owner_party("iss|ana"))))
    assert anyones.id in listed(store.inbox(parties=(ANYONE,)))


def test_dynamodb_lists_a_pause_under_its_parties_alone(store: Storage) -> None:
    """DynamoDB reads a reader's parties' listings and no other: a reader of none of a pause's parties reads none
    of it (the SQL and memory stores may list every open pause, which the protocol allows)."""
    if not store.url.startswith("dynamodb://"):
        pytest.skip("the SQL and memory stores read every open pause, as the protocol allows")
    ana = a_waiting_thread(store, "thread-ana", owner="iss|ana")
    finance = a_pause("p-finance", ana.id, ana.thread, created_at=20.0)
    store.commit(Changes(pauses=[finance], parties={"p-finance": ("group:finance",)}))
    assert listed(store.inbox(parties=("group:support",))) == []
    assert listed(store.inbox(parties=(owner_party("iss|bo"), ANYONE))) == []
    assert listed(store.inbox(parties=("group:finance",))) == ["p-finance"]
