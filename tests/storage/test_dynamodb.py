"""What only the DynamoDB store promises: the table template.yaml makes, one request per commit, and bounded items.

Each test gets its own table on the session's moto server (see conftest.py).
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")

from stalwart_agents.errors import ConfigError, NotFound, PauseClosed, StorageError, StorageUnavailable, ValueTooLarge  # noqa: E402
from stalwart_agents.storage import (  # noqa: E402
    Changes,
    Event,
    Feedback,
    JournalEntry,
    PauseRecord,
    RunRecord,
    ShownMessage,
    check_url,
    open_storage,
)
from stalwart_agents.storage.dynamodb import DynamoStorage  # noqa: E402
from stalwart_agents.storage.dynamodb_items import WAKE_SHARDS  # noqa: E402
from stalwart_agents.storage.dynamodb_schema import TABLE, TTL_ATTRIBUTE  # noqa: E402
from stalwart_agents.storage.dynamodb_sizes import (  # noqa: E402
    ITEM_LIMIT,
    TRANSACTION_LIMIT,
    check_item,
    check_transaction,
    item_size,
)

from ..conftest import REGION, present  # noqa: E402
from .processes import in_two_processes, waiting_run  # noqa: E402
from .writes import append_event, begin_run, claim, open_pause  # noqa: E402

ROUNDS = 10


class Opened:
    """A store as one Lambda instance holds it (its own client and caches), and the DynamoDB calls it makes."""

    def __init__(self, table: str, endpoint: str) -> None:
        self.client = boto3.client("dynamodb", region_name=REGION, endpoint_url=endpoint)
        self.store = DynamoStorage(table, region=REGION, endpoint=endpoint, client=self.client)
        self.calls: list[str] = []
        self.client.meta.events.register("before-call.dynamodb", lambda model, **_: self.calls.append(model.name))

    def calls_of(self, move: Any) -> list[str]:
        self.calls.clear()
        move()
        return list(self.calls)


@pytest.fixture
def table(moto_endpoint: str, fake_aws: None) -> str:
    return f"t-{uuid.uuid4().hex}"


@pytest.fixture
def opened(table: str, moto_endpoint: str) -> Iterator[Opened]:
    first = Opened(table, moto_endpoint)
    first.store.setup()
    yield first
    first.store.close()


def a_run(n: int = 1, **changes: Any) -> RunRecord:
    return RunRecord(id=f"run-{n}", agent="helper", **({"thread": "thread-a", "status": "running"} | changes))


def said(what: str, thread: str = "thread-a") -> list[Event]:
    return [Event(thread, {"what": what})]


def pausing_turn(run: RunRecord, key: str = "call-1") -> Changes:
    """What a turn that runs a write and then stops for a person commits: all of it at once."""
    pause = PauseRecord(f"pause-{run.id}", run.id, run.thread, "approve", 1, "tok", {"question": "send?"})
    entry = JournalEntry(run.id, key, "send_mail", {"to": "ana"}, "started", idempotency_key=f"{run.id}/{key}")
    events = said("turn", run.thread) + said("paused", run.thread)
    return Changes(begin=run.replace(status="waiting"), pauses=[pause], starts=[entry], events=events)


def test_setup_creates_the_table_template_yaml_describes(opened: Opened, table: str) -> None:
    described = opened.client.describe_table(TableName=table)["Table"]
    assert described["KeySchema"] == TABLE["KeySchema"]
    assert sorted(described["AttributeDefinitions"], key=str) == sorted(TABLE["AttributeDefinitions"], key=str)
    indexes = [
        {name: index[name] for name in ("IndexName", "KeySchema", "Projection")}
        for index in described["GlobalSecondaryIndexes"]
    ]
    assert indexes == TABLE["GlobalSecondaryIndexes"]
    assert described["StreamSpecification"] == TABLE["StreamSpecification"]
    assert described["BillingModeSummary"]["BillingMode"] == TABLE["BillingMode"]
    ttl = opened.client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", TTL_ATTRIBUTE)


def test_a_pausing_turn_is_one_request_on_a_new_thread_and_after_reading_an_old_one(
    opened: Opened, table: str, moto_endpoint: str
) -> None:
    assert opened.calls_of(lambda: opened.store.commit(pausing_turn(a_run(1)))) == ["TransactWriteItems"]
    opened.store.commit(Changes(run=a_run(1, status="done"), version=0, events=said("done")))
    cold = Opened(table, moto_endpoint)
    assert cold.calls_of(lambda: cold.store.active_run("thread-a")) == ["GetItem"]
    committed: list[Any] = []
    assert cold.calls_of(lambda: committed.append(cold.store.commit(pausing_turn(a_run(2))))) == ["TransactWriteItems"]
    assert committed[0].event_ids == [4, 5]


def test_a_claim_is_one_request_after_the_snapshot_it_was_read_from(
    opened: Opened, table: str, moto_endpoint: str
) -> None:
    opened.store.commit(pausing_turn(a_run(1)))
    cold = Opened(table, moto_endpoint)
    snapshot = present(cold.store.snapshot("run-1"))
    assert [p.status for p in snapshot.pauses] == ["open"] and [e.key for e in snapshot.journal] == ["call-1"]
    claim = Changes(
        claim=("pause-run-1", {"ok": True}),
        run=snapshot.run.replace(status="running"),
        version=0,
        events=said("claimed"),
    )
    committed: list[Any] = []
    assert cold.calls_of(lambda: committed.append(cold.store.commit(claim))) == ["TransactWriteItems"]
    assert committed[0].event_ids == [3] and committed[0].run.version == 1


def test_a_stale_event_counter_costs_one_retry_and_ids_still_rise(
    opened: Opened, table: str, moto_endpoint: str
) -> None:
    other = Opened(table, moto_endpoint)
    first = append_event(opened.store, "thread-a", {"n": 0})
    assert other.store.active_run("thread-a") is None
    moved = [append_event(opened.store, "thread-a", {"n": n}) for n in (1, 2, 3)]
    late: list[int] = []
    assert (
        other.calls_of(lambda: late.append(append_event(other.store, "thread-a", {"n": 4})))
        == ["TransactWriteItems"] * 2
    )
    assert [first, *moved, *late] == [1, 2, 3, 4, 5]
    assert other.calls_of(lambda: append_event(other.store, "thread-a", {"n": 5})) == ["TransactWriteItems"]
    assert [body["n"] for _, body in opened.store.events("thread-a")] == [0, 1, 2, 3, 4, 5]


def test_what_a_commit_assumed_wrongly_is_corrected_and_retried(opened: Opened) -> None:
    store = opened.store
    begin_run(store, a_run(1, status="done"))
    begin_run(store, a_run(2, thread="thread-b", status="waiting"))
    open_pause(store, PauseRecord("pause-b", "run-2", "thread-b", "approve", 1, "tok", {}))
    begin_run(store, a_run(3))
    odd = Changes(claim=("pause-b", {"ok": True}), run=a_run(1, thread="thread-z", status="done"), version=0)
    committed: list[Any] = []
    calls = opened.calls_of(lambda: committed.append(store.commit(odd)))
    assert calls == ["TransactWriteItems", "Query", "GetItem", "TransactWriteItems", "TransactWriteItems"]
    saved = committed[0].run
    assert saved.thread == "thread-a" and present(store.active_run("thread-a")).id == "run-3"
    assert present(store.get_pause("pause-b")).answer == {"ok": True} and present(store.get_run("run-2")).version == 0
    assert present(store.snapshot("run-1")).run == saved


def test_a_transaction_conflict_is_retried(fake_aws: None) -> None:
    from botocore.stub import Stubber

    client = boto3.client("dynamodb", region_name=REGION)
    store = DynamoStorage("runs-table", region=REGION, client=client)
    with Stubber(client) as stub:
        conflict = {"CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}]}
        stub.add_client_error("transact_write_items", "TransactionCanceledException", modeled_fields=conflict)
        stub.add_response("transact_write_items", {})
        assert append_event(store, "thread-a", {"n": 1}) == 1
        stub.assert_no_pending_responses()


def _claim_each_round(name: str, barrier: Any, results: Any, url: str, rounds: int) -> None:
    store = open_storage(url)
    try:
        for n in range(rounds):
            results.put((n, name, _claim_once(store, n, name, barrier)))
    except BaseException:
        barrier.abort()
        raise
    finally:
        store.close()


def _claim_once(store: Any, n: int, name: str, barrier: Any) -> str:
    """Claim round ``n``'s pause as soon as the other process is ready to.

    Say whether this one won, or what it lost to.
    """
    run = store.get_run(f"run-{n}")
    barrier.wait(timeout=30)
    try:
        claim(
            store,
            f"pause-{n}",
            {"by": name},
            run.replace(status="running"),
            expected_version=0,
            events=said(name, run.thread),
        )
    except StorageError as exc:
        return type(exc).__name__
    return "won"


def test_two_processes_racing_a_claim_have_exactly_one_winner(opened: Opened, table: str, moto_endpoint: str) -> None:
    for n in range(ROUNDS):
        waiting_run(opened.store, n)
    results = in_two_processes(_claim_each_round, ROUNDS, opened.store.url, ROUNDS)
    for n in range(ROUNDS):
        outcomes = {name: outcome for number, name, outcome in results if number == n}
        [winner] = [name for name, outcome in outcomes.items() if outcome == "won"]
        assert len(outcomes) == 2 and set(outcomes.values()) - {"won"} <= {"PauseClosed", "VersionConflict"}
        assert present(opened.store.get_pause(f"pause-{n}")).answer == {"by": winner}
        assert present(opened.store.get_run(f"run-{n}")).version == 1
        assert [body["what"] for _, body in opened.store.events(f"thread-{n}")] == [winner]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_endpoint_is_unavailable_and_names_the_table(
    fake_aws: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    store = DynamoStorage("runs-table", region=REGION, endpoint=f"http://127.0.0.1:{_free_port()}")
    for attempt in (store.setup, lambda: store.get_run("run-1"), lambda: append_event(store, "thread-a", {})):
        with pytest.raises(StorageUnavailable, match="runs-table") as refused:
            attempt()
        assert "testing" not in str(refused.value) and refused.value.__cause__ is not None
    store.close()


def test_a_missing_table_on_aws_says_to_deploy_the_template(opened: Opened) -> None:
    missing = DynamoStorage("no-such-table", region=REGION, client=opened.client)
    with pytest.raises(StorageUnavailable, match=r"no-such-table .*template\.yaml"):
        missing.setup()
    with pytest.raises(StorageUnavailable, match="no-such-table"):
        missing.get_run("run-1")


def test_no_item_grows_with_the_run(opened: Opened, table: str) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, state={"plan": ["x" * 100] * 5}))
    arguments = {"to": "ana@example.com", "body": "y" * 300}
    for batch in range(20):
        entries = [JournalEntry(run.id, f"call-{batch}-{n}", "send_mail", arguments, "started") for n in range(10)]
        events = [Event(run.thread, {"type": "step", "n": batch * 25 + n, "text": "z" * 200}) for n in range(25)]
        run = present(store.commit(Changes(run=run, version=run.version, starts=entries, events=events)).run)
    store.commit(
        Changes(
            updates=[
                (entry.replace(status="done", result={"ok": True}), "started", None)
                for entry in store.journal(run.id)[:90]
            ]
        )
    )
    items = [item for page in opened.client.get_paginator("scan").paginate(TableName=table) for item in page["Items"]]
    assert len(items) == 1 + 1 + 200 + 500
    assert max(len(json.dumps(item)) for item in items) < 2048
    assert [e.key for e in store.journal(run.id)][:11] == [f"call-0-{n}" for n in range(10)] + ["call-1-0"]
    assert [event_id for event_id, _ in store.events(run.thread)] == list(range(1, 501))
    assert [event_id for event_id, _ in store.events(run.thread, after=450, limit=1000)] == list(range(451, 501))


def test_a_commit_over_a_hundred_items_is_refused_and_writes_nothing(opened: Opened) -> None:
    with pytest.raises(ValueTooLarge, match="would write 101 items; DynamoDB takes at most 100"):
        opened.store.commit(Changes(events=[Event("thread-a", {"n": n}) for n in range(100)]))
    assert opened.store.events("thread-a") == []


# sizes, by DynamoDB's documented rules


def test_an_item_is_measured_by_dynamodbs_rules() -> None:
    assert item_size({"pk": {"S": "T#a"}, "é": {"S": "ü"}}) == 2 + 3 + 2 + 2
    numbers = {
        text: item_size({"n": {"N": text}}) - 1
        for text in ("7", "12", "123", "1000", "-0.0012", "12345678901234567890123456789012345678")
    }
    assert numbers == {"7": 2, "12": 2, "123": 3, "1000": 2, "-0.0012": 2, "12345678901234567890123456789012345678": 20}
    assert item_size({"m": {"M": {"ab": {"S": "c"}}}, "l": {"L": [{"BOOL": True}, {"NULL": True}]}}) == (
        1 + 3 + 1 + 2 + 1
    ) + (1 + 3 + 2 * 2)


def test_an_item_of_exactly_400_kb_fits_and_one_byte_more_is_refused_naming_it() -> None:
    check_item("the run run-1", ITEM_LIMIT)
    with pytest.raises(
        ValueTooLarge, match=f"the run run-1 would take {ITEM_LIMIT + 1:,} bytes .* limit of {ITEM_LIMIT:,}"
    ):
        check_item("the run run-1", ITEM_LIMIT + 1)
    half = TRANSACTION_LIMIT // 2
    check_transaction([("an event", half), ("the run run-1", half)])
    with pytest.raises(
        ValueTooLarge,
        match=f"{TRANSACTION_LIMIT + 1:,} bytes, over .* the largest is the run run-1, {half + 1:,} bytes",
    ):
        check_transaction([("an event", half), ("the run run-1", half + 1)])


def a_big_start(run: RunRecord, key: str, length: int) -> Changes:
    return Changes(starts=[JournalEntry(run.id, key, "send_mail", {"body": "x" * length}, "started")])


def size_of_a_big_start(store: DynamoStorage, run: RunRecord) -> tuple[int, int]:
    """How long an argument makes a journal entry (of a key as long as call-N) of exactly 400 KB: measured by the
    store's own refusal."""
    with pytest.raises(ValueTooLarge) as refused:
        store.commit(a_big_start(run, "call-0", ITEM_LIMIT))
    over = int(str(refused.value).split(" would take ")[1].split(" bytes")[0].replace(",", ""))
    return ITEM_LIMIT - (over - ITEM_LIMIT), over


