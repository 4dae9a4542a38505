"""How each backend reads the inbox: by an index of the open pauses, never a scan of every pause.

SQLite and Postgres are asked for their plans (EXPLAIN) of every inbox statement over a store where most
pauses are answered, as in a store that has run for a while; DynamoDB's requests are recorded at boto3.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents.storage import Changes, PauseRecord, RunRecord, Storage, open_storage
from stalwart_agents.storage._sql import INBOX
from stalwart_agents.storage.base import ANYONE
from stalwart_agents.storage.dynamodb_items import LISTING_SHARDS, listing_partition
from stalwart_agents.storage.sqlite import SQLITE

from .writes import begin_run

FLAGS = list(itertools.product((False, True), repeat=3))
"""Each combination of (before, kind, tool) an inbox read may be given."""
PARAMS = {"at": 500.0, "id": "p-0-0", "kind": "ask", "tool": "charge_card", "limit": 50}
KINDS, TOOLS = ("confirm", "ask", "outcome_unknown"), ("charge_card", "send_mail", "refund")


def crowded(store: Storage, threads: int = 60, answered: int = 40, open: int = 4) -> None:
    """Threads whose runs have opened many pauses, most long answered, a few open, of several kinds and tools."""
    for t in range(threads):
        run = begin_run(store, RunRecord(f"r-{t}", f"thread-{t}", "helper", "waiting"))
        if t % 2:
            store.own(run.thread, f"iss|{t}")
        pauses = [
            PauseRecord(
                f"p-{t}-{n}",
                run.id,
                run.thread,
                KINDS[n % len(KINDS)],
                n,
                "tok",
                {"tool": TOOLS[(t + n) % len(TOOLS)]},
                status="open" if n >= answered else "answered",
                created_at=float(t * 100 + n),
            )
            for n in range(answered + open)
        ]
        store.commit(Changes(pauses=pauses))


def test_sqlite_reads_the_inbox_by_an_index_of_open_pauses(tmp_path: Path) -> None:
    store = open_storage(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        crowded(store)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "runs.db") as db:
        db.execute("ANALYZE")
        for flags in FLAGS:
            plan = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + SQLITE.render(INBOX[flags]), PARAMS)]
            [pauses] = [step for step in plan if step.split()[1] == "p"]
            assert " USING INDEX pauses_open" in pauses, (flags, plan)
            assert not any("TEMP B-TREE" in step for step in plan), (flags, plan)  # read in order: no sort


PAUSE_INDEXES = {"pauses_pkey", "pauses_by_run", "pauses_due", "pauses_unannounced", "pauses_open"}
PAUSE_INDEXES |= {"pauses_open_by_kind", "pauses_open_by_tool"}


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(node for child in plan.get("Plans", []) for node in nodes(child))]


def test_postgres_reads_the_inbox_by_an_index_of_open_pauses(postgres_url: str) -> None:
    """Where few pauses match, Postgres may read them by the index as a bitmap and sort them: still no scan."""
    psycopg = pytest.importorskip("psycopg")
    from stalwart_agents.storage.postgres import POSTGRES

    store = open_storage(postgres_url)
    try:
        crowded(store)
    finally:
        store.close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("ANALYZE")
        for flags in FLAGS:
            [[explained]] = db.execute("EXPLAIN (FORMAT JSON) " + POSTGRES.render(INBOX[flags]), PARAMS).fetchall()
            steps = nodes(explained[0]["Plan"])
            assert not any(step.get("Relation Name") == "pauses" and "Seq Scan" in step["Node Type"] for step in steps)
            indexes = PAUSE_INDEXES & {step.get("Index Name") for step in steps}
            assert indexes and all(name.startswith("pauses_open") for name in indexes), (flags, steps)


@pytest.fixture
def dynamodb(moto_endpoint: str, fake_aws: None) -> Any:
    boto3 = pytest.importorskip("boto3")
    from stalwart_agents.storage.dynamodb import DynamoStorage

    from ..conftest import REGION

    client = boto3.client("dynamodb", region_name=REGION, endpoint_url=moto_endpoint)
    store = DynamoStorage(f"t-{uuid.uuid4().hex}", region=REGION, endpoint=moto_endpoint, client=client)
    store.setup()
    yield store
    store.close()


def sent(store: Any, read: Any) -> list[tuple[str, dict[str, Any]]]:
    """The requests ``read()`` sends to DynamoDB, each (operation, parameters), as boto3 is given them."""
    requests: list[tuple[str, dict[str, Any]]] = []
    hook = "provide-client-params.dynamodb"
    record = lambda params, model, **_: requests.append((model.name, params))  # noqa: E731
    store.client.meta.events.register(hook, record)
    try:
        read()
    finally:
        store.client.meta.events.unregister(hook, record)
    return requests


def test_dynamodb_reads_the_inbox_by_querying_the_readers_listings_never_scanning(dynamodb: Any) -> None:
    """Each shard of each of the reader's parties is queried newest first (and the old index, for pauses opened
    before listings), then the pauses, and their runs and threads, by BatchGetItem."""
    crowded(dynamodb, threads=12, answered=6, open=3)
    pages: list[Any] = []
    first = sent(dynamodb, lambda: pages.append(dynamodb.inbox(limit=10)))
    queries = [params for operation, params in first if operation == "Query"]
    partitions = {listing_partition(ANYONE, shard) for shard in range(LISTING_SHARDS)}
    listed = [query for query in queries if "IndexName" not in query]
    assert {query["ExpressionAttributeValues"][":v0"]["S"] for query in listed} == partitions
    assert [query["IndexName"] for query in queries if "IndexName" in query] == ["inbox"]
    assert all(query["ScanIndexForward"] is False and query["Limit"] == 10 for query in queries)
    batches = [params for operation, params in first if operation == "BatchGetItem"]
    [pauses] = [request["Keys"] for request in batches[0]["RequestItems"].values()]
    assert {key["sk"]["S"] for key in pauses} == {f"P#{entry.pause.id}" for entry in pages[0]}
    [keys] = [request["Keys"] for request in batches[1]["RequestItems"].values()]
    assert len(keys) == len({entry.run.id for entry in pages[0]} | {entry.pause.thread for entry in pages[0]})
    # threads nobody owns (half of them) may have an owner from before owners moved onto the thread's item
    assert len(batches) == 3 and "Scan" not in {operation for operation, _ in first}
    last = pages[0][-1].pause
    filtered = sent(dynamodb, lambda: pages.append(dynamodb.inbox(before=(last.created_at, last.id), kind="ask")))
    assert {operation for operation, _ in filtered} == {"Query", "BatchGetItem"}
    assert len(pages[0]) == 10 and pages[1] and all(entry.pause.kind == "ask" for entry in pages[1])
    assert all(entry.owner in (None, f"iss|{entry.pause.thread[7:]}") for entry in pages[0] + pages[1])


def test_dynamodb_finds_the_owner_of_a_thread_owned_before_owners_moved_onto_its_item(dynamodb: Any) -> None:
    run = begin_run(dynamodb, RunRecord("r-1", "thread-1", "helper", "waiting"))
    dynamodb.commit(Changes(pauses=[PauseRecord("p-1", run.id, run.thread, "confirm", 1, "tok", {})]))
    legacy = {"pk": {"S": "T#thread-1"}, "sk": {"S": "OWNER"}, "value": {"S": "iss|ana"}}
    dynamodb.client.put_item(TableName=dynamodb.table, Item=legacy)
    [entry] = dynamodb.inbox()
    assert entry.owner == "iss|ana" and entry.run == run


def test_the_inbox_index_sorts_pauses_as_their_times_and_ids_sort() -> None:
    from stalwart_agents.storage.dynamodb_items import opened

    times = [-1e300, -2.5, -1.0, -5e-324, 0.0, 5e-324, 1e-9, 0.1, 1.0, 2.5, 1_760_000_000.123456, 1e300]
    positions = [(at, id) for at in times for id in ("p", "p-1", "p-10", "p-2", "q")]
    shuffled = random.Random(15).sample(positions, len(positions))
    assert sorted(shuffled, key=lambda position: opened(*position).encode()) == sorted(positions)
