"""The decision record on every backend: numbered and chained in the commit that takes a decision, read by thread
and by time, kept through a prune, one unbroken chain however many writers decide at once, and any change, removal
or reordering of an entry found by verifying it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from stalwart_agents.approvals.record import entries, verify
from stalwart_agents.errors import PauseClosed, StorageUnavailable
from stalwart_agents.storage import Changes, Event, Storage, open_storage, record_position, text
from stalwart_agents.storage.chain import GENESIS, Head, digest_of
from stalwart_agents.storage.dynamodb_items import record_key, record_place, record_shard

T0 = 1_800_000_000.0


def at(seconds: float) -> str:
    return datetime.fromtimestamp(T0 + seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def decided(thread: str, seconds: float, decision: str = "approve", **more: Any) -> Event:
    body = {"type": "answer", "decision": decision}
    return Event(thread, body, {"at": at(seconds), "decision": decision, "tool": "charge_card", **more})


def test_decisions_are_numbered_and_chained_in_the_commits_that_take_them(store: Storage) -> None:
    store.commit(Changes(events=[decided("a", 1), decided("a", 2, "skip")]))
    store.commit(Changes(events=[decided("b", 3), Event("b", {"type": "step"})]))
    store.commit(Changes(events=[decided("a", 4, "cancel_all")]))

    kept = store.record("a")
    assert [(e["seq"], e["decision"], e["thread"]) for e in kept] == [
        (1, "approve", "a"),
        (2, "skip", "a"),
        (3, "cancel_all", "a"),
    ]
    assert kept[0]["prev"] == GENESIS and [e["prev"] for e in kept[1:]] == [e["digest"] for e in kept[:-1]]
    assert all(e["digest"] == digest_of(e) for e in kept)
    assert store.record_head("a") == Head(3, kept[-1]["digest"]) and store.record_head("nobody") is None
    assert store.record("a\x00") == [] and store.record_head("a\x00") is None  # no store fails on an id with a NUL
    assert store.record_heads() == [("a", Head(3, kept[-1]["digest"])), ("b", store.record_head("b"))]
    assert (
        store.record_heads(after="a") == store.record_heads()[1:]
        and store.record_heads(limit=1) == store.record_heads()[:1]
    )
    assert [e["seq"] for e in store.record("a", after=1)] == [2, 3] and store.record("a", limit=1) == kept[:1]

    everything = store.recorded()
    assert [(e["thread"], e["seq"]) for e in everything] == [("a", 1), ("a", 2), ("b", 1), ("a", 3)]
    assert [(e["thread"], e["seq"]) for e in store.recorded(since=T0 + 2.5)] == [("b", 1), ("a", 3)]
    first = store.recorded(limit=2)
    assert store.recorded(after=record_position(first[-1])) == everything[2:]
    assert [body["type"] for _, body in store.events("b")] == ["answer", "step"]


def test_a_commit_refused_records_nothing(store: Storage) -> None:
    with pytest.raises(PauseClosed):
        store.commit(Changes(claim=("p-none", {"decision": "approve"}), events=[decided("a", 1)]))
    assert store.record("a") == [] and store.record_head("a") is None and store.recorded() == []


def test_a_prune_leaves_the_record_and_a_thread_begun_again_goes_on_with_its_chain(store: Storage) -> None:
    store.commit(Changes(events=[decided("a", 1)]))
    later = store.clock() + 10 * 365 * 86400
    store.prune(later)
    store.clock = lambda: later  # where the database expires records itself (DynamoDB), they are gone by then
    assert store.events("a") == []
    store.commit(Changes(events=[decided("a", 2)]))
    assert [e["seq"] for e in store.record("a")] == [1, 2] and verify(store).intact


def test_writers_deciding_at_once_in_one_thread_leave_one_unbroken_chain(store: Storage) -> None:
    """Four writers (three processes' stores where the backend is shared), each retrying a commit that lost too many
    races as a client retries a 503: every decision is recorded once, in one chain without a gap."""
    stores = [store] if store.url == "memory://" else [open_storage(store.url) for _ in range(3)]
    errors: list[BaseException] = []

    def decide(writer: Storage, n: int) -> None:
        try:
            for k in range(5):
                while True:
                    try:
                        writer.commit(Changes(events=[decided("busy", n * 10 + k, who=f"{n}.{k}")]))
                        break
                    except StorageUnavailable:
                        continue
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=decide, args=(stores[n % len(stores)], n)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for other in stores[1:] if len(stores) > 1 else []:
        other.close()
    assert errors == []
    kept = store.record("busy")
    assert [e["seq"] for e in kept] == list(range(1, 21))
    assert sorted(e["who"] for e in kept) == sorted(f"{n}.{k}" for n in range(4) for k in range(5))
    checked = verify(store, "busy")
    assert checked.intact and checked.entries == 20 and checked.heads["busy"].seq == 20


def rewrite(store: Storage, thread: str, seq: int, entry: dict[str, Any] | None) -> None:
    """Put ``entry`` (or, with None, remove the one) at ``thread``'s ``seq`` behind the store's back, as someone with
    the database's credentials could: an entry changed, removed, or copied under another key."""
    body = None if entry is None else text(entry)
    if store.url.startswith("memory"):
        kept: list[str] = store._decisions.setdefault(thread, [])  # type: ignore[attr-defined]
        if body is None:
            del kept[seq - 1]
        elif seq > len(kept):
            kept.append(body)
        else:
            kept[seq - 1] = body
    elif store.url.startswith("dynamodb"):
        client, key, table = store._client, record_key(thread, seq), store.table  # type: ignore[attr-defined]
        if body is None:
            client.delete_item(TableName=table, Key=key)
        else:
            position = record_place((T0 + seq, thread, seq))
            item = key | {"body": {"S": body}, "rk": {"S": record_shard(thread)}, "rt": {"S": position}}
            client.put_item(TableName=table, Item=item)
    else:
        statement = (
            "INSERT INTO decisions (thread, seq, at, body) VALUES (:thread, :seq, :at, :body)"
            " ON CONFLICT (thread, seq) DO UPDATE SET body = excluded.body"
        )
        if body is None:
            statement = "DELETE FROM decisions WHERE thread = :thread AND seq = :seq"
        with store._transaction() as db:  # type: ignore[attr-defined]
            params = {"thread": thread, "seq": seq, "at": T0 + seq, "body": body}
            store._execute(db, statement, params)  # type: ignore[attr-defined]


def behead(store: Storage, thread: str) -> None:
    """Remove the thread's head, which says where its record ends."""
    if store.url.startswith("memory"):
        del store._heads[thread]  # type: ignore[attr-defined]
    elif store.url.startswith("dynamodb"):
        store._client.delete_item(TableName=store.table, Key=record_key(thread))  # type: ignore[attr-defined]
    else:
        with store._transaction() as db:  # type: ignore[attr-defined]
            store._execute(db, "DELETE FROM decision_heads WHERE thread = :thread", {"thread": thread})  # type: ignore[attr-defined]


def strip(store: Storage) -> None:
    for seq in (3, 2, 1):
        rewrite(store, "t", seq, None)


def swap(store: Storage, kept: list[dict[str, Any]]) -> None:
    rewrite(store, "t", 1, kept[1])
    rewrite(store, "t", 2, kept[0])


TAMPERS = {
    "changed": lambda store, kept: rewrite(store, "t", 2, kept[1] | {"decision": "approve", "tool": "refund"}),
    "changed and digested again": lambda store, kept: rewrite(
        store, "t", 2, (changed := kept[1] | {"value": 4000}) | {"digest": digest_of(changed)}
    ),
    "removed": lambda store, kept: rewrite(store, "t", 2, None),
    "removed from the end": lambda store, kept: rewrite(store, "t", 3, None),
    "reordered": lambda store, kept: swap(store, kept),
    "copied under another thread": lambda store, kept: rewrite(store, "ghost", 1, kept[1]),
    "a whole thread made up": lambda store, kept: rewrite(store, "ghost", 1, kept[0] | {"thread": "ghost"}),
    "every entry removed": lambda store, kept: strip(store),
    "its head removed": lambda store, kept: behead(store, "t"),
}


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_verify_finds_an_entry_changed_removed_or_reordered(store: Storage, tamper: str) -> None:
    store.commit(Changes(events=[decided("t", 1), decided("t", 2, "skip"), decided("t", 3)]))
    store.commit(Changes(events=[decided("other", 4)]))
    before = verify(store)
    assert before.intact and (before.threads, before.entries) == (2, 4)

    TAMPERS[tamper](store, store.record("t"))

    after = verify(store)
    broke = {b.thread for b in after.breaks}
    assert not after.intact and broke <= {"t", "ghost"} and broke, after.breaks
    assert verify(store, "other").intact and not all(verify(store, thread).intact for thread in broke)
    assert list(entries(store, thread="other")) == store.record("other")