def test_a_journal_entry_just_under_400_kb_is_stored_and_just_over_is_refused_before_sending(opened: Opened) -> None:
    """Within a few bytes of the limit: a journal entry's numbers (when it started, when it expires) take one byte
    more or less by their digits, so the exact byte is held by the item-level test above."""
    store = opened.store
    run = begin_run(store, a_run(1))
    fitting, _ = size_of_a_big_start(store, run)
    store.commit(a_big_start(run, "call-1", fitting - 8))
    assert len(store.journal(run.id)[0].arguments["body"]) == fitting - 8
    opened.calls.clear()
    with pytest.raises(
        ValueTooLarge, match=r"the journal entry of send_mail \(call call-2\) in run run-1 would take 409,6\d\d bytes"
    ) as refused:
        store.commit(a_big_start(run, "call-2", fitting + 8))
    assert (
        opened.calls == []
        and refused.value.status == 413
        and [entry.key for entry in store.journal(run.id)] == ["call-1"]
    )


def test_a_commit_over_4_mb_is_refused_naming_its_largest_item_and_writes_nothing(opened: Opened) -> None:
    store = opened.store
    run = begin_run(store, a_run(1))
    fitting, _ = size_of_a_big_start(store, run)
    entries = [
        JournalEntry(run.id, f"call-{n}", "send_mail", {"body": "x" * (fitting - 100)}, "started") for n in range(11)
    ]
    opened.calls.clear()
    with pytest.raises(
        ValueTooLarge, match=r"a commit of 11 items would take [\d,]+ bytes, over DynamoDB's limit of 4,194,304"
    ):
        store.commit(Changes(starts=entries))
    assert opened.calls == [] and store.journal(run.id) == []


