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

from stalwart_agents.errors import ConfigError, StorageError, StorageUnavailable  # noqa: E402
from stalwart_agents.storage import Changes, Event, JournalEntry, PauseRecord, RunRecord, check_url, open_storage  # noqa: E402
from stalwart_agents.storage.dynamodb import DynamoStorage  # noqa: E402
from stalwart_agents.storage.dynamodb_schema import TABLE, TTL_ATTRIBUTE  # noqa: E402

from .conftest import REGION  # noqa: E402
from .test_sqlite import in_two_processes, waiting_run  # noqa: E402
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
    return Changes(begin=run.replace(status="waiting"), pauses=[pause], starts=[entry], events=said("turn") + said("paused"))


def test_setup_creates_the_table_template_yaml_describes(opened: Opened, table: str) -> None:
    described = opened.client.describe_table(TableName=table)["Table"]
    assert described["KeySchema"] == TABLE["KeySchema"]
    assert sorted(described["AttributeDefinitions"], key=str) == sorted(TABLE["AttributeDefinitions"], key=str)
    indexes = [{name: index[name] for name in ("IndexName", "KeySchema", "Projection")} for index in described["GlobalSecondaryIndexes"]]
    assert indexes == TABLE["GlobalSecondaryIndexes"]
    assert described["StreamSpecification"] == TABLE["StreamSpecification"]
    assert described["BillingModeSummary"]["BillingMode"] == TABLE["BillingMode"]
    ttl = opened.client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", TTL_ATTRIBUTE)


def test_a_pausing_turn_is_one_request_on_a_new_thread_and_after_reading_an_old_one(opened: Opened, table: str, moto_endpoint: str) -> None:
    assert opened.calls_of(lambda: opened.store.commit(pausing_turn(a_run(1)))) == ["TransactWriteItems"]
    opened.store.commit(Changes(run=a_run(1, status="done"), version=0, events=said("done")))
    cold = Opened(table, moto_endpoint)
    assert cold.calls_of(lambda: cold.store.active_run("thread-a")) == ["GetItem"]
    committed: list[Any] = []
    assert cold.calls_of(lambda: committed.append(cold.store.commit(pausing_turn(a_run(2))))) == ["TransactWriteItems"]
    assert committed[0].event_ids == [4, 5]


def test_a_claim_is_one_request_after_the_snapshot_it_was_read_from(opened: Opened, table: str, moto_endpoint: str) -> None:
    opened.store.commit(pausing_turn(a_run(1)))
    cold = Opened(table, moto_endpoint)
    snapshot = cold.store.snapshot("run-1")
    assert [p.status for p in snapshot.pauses] == ["open"] and [e.key for e in snapshot.journal] == ["call-1"]
    claim = Changes(claim=("pause-run-1", {"ok": True}), run=snapshot.run.replace(status="running"), version=0, events=said("claimed"))
    committed: list[Any] = []
    assert cold.calls_of(lambda: committed.append(cold.store.commit(claim))) == ["TransactWriteItems"]
    assert committed[0].event_ids == [3] and committed[0].run.version == 1


def test_a_stale_event_counter_costs_one_retry_and_ids_still_rise(opened: Opened, table: str, moto_endpoint: str) -> None:
    other = Opened(table, moto_endpoint)
    first = append_event(opened.store, "thread-a", {"n": 0})
    assert other.store.active_run("thread-a") is None
    moved = [append_event(opened.store, "thread-a", {"n": n}) for n in (1, 2, 3)]
    late: list[int] = []
    assert other.calls_of(lambda: late.append(append_event(other.store, "thread-a", {"n": 4}))) == ["TransactWriteItems"] * 2
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
    assert saved.thread == "thread-a" and store.active_run("thread-a").id == "run-3"
    assert store.get_pause("pause-b").answer == {"ok": True} and store.get_run("run-2").version == 0
    assert store.snapshot("run-1").run == saved


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
    """Claim round ``n``'s pause as soon as the other process is ready to; say whether this one won, or what it lost to."""
    run = store.get_run(f"run-{n}")
    barrier.wait(timeout=30)
    try:
        claim(store, f"pause-{n}", {"by": name}, run.replace(status="running"), expected_version=0, events=said(name, run.thread))
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
        assert opened.store.get_pause(f"pause-{n}").answer == {"by": winner}
        assert opened.store.get_run(f"run-{n}").version == 1
        assert [body["what"] for _, body in opened.store.events(f"thread-{n}")] == [winner]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_endpoint_is_unavailable_and_names_the_table(fake_aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    store = DynamoStorage("runs-table", region=REGION, endpoint=f"http://127.0.0.1:{_free_port()}")
    for attempt in (store.setup, lambda: store.get_run("run-1"), lambda: append_event(store, "thread-a", {})):
        with pytest.raises(StorageUnavailable, match="runs-table") as refused:
            attempt()
        assert "testing" not in str(refused.value) and refused.value.__cause__ is not None
    store.close()


def test_a_missing_table_on_aws_says_to_deploy_the_template(opened: Opened) -> None:
    missing = DynamoStorage("no-such-table", region=REGION, client=opened.client)
    with pytest.raises(StorageUnavailable, match="no-such-table .*template.yaml"):
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
        run = store.commit(Changes(run=run, version=run.version, starts=entries, events=events)).run
    store.commit(Changes(updates=[(entry.replace(status="done", result={"ok": True}), "started", None) for entry in store.journal(run.id)[:90]]))
    items = [item for page in opened.client.get_paginator("scan").paginate(TableName=table) for item in page["Items"]]
    assert len(items) == 1 + 1 + 200 + 500
    assert max(len(json.dumps(item)) for item in items) < 2048
    assert [e.key for e in store.journal(run.id)][:11] == [f"call-0-{n}" for n in range(10)] + ["call-1-0"]
    assert [event_id for event_id, _ in store.events(run.thread)] == list(range(1, 501))
    assert [event_id for event_id, _ in store.events(run.thread, after=450, limit=1000)] == list(range(451, 501))


def test_a_commit_over_a_hundred_items_is_refused_and_writes_nothing(opened: Opened) -> None:
    with pytest.raises(StorageError, match="at most 100 items"):
        opened.store.commit(Changes(events=[Event("thread-a", {"n": n}) for n in range(100)]))
    assert opened.store.events("thread-a") == []


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