# retention


def stored_items(opened: Opened, table: str) -> dict[tuple[str, str], dict[str, Any]]:
    pages = opened.client.get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
    return {(item["pk"]["S"], item["sk"]["S"]): item for page in pages for item in page["Items"]}


def test_every_item_but_a_secret_expires_a_retention_after_it_was_written(opened: Opened, table: str) -> None:
    store = opened.store
    store.clock = lambda: 1_000_000.0
    store.own("thread-a", "ana")
    store.commit(pausing_turn(a_run(1)))
    store.commit(Changes(shown=[ShownMessage("m-1", "digest", "thread-a", "Sent?", 1.0)]))
    store.rate_message(Feedback("m-1", "Sent?", "up", 2.0))
    store.secret("session", "s3cret")
    items = stored_items(opened, table)
    assert {key[0][:2] for key in items} == {"T#", "R#", "I#", "M#", "F#", "K#"}  # I#: the pause's inbox listings
    for key, item in items.items():
        assert item.get(TTL_ATTRIBUTE) == (
            None if key[0].startswith("K#") else {"N": str(int(1_000_000 + store.retention))}
        ), key


def test_a_thread_is_in_the_live_index_while_it_has_an_active_run(opened: Opened, table: str) -> None:
    store = opened.store
    store.commit(pausing_turn(a_run(1)))
    live = opened.client.query(
        TableName=table,
        IndexName="live",
        KeyConditionExpression="live = :s",
        ExpressionAttributeValues={":s": stored_items(opened, table)[("T#thread-a", "THREAD")]["live"]},
    )
    assert [(item["pk"]["S"], item["active_run"]["S"]) for item in live["Items"]] == [("T#thread-a", "run-1")]
    store.commit(Changes(run=a_run(1, status="done"), version=0, events=said("done")))
    assert "live" not in stored_items(opened, table)[("T#thread-a", "THREAD")]


def test_the_owner_is_kept_on_the_thread_and_an_owner_kept_before_is_still_honoured(opened: Opened, table: str) -> None:
    store = opened.store
    assert opened.calls_of(lambda: store.own("thread-a", "ana")) == ["UpdateItem"]
    store.clock = lambda: 2_000_000.0
    store.commit(pausing_turn(a_run(1)))
    thread = stored_items(opened, table)[("T#thread-a", "THREAD")]
    assert thread["owner"] == {"S": "ana"} and thread[TTL_ATTRIBUTE] == {"N": str(int(2_000_000 + store.retention))}
    assert store.own("thread-a", "bo") == "ana" and store.owner("thread-a") == "ana"
    begin_run(store, a_run(2, thread="thread-old", status="done"))
    opened.client.put_item(
        TableName=table, Item={"pk": {"S": "T#thread-old"}, "sk": {"S": "OWNER"}, "value": {"S": "cy"}}
    )
    assert store.owner("thread-old") == "cy"
    assert store.own("thread-old", "bo") == "cy" and store.owner("thread-old") == "cy"


def expiring(opened: Opened, table: str, now: float) -> set[tuple[str, str]]:
    return {key for key, item in stored_items(opened, table).items() if float(item[TTL_ATTRIBUTE]["N"]) <= now}


def test_prune_keeps_an_old_item_of_a_waiting_thread_written_to_since(opened: Opened, table: str) -> None:
    store = opened.store
    store.clock = lambda: 1_000_000.0
    store.commit(pausing_turn(a_run(1)))
    store.clock = lambda: 1_000_000.0 + store.retention * 0.9
    append_event(store, "thread-a", {"type": "answer", "outcome": "refused"})
    now = 1_000_000.0 + store.retention * 0.9
    soon = expiring(opened, table, 1_000_000.0 + store.retention)
    assert ("R#run-1", "P#pause-run-1") in soon and ("T#thread-a", "THREAD") not in soon
    pruned = store.prune(now)
    assert pruned.kept == len(soon) and expiring(opened, table, now + store.retention / 2) == set()


def test_a_delivery_claim_is_one_conditional_write(opened: Opened) -> None:
    store = opened.store
    store.commit(pausing_turn(a_run(1)))
    assert opened.calls_of(lambda: store.claim_delivery("run-1", "pause-run-1", 100.0, 60.0)) == ["UpdateItem"]


def test_the_url_names_the_table_and_opens_it_again(opened: Opened, table: str, moto_endpoint: str) -> None:
    waiting_run(opened.store, 1)
    assert opened.store.url == f"dynamodb://{table}?region={REGION}&endpoint={moto_endpoint}"
    again = open_storage(opened.store.url)
    try:
        assert again.get_run("run-1") == opened.store.get_run("run-1")
    finally:
        again.close()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("dynamodb://ab?region=eu-west-1", "is dynamodb://TABLE?region=REGION"),
        ("dynamodb://runs-table", "needs its region: dynamodb://runs-table?region=eu-west-1"),
        ("dynamodb://runs-table/x?region=eu-west-1", "is dynamodb://TABLE?region=REGION"),
        ("dynamodb://runs-table?region=eu-west-1&profile=me", "takes region= and endpoint=, not profile="),
        ("dynamodb://runs-table?region=eu-west-1&endpoint=localhost:8000", "an http:// or https:// URL"),
    ],
)
def test_a_wrong_dynamodb_url_says_what_is_wrong(url: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("?", r"\?")):
        check_url(url)
    with pytest.raises(ConfigError, match="storage"):
        open_storage(url)


# expiry: TTL deletes an expired item days later, one at a time, so until then every read treats it as gone


def expire(opened: Opened, table: str, *partitions: str, only: set[str] | None = None) -> None:
    """Time passing, for the items of ``partitions`` (those of sort key in ``only``, where given): their ``expires``
    a second ago, and TTL not yet come to delete them."""
    past = {":past": {"N": str(int(opened.store.clock()) - 1)}}
    for pk, sk in stored_items(opened, table):
        if pk in partitions and (only is None or sk in only):
            key = {"pk": {"S": pk}, "sk": {"S": sk}}
            opened.client.update_item(
                TableName=table, Key=key, UpdateExpression="SET expires = :past", ExpressionAttributeValues=past
            )


def bodies(store: DynamoStorage, thread: str = "thread-a", after: int = 0, limit: int = 1000) -> list[tuple[int, str]]:
    return [(event_id, body["what"]) for event_id, body in store.events(thread, after, limit)]


def an_expired_thread_of_anas(opened: Opened, table: str) -> RunRecord:
    """Ana's thread-a, waiting on her approval of a mail, all of it expired."""
    opened.store.own("thread-a", "ana")
    run = present(opened.store.commit(pausing_turn(a_run(1))).run)
    expire(opened, table, "T#thread-a", "R#run-1")
    return run


def test_an_expired_thread_is_invisible_to_every_read(opened: Opened, table: str, moto_endpoint: str) -> None:
    run = an_expired_thread_of_anas(opened, table)
    expired = stored_items(opened, table)
    for store in (opened.store, Opened(table, moto_endpoint).store):
        assert store.owner("thread-a") is None and store.last_run("thread-a") is None
        assert store.active_run("thread-a") is None
        assert store.events("thread-a") == [] and store.get_pause("pause-run-1") is None
        assert store.snapshot("run-1") is None and store.get_run("run-1") is None
        assert store.journal("run-1") == [] and store.run_pauses("run-1") == []
    with pytest.raises(PauseClosed, match="pause pause-run-1 does not exist"):
        answer = Changes(claim=("pause-run-1", {"ok": True}), run=run.replace(status="running"), version=run.version)
        opened.store.commit(answer)
    assert not opened.store.claim_delivery("run-1", "pause-run-1", opened.store.clock(), 60.0)
    assert opened.store.prune(opened.store.clock()).kept == 0
    assert stored_items(opened, table) == expired


def test_a_new_person_claiming_an_expired_thread_owns_a_new_thread_and_sees_nothing_old(
    opened: Opened, table: str, moto_endpoint: str
) -> None:
    an_expired_thread_of_anas(opened, table)
    bo = Opened(table, moto_endpoint)
    assert bo.calls_of(lambda: bo.store.own("thread-a", "bo")) == ["UpdateItem", "UpdateItem"]
    assert bo.store.owner("thread-a") == "bo" and opened.store.own("thread-a", "ana") == "bo"
    assert bo.store.active_run("thread-a") is None and bo.store.last_run("thread-a") is None
    assert bodies(bo.store) == []
    bos = bo.store.commit(pausing_turn(a_run(2)))
    assert (
        present(bo.store.active_run("thread-a")).id == "run-2" and present(bo.store.last_run("thread-a")).id == "run-2"
    )
    assert bos.event_ids == [3, 4]  # after the old thread's, which are never written over
    assert bodies(bo.store) == [(3, "turn"), (4, "paused")] and bodies(opened.store, after=3) == [(4, "paused")]


def test_a_writer_remembering_the_expired_thread_begins_it_anew(opened: Opened, table: str) -> None:
    """The store that wrote the old thread remembers its counter and its run; its next commit meets the expired item."""
    an_expired_thread_of_anas(opened, table)
    committed = opened.store.commit(pausing_turn(a_run(2)))
    assert opened.store.owner("thread-a") is None and present(opened.store.active_run("thread-a")).id == "run-2"
    assert bodies(opened.store) == [(committed.event_ids[0], "turn"), (committed.event_ids[1], "paused")]
    thread = stored_items(opened, table)[("T#thread-a", "THREAD")]
    assert "owner" not in thread and float(thread[TTL_ATTRIBUTE]["N"]) > opened.store.clock()
    assert opened.store.own("thread-a", "bo") == "bo"


def test_a_live_thread_shows_its_unexpired_events_past_its_expired_ones(opened: Opened, table: str) -> None:
    store = opened.store
    for n in range(1, 7):
        append_event(store, "thread-a", {"what": f"e{n}"})
    expire(opened, table, "T#thread-a", only={f"E#{n:012d}" for n in (1, 2, 3, 5)})
    key = {"pk": {"S": "T#thread-a"}, "sk": {"S": "E#000000000004"}}
    opened.client.update_item(TableName=table, Key=key, UpdateExpression="REMOVE expires")  # written before retention
    assert bodies(store) == [(4, "e4"), (6, "e6")]
    assert bodies(store, limit=1) == [(4, "e4")] and bodies(store, after=4, limit=1) == [(6, "e6")]
    assert bodies(store, limit=2) == [(4, "e4"), (6, "e6")] and bodies(store, after=6) == []
    assert append_event(store, "thread-a", {"what": "e7"}) == 7
    assert bodies(store, after=4) == [(6, "e6"), (7, "e7")]


def test_prune_keeps_the_journal_a_waiting_rollback_undoes(opened: Opened, table: str) -> None:
    store = opened.store
    store.clock = lambda: 1_000_000.0
    done = begin_run(store, a_run(1, status="done"))
    store.commit(Changes(starts=[JournalEntry(done.id, "call-1", "charge", {"amount": 40}, "done")]))
    saga = {"saga": {"reason": "operator", "target": done.id}}
    store.commit(pausing_turn(a_run(2, state=saga)))
    now = 1_000_000.0 + store.retention * 0.9
    assert ("R#run-1", "J#call-1") in expiring(opened, table, now + store.retention / 2)
    store.prune(now)
    assert expiring(opened, table, now + store.retention / 2) == set()
    store.clock = lambda: 1_000_000.0 + store.retention * 1.2
    assert [entry.key for entry in store.journal("run-1")] == ["call-1"]


def test_prune_on_its_schedule_keeps_a_waiting_thread_and_never_brings_back_what_expired(
    opened: Opened, table: str
) -> None:
    store = opened.store
    store.clock = lambda: 1_000_000.0
    store.commit(pausing_turn(a_run(1)))
    store.commit(pausing_turn(a_run(2, thread="thread-b")))
    expire(opened, table, "T#thread-b", "R#run-2")
    for step in range(1, 26):
        store.prune(1_000_000.0 + step * store.retention * 0.4)
    store.clock = lambda: 1_000_000.0 + 10 * store.retention
    assert present(store.active_run("thread-a")).id == "run-1"
    assert [pause.status for pause in store.run_pauses("run-1")] == ["open"]
    assert [what for _, what in bodies(store)] == ["turn", "paused"]
    assert store.active_run("thread-b") is None and store.snapshot("run-2") is None


def test_a_begin_honours_an_owner_kept_before_and_owns_a_thread_begun_without_one(opened: Opened, table: str) -> None:
    store = opened.store
    begin_run(store, a_run(1, thread="thread-old", status="done"))
    opened.client.put_item(
        TableName=table, Item={"pk": {"S": "T#thread-old"}, "sk": {"S": "OWNER"}, "value": {"S": "cy"}}
    )
    with pytest.raises(NotFound):
        store.commit(Changes(begin=a_run(2, thread="thread-old", status="done"), owner="bo"))
    assert store.get_run("run-2") is None and present(store.last_run("thread-old")).id == "run-1"
    store.commit(Changes(begin=a_run(2, thread="thread-old", status="done"), owner="cy"))
    assert stored_items(opened, table)[("T#thread-old", "THREAD")]["owner"] == {"S": "cy"}
    begin_run(store, a_run(3, thread="thread-py", status="done"))
    assert opened.calls_of(lambda: store.commit(Changes(begin=a_run(4, thread="thread-py"), owner="bo"))) == [
        "TransactWriteItems",
        "GetItem",
        "TransactWriteItems",
    ]
    assert store.owner("thread-py") == "bo" and present(store.active_run("thread-py")).id == "run-4"
    assert opened.calls_of(
        lambda: store.commit(Changes(run=a_run(4, thread="thread-py", status="done"), version=0))
    ) == ["TransactWriteItems"]
    assert opened.calls_of(lambda: store.commit(Changes(begin=a_run(5, thread="thread-py"), owner="bo"))) == [
        "TransactWriteItems"
    ]


# deadlines: the wake index


def wake_index(opened: Opened, table: str) -> list[tuple[str, float]]:
    """Every pause the sparse wake index lists, read as the index holds it, by (wake_at, pause)."""
    listed = [
        (item["sk"]["S"][2:], float(item["wake_at"]["N"]))
        for shard in range(WAKE_SHARDS)
        for item in opened.client.query(
            TableName=table,
            IndexName="wake",
            KeyConditionExpression="#w = :s",
            ExpressionAttributeNames={"#w": "wake"},
            ExpressionAttributeValues={":s": {"S": f"{shard:02d}"}},
        )["Items"]
    ]
    return sorted(listed, key=lambda entry: (entry[1], entry[0]))


def a_pause_of(run: RunRecord, n: int, **fields: Any) -> PauseRecord:
    return PauseRecord(f"pause-{n}", run.id, run.thread, "approve", 1, "tok", {"question": "send?"}, **fields)


def test_the_wake_index_holds_open_pauses_with_a_wake_alone(opened: Opened, table: str) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    pauses = [a_pause_of(run, n, wake_at=float(n), created_at=float(n)) for n in (1, 2, 3, 4)]
    store.commit(Changes(pauses=[*pauses, a_pause_of(run, 5), a_pause_of(run, 6, wake_at=1.0, status="answered")]))
    assert wake_index(opened, table) == [("pause-1", 1.0), ("pause-2", 2.0), ("pause-3", 3.0), ("pause-4", 4.0)]
    assert store.claim_wake("run-1", "pause-1", 0, 10.0, 40.0)
    assert store.set_wake("run-1", "pause-2", 0, (1, None))
    run = claim(store, "pause-3", {"decision": "approve"}, run, expected_version=run.version)
    store.commit(Changes(run=run.replace(status="done"), version=run.version, closes=store.run_pauses("run-1")))
    assert wake_index(opened, table) == []
    assert sorted((p.id, p.status, p.wake_at) for p in store.run_pauses("run-1")) == [
        ("pause-1", "closed", None),
        ("pause-2", "closed", None),
        ("pause-3", "answered", None),
        ("pause-4", "closed", None),
        ("pause-5", "closed", None),
        ("pause-6", "answered", 1.0),
    ]
    for key, item in stored_items(opened, table).items():
        assert not {"wake", "inbox", "opened"} & item.keys(), key


def test_due_pauses_reads_the_wake_index_and_the_due_pauses_alone(opened: Opened) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, n, wake_at=float(n)) for n in range(30)]))
    calls = opened.calls_of(lambda: store.due_pauses(10.0, limit=5))
    assert calls == ["Query"] * WAKE_SHARDS + ["BatchGetItem"]
    assert [p.id for p in store.due_pauses(10.0, limit=5)] == [f"pause-{n}" for n in range(5)]
    assert [p.id for p in store.due_pauses(2.5)] == ["pause-0", "pause-1", "pause-2"]
    assert opened.calls_of(lambda: store.due_pauses(10.0, limit=0)) == []


def test_a_pause_the_index_still_lists_once_answered_is_left_out_by_its_consistent_read(
    opened: Opened, table: str
) -> None:
    """The index is eventually consistent: what it lists is read again by key, and kept only where still due."""
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, n, wake_at=float(n)) for n in (1, 2)]))
    store.commit(Changes(claim=("pause-1", {"ok": True}), run=run, version=run.version))
    # the index as a replica that has not yet seen the answer holds it
    opened.client.update_item(
        TableName=table,
        Key={"pk": {"S": "R#run-1"}, "sk": {"S": "P#pause-1"}},
        UpdateExpression="SET wake = :s, wake_at = :w",
        ExpressionAttributeValues={":s": {"S": "00"}, ":w": {"N": "1"}},
    )
    assert [entry[0] for entry in wake_index(opened, table)] == ["pause-1", "pause-2"]
    assert [p.id for p in store.due_pauses(10.0)] == ["pause-2"]


def test_an_expired_pause_is_never_due_and_does_not_hold_up_the_rest(opened: Opened, table: str) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, n, wake_at=float(n)) for n in range(1, 6)]))
    expire(opened, table, "R#run-1", only={"P#pause-1", "P#pause-2", "P#pause-3"})
    assert [p.id for p in store.due_pauses(10.0, limit=2)] == ["pause-4", "pause-5"]
    assert not store.claim_wake("run-1", "pause-1", 0, 10.0, 40.0)
    assert not store.set_wake("run-1", "pause-1", 0, (1, 20.0))


def test_a_pause_stored_before_deadlines_is_at_its_first_event(opened: Opened, table: str) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, 1)]))
    opened.client.update_item(
        TableName=table, Key={"pk": {"S": "R#run-1"}, "sk": {"S": "P#pause-1"}}, UpdateExpression="REMOVE woken"
    )
    assert present(store.get_pause("pause-1")).woken == 0
    assert not store.claim_wake("run-1", "pause-1", 0, 10.0, 40.0)  # nothing due
    assert store.set_wake("run-1", "pause-1", 0, (0, 5.0))
    assert wake_index(opened, table) == [("pause-1", 5.0)]
    assert store.claim_wake("run-1", "pause-1", 0, 10.0, 40.0)
    assert opened.calls_of(lambda: store.set_wake("run-1", "pause-1", 0, (1, 60.0))) == ["UpdateItem"]
    assert wake_index(opened, table) == [("pause-1", 60.0)]


def test_a_close_of_a_pause_answered_since_it_was_read_leaves_it_answered(opened: Opened) -> None:
    """Closing where still open: a close that finds its pause answered costs one retry, never the commit."""
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, 1, wake_at=1.0), a_pause_of(run, 2, wake_at=2.0)]))
    read = store.run_pauses("run-1")
    store.commit(Changes(claim=("pause-1", {"ok": True})))
    finish = Changes(run=run.replace(status="done"), version=run.version, closes=read)
    assert opened.calls_of(lambda: store.commit(finish)) == ["TransactWriteItems", "TransactWriteItems"]
    assert [(p.id, p.status) for p in store.run_pauses("run-1")] == [("pause-1", "answered"), ("pause-2", "closed")]
    assert present(store.get_run("run-1")).status == "done"


def test_a_pause_answered_or_put_in_the_commit_that_closes_it_is_written_once(opened: Opened) -> None:
    store = opened.store
    run = begin_run(store, a_run(1, status="waiting"))
    store.commit(Changes(pauses=[a_pause_of(run, 1, wake_at=1.0)]))
    [open_one] = store.run_pauses("run-1")
    new = a_pause_of(run, 2, wake_at=2.0)
    done = run.replace(status="done")
    answer = Changes(
        claim=("pause-1", {"ok": True}), run=done, version=run.version, pauses=[new], closes=[open_one, new]
    )
    assert opened.calls_of(lambda: store.commit(answer)) == ["TransactWriteItems"]
    assert [(p.id, p.status) for p in store.run_pauses("run-1")] == [("pause-1", "answered"), ("pause-2", "closed")]
    assert store.due_pauses(1e12) == [] and store.inbox() == []
