"""The run store in one DynamoDB table, for many machines (one table per deployment).

Each commit is one ``TransactWriteItems``: every item it writes carries its
condition, and a cancelled transaction's old images say which condition failed
and what is stored, so a lost race is raised with the current record without
another read.  What a commit cannot know without reading (a thread's event
counter, whether a saved run is still its thread's active run, the thread a
saved run is stored under, the run a claimed pause belongs to) it assumes,
writes as a condition too, and corrects from the old image when wrong: a wrong
guess costs a retry, never a wrong write.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlencode

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError, NoCredentialsError, PartialCredentialsError
from botocore.exceptions import ConnectionError as BotoConnectionError

from ..errors import StalwartError, StorageError, StorageUnavailable
from . import _records as records
from ._conditions import Check, EntryAt, EntryNew, PauseNew, PauseOpen, RunAt, RunNew, ThreadFree, checks
from .base import (
    DEFAULT_RETENTION,
    Changes,
    Committed,
    Feedback,
    JournalEntry,
    PauseRecord,
    RunRecord,
    ShownMessage,
    Snapshot,
)
from .dynamodb_schema import TTL_ATTRIBUTE, create_table_arguments

Item = dict[str, dict[str, Any]]

MAX_ITEMS = 100
ATTEMPTS = 10
BACKOFF = 0.01
LAST_EVENT = 10**12 - 1
CLIENT_CONFIG = Config(retries={"mode": "standard"}, connect_timeout=5, read_timeout=20)

GUESS = sys.maxsize  # the place of a failed guess: after every condition of the commit, so those are raised first
RETRIED_REASONS = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}
DENIED = "cannot be used by this process: its AWS credentials are missing, expired or not allowed to use it"
THROTTLED = "kept throttling requests after retries; try again shortly"
UNAVAILABLE = {
    "ResourceNotFoundException": "does not exist in {region}; deploy template.yaml (sam deploy) or fix the storage URL",
    "ProvisionedThroughputExceededException": THROTTLED,
    "ThrottlingException": THROTTLED,
    "RequestLimitExceeded": THROTTLED,
    "InternalServerError": "had an internal error in DynamoDB; try again",
    "ServiceUnavailable": "had DynamoDB unavailable; try again",
    "AccessDeniedException": DENIED,
    "UnrecognizedClientException": DENIED,
    "InvalidSignatureException": DENIED,
    "ExpiredTokenException": DENIED,
    "MissingAuthenticationTokenException": DENIED,
}

Verdict = tuple[int, StalwartError | None]


def _key(pk: str, sk: str) -> Item:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _run_key(run_id: str) -> Item:
    return _key(f"R#{run_id}", "RUN")


def _thread_key(thread: str) -> Item:
    return _key(f"T#{thread}", "THREAD")


def _attribute(value: Any) -> dict[str, str]:
    if isinstance(value, str):
        return {"S": value}
    return {"N": repr(float(value)) if isinstance(value, float) else str(int(value))}


def _attributes(values: Mapping[str, Any]) -> Item:
    """Plain values as attributes: text as S, numbers as N, and None as no attribute at all."""
    return {name: _attribute(value) for name, value in values.items() if value is not None}


def _plain(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None or "NULL" in value else value.get("S", value.get("N"))


def _typed(annotation: Any, text: str | None) -> Any:
    if text is None:
        return None
    if "float" in str(annotation):
        return float(text)
    return int(text) if str(annotation) == "int" else text


def _record(kind: type[records.Record], item: Mapping[str, Any] | None) -> records.Record | None:
    return None if not item else _from_item(kind, item)


def _from_item(kind: type[records.Record], item: Mapping[str, Any]) -> records.Record:
    """The record an item holds (its other attributes ignored), JSON fields decoded as SQLite's are."""
    row = {spec.name: _typed(spec.type, _plain(item.get(spec.name))) for spec in records.FIELDS[kind]}
    return records.from_row(kind, row)


def _number(item: Mapping[str, Any] | None, name: str) -> int | None:
    text = _plain((item or {}).get(name))
    return None if text is None else int(text)


class _Terms:
    """The placeholders of one request's expressions: DynamoDB reserves words such as status, state and key."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._values: dict[str, dict[str, Any]] = {}

    def name(self, name: str) -> str:
        return self._names.setdefault(name, f"#n{len(self._names)}")

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self._values)}"
        self._values[placeholder] = _attribute(value)
        return placeholder

    def equal(self, name: str, value: Any) -> str:
        return f"{self.name(name)} = {self.value(value)}"

    def absent(self, name: str) -> str:
        return f"attribute_not_exists({self.name(name)})"

    def fields(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self._names:
            found["ExpressionAttributeNames"] = {placeholder: name for name, placeholder in self._names.items()}
        if self._values:
            found["ExpressionAttributeValues"] = self._values
        return found


def _update_expression(sets: list[str], removes: list[str]) -> str:
    parts = [f"SET {', '.join(sets)}" if sets else "", f"REMOVE {', '.join(removes)}" if removes else ""]
    return " ".join(part for part in parts if part)


class _Memory:
    """What this process remembers between requests: each thread's event counter as last seen; the journal's clock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seqs: dict[str, int] = {}
        self._last_started = 0

    def seq(self, thread: str) -> int | None:
        with self._lock:
            return self._seqs.get(thread)

    def saw(self, thread: str, seq: int | None) -> None:
        """Counters only rise, so the highest seen is the newest."""
        if seq is not None:
            with self._lock:
                self._seqs[thread] = max(seq, self._seqs.get(thread, 0))

    def started(self) -> int:
        """A journal entry's place in its run: the clock in nanoseconds, rising here even if the clock steps back."""
        with self._lock:
            self._last_started = max(time.time_ns(), self._last_started + 1)
            return self._last_started


def _run_seen(item: Item | None, memory: _Memory) -> RunRecord | None:
    """The run an item holds; its ``tseq`` tells this process its thread's event counter."""
    run = _record(RunRecord, item)
    if run is not None:
        memory.saw(run.thread, _number(item, "tseq"))
    return run


class DynamoStorage:
    """Keeps runs in one DynamoDB table, so any number of machines (or Lambda instances) share them.

    Every commit is one transaction decided by DynamoDB, never in Python; reads
    are strongly consistent.  Events are numbered by a counter on their thread's
    item, which this process remembers from every thread or run it reads, so a
    turn's or an answer's commit needs no read of its own.
    """

    def __init__(
        self,
        table: str,
        *,
        region: str,
        endpoint: str | None = None,
        client: Any = None,
        retention: float = DEFAULT_RETENTION,
    ) -> None:
        self.retention = retention
        self.table, self.region, self.endpoint = table, region, endpoint
        params = {"region": region} | ({"endpoint": endpoint} if endpoint else {})
        self.url = f"dynamodb://{table}?{urlencode(params, safe=':/')}"
        self._owns_client = client is None
        self._client = client or boto3.client(
            "dynamodb", region_name=region, endpoint_url=endpoint, config=CLIENT_CONFIG
        )
        self._memory = _Memory()

    @property
    def client(self) -> Any:
        """The boto3 client, to instrument (count requests, see consumed capacity), not to write around the store."""
        return self._client

    def setup(self) -> None:
        """Create the table where DynamoDB runs locally; on AWS only check it is there (template.yaml makes it).

        The check is a GetItem in the K# partition, which every function's policy
        allows (DescribeTable is granted to none).
        """
        if self.endpoint is None:
            self._call("get_item", TableName=self.table, Key=_key("K#setup", "SECRET"), ProjectionExpression="pk")
            return
        try:
            self._call("describe_table", expected=("ResourceNotFoundException",), TableName=self.table)
        except ClientError:
            self._create_table()

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def commit(self, changes: Changes) -> Committed:
        rows = records.encoded(changes)
        if not changes:
            return Committed(None, [])
        guesses = _Guesses(
            {event.thread: self._memory.seq(event.thread) or 0 for event in changes.events},
            run_thread=None if changes.run is None else changes.run.thread,
            pause_run=None if changes.run is None else changes.run.id,
        )
        claim = None if changes.claim is None else PauseOpen(changes.claim[0], rows.claim or "")
        for attempt in range(ATTEMPTS):
            if claim is not None and guesses.pause_run is None:
                guesses.pause_run = self._pause_run(claim)
            transaction = _Transaction(self.table, changes, rows, guesses, self._memory)
            try:
                requests = transaction.requests()
                self._call("transact_write_items", expected=("TransactionCanceledException",), TransactItems=requests)
            except ClientError as exc:
                _judge(transaction, exc.response.get("CancellationReasons", []), self.table)
                time.sleep(random.uniform(0, BACKOFF * attempt))
                continue
            for thread, seq in transaction.seqs_after().items():
                self._memory.saw(thread, seq)
            return transaction.committed()
        raise StorageUnavailable(
            f"a commit to the DynamoDB table {self.table} lost {ATTEMPTS} races in a row to other writers; try again"
        )

    def snapshot(self, run_id: str) -> Snapshot | None:
        items = self._run_items(run_id)
        run = _run_seen(next((item for item in items if item["sk"]["S"] == "RUN"), None), self._memory)
        return None if run is None else Snapshot(run, _pauses(items), _journal(items))

    def get_run(self, run_id: str) -> RunRecord | None:
        return _run_seen(self._get(_run_key(run_id)), self._memory)

    def active_run(self, thread: str) -> RunRecord | None:
        return self._thread_run(thread, "active_run")

    def last_run(self, thread: str) -> RunRecord | None:
        return self._thread_run(thread, "last_run")

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        """Find the pause's keys by the by_id index (keys only, eventually consistent), then read it consistently."""
        terms = _Terms()
        found = self._call(
            "query",
            TableName=self.table,
            IndexName="by_id",
            KeyConditionExpression=terms.equal("pid", pause_id),
            **terms.fields(),
        )
        keys = found.get("Items", [])
        return None if not keys else _record(PauseRecord, self._get({"pk": keys[0]["pk"], "sk": keys[0]["sk"]}))

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        return _pauses(self._run_items(run_id, "P#"))

    def journal(self, run_id: str) -> list[JournalEntry]:
        return _journal(self._run_items(run_id, "J#"))

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        records.check_limit(limit)
        first = max(after, 0) + 1
        if limit == 0 or first > LAST_EVENT:
            return []
        terms = _Terms()
        between = f"{terms.name('sk')} BETWEEN {terms.value(f'E#{first:012d}')} AND {terms.value(f'E#{LAST_EVENT}')}"
        condition = f"{terms.equal('pk', f'T#{thread}')} AND {between}"
        items = self._query(limit, KeyConditionExpression=condition, **terms.fields())
        return [(int(item["sk"]["S"][2:]), records.load(_plain(item.get("body")))) for item in items]

    def secret(self, name: str, candidate: str) -> str:
        return self._first(_key(f"K#{name}", "SECRET"), candidate)

    def owner(self, thread: str) -> str | None:
        item = self._get(_key(f"T#{thread}", "OWNER"))
        return None if item is None else str(_plain(item["value"]))

    def own(self, thread: str, owner: str) -> str:
        return self._first(_key(f"T#{thread}", "OWNER"), owner)

    def _first(self, key: Item, candidate: str) -> str:
        """Put the candidate unless the item exists; a lost race's old image is the stored value."""
        terms = _Terms()
        try:
            self._call(
                "put_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Item=key | _attributes({"value": candidate}),
                ConditionExpression=terms.absent("pk"),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
                **terms.fields(),
            )
        except ClientError as exc:
            stored = exc.response.get("Item") or self._get(key)
            return str(_plain((stored or {}).get("value")))
        return candidate

    def shown_message(self, message_id: str) -> ShownMessage | None:
        return _record(ShownMessage, self._get(_key(f"M#{message_id}", "SHOWN")))

    def rate_message(self, feedback: Feedback) -> None:
        item = _key(f"F#{feedback.message}", "FEEDBACK") | _attributes(dataclasses.asdict(feedback))
        self._call("put_item", TableName=self.table, Item=item)

    def feedback(self, message_id: str) -> Feedback | None:
        return _record(Feedback, self._get(_key(f"F#{message_id}", "FEEDBACK")))

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        """One UpdateItem, conditioned on the pause existing so an unknown id writes nothing."""
        try:
            self._call(
                "update_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Key=_key(f"R#{run_id}", f"P#{pause_id}"),
                UpdateExpression="SET delivery = :d",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":d": {"S": records.dump(outcome)}},
            )
        except ClientError:
            return

    def _pause_run(self, claim: PauseOpen) -> str:
        pause = self.get_pause(claim.pause_id)
        if pause is None:
            raise claim.refused(None)
        return pause.run

    def _thread_run(self, thread: str, attribute: str) -> RunRecord | None:
        item = self._get(_thread_key(thread))
        self._memory.saw(thread, _number(item, "seq"))
        run_id = _plain((item or {}).get(attribute))
        return None if run_id is None else self.get_run(run_id)

    def _run_items(self, run_id: str, prefix: str = "") -> list[Item]:
        terms = _Terms()
        condition = terms.equal("pk", f"R#{run_id}")
        if prefix:
            condition += f" AND begins_with({terms.name('sk')}, {terms.value(prefix)})"
        return self._query(None, KeyConditionExpression=condition, **terms.fields())

    def _query(self, limit: int | None, **request: Any) -> list[Item]:
        """Every item a strongly consistent query finds (up to ``limit``), page after page."""
        items: list[Item] = []
        while True:
            page_limit: dict[str, Any] = {} if limit is None else {"Limit": limit - len(items)}
            page = self._call("query", TableName=self.table, ConsistentRead=True, **page_limit, **request)
            items += page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if start is None or (limit is not None and len(items) >= limit):
                return items
            request["ExclusiveStartKey"] = start

    def _get(self, key: Item) -> Item | None:
        item: Item | None = self._call("get_item", TableName=self.table, Key=key, ConsistentRead=True).get("Item")
        return item

    def _create_table(self) -> None:
        """Create the table and wait for it; another process creating it at the same moment is no error."""
        with suppress(ClientError):
            self._call("create_table", expected=("ResourceInUseException",), **create_table_arguments(self.table))
        deadline = time.monotonic() + 60
        while self._call("describe_table", TableName=self.table)["Table"]["TableStatus"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise StorageUnavailable(f"the DynamoDB table {self.table} did not become active within a minute")
            time.sleep(0.5)
        spec = {"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
        with suppress(ClientError):
            self._call(
                "update_time_to_live",
                expected=("ValidationException",),
                TableName=self.table,
                TimeToLiveSpecification=spec,
            )

    def _call(self, operation: str, *, expected: tuple[str, ...] = (), **request: Any) -> Any:
        """Call DynamoDB; an ``expected`` error code comes back as the ClientError, any other is translated."""
        with self._translated(expected):
            return getattr(self._client, operation)(**request)

    @contextmanager
    def _translated(self, expected: tuple[str, ...]) -> Iterator[None]:
        """Driver errors become ours, in a sentence naming the table and never a request's contents."""
        try:
            yield
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in expected:
                raise
            problem = UNAVAILABLE.get(code)
            if problem is None:
                raise StorageError(f"the DynamoDB table {self.table} refused a request ({code})") from exc
            raise StorageUnavailable(f"the DynamoDB table {self.table} {problem.format(region=self.region)}") from exc
        except (NoCredentialsError, PartialCredentialsError) as exc:
            raise StorageUnavailable(f"the DynamoDB table {self.table} {DENIED}") from exc
        except (BotoConnectionError, HTTPClientError) as exc:
            where = self.endpoint or f"DynamoDB in {self.region}"
            raise StorageUnavailable(f"the DynamoDB table {self.table} cannot be reached at {where}") from exc
        except BotoCoreError as exc:
            raise StorageUnavailable(f"the DynamoDB table {self.table} cannot be used ({type(exc).__name__})") from exc


def _pauses(items: list[Item]) -> list[PauseRecord]:
    pauses = [_from_item(PauseRecord, item) for item in items if item["sk"]["S"].startswith("P#")]
    return sorted(pauses, key=lambda pause: (pause.step, pause.created_at, pause.id))


def _journal(items: list[Item]) -> list[JournalEntry]:
    entries = [item for item in items if item["sk"]["S"].startswith("J#")]
    entries.sort(key=lambda item: (_number(item, "started") or 0, item["sk"]["S"]))
    return [_from_item(JournalEntry, item) for item in entries]


def _judge(transaction: _Transaction, reasons: list[dict[str, Any]], table: str) -> None:
    """Raise the first failed condition in Changes' order; return (to retry) when what failed first was a guess."""
    verdicts: list[Verdict] = []
    for write, reason in zip(transaction.writes, reasons, strict=False):
        code = reason.get("Code", "None")
        if code == "ConditionalCheckFailed":
            verdicts.append(write.verdict(reason.get("Item")))
        elif code in RETRIED_REASONS:
            verdicts.append((write.position, None))
        elif code != "None":
            raise StorageError(f"the DynamoDB table {table} refused a commit ({code})")
    if verdicts:
        error = min(verdicts, key=lambda verdict: verdict[0])[1]
        if error is not None:
            raise error


@dataclass
class _Write:
    """One item of a transaction, and what its failed condition means: an error to raise, or a guess to retry."""

    request: dict[str, Any]
    position: int
    verdict: Callable[[Item | None], Verdict] = lambda old: (GUESS, None)

    @property
    def key(self) -> tuple[str, str]:
        body = next(iter(self.request.values()))
        key = body.get("Key") or body["Item"]
        return key["pk"]["S"], key["sk"]["S"]


@dataclass
class _Guesses:
    """What a commit assumes of items it does not read; each is written as a condition, and corrected when wrong."""

    seqs: dict[str, int]
    run_thread: str | None = None
    pause_run: str | None = None
    inactive: set[str] = field(default_factory=set)


@dataclass
class _ThreadChange:
    """Everything one commit does to one thread's item, which a transaction may touch only once."""

    thread: str
    free: tuple[int, ThreadFree] | None = None
    begun: RunNew | None = None
    finished: str | None = None
    events: int = 0


class _Transaction:
    """The items one attempt at a commit writes, each with its condition and the meaning of its failure.

    A check's writes take its place in ``checks``' order, so the first refused
    in that order is the one raised; events and shown messages have no condition.
    """

    def __init__(self, table: str, changes: Changes, rows: records.Rows, guesses: _Guesses, memory: _Memory) -> None:
        self._table, self._changes, self._rows, self._guesses, self._memory = table, changes, rows, guesses, memory
        self._threads: dict[str, _ThreadChange] = {}
        self.writes: list[_Write] = []
        self.event_ids: list[int] = []
        for position, check in enumerate(checks(changes, rows)):
            self._add(position, check)
        self._events()
        self._shown()
        self.writes += [self._thread_write(change) for change in self._threads.values()]

    def requests(self) -> list[dict[str, Any]]:
        if len(self.writes) > MAX_ITEMS:
            raise StorageError(
                f"a DynamoDB commit writes at most {MAX_ITEMS} items; this one would write {len(self.writes)}"
            )
        keys = [write.key for write in self.writes]
        if len(set(keys)) < len(keys):
            raise ValueError("a commit writes one item twice (the same run, pause or journal key): DynamoDB refuses it")
        return [write.request for write in self.writes]

    def committed(self) -> Committed:
        return Committed(self._rows.committed_run(self._guesses.run_thread), self.event_ids)

    def seqs_after(self) -> dict[str, int]:
        changed = {thread: change.events for thread, change in self._threads.items() if change.events}
        return {thread: self._guesses.seqs[thread] + events for thread, events in changed.items()}

    def _add(self, position: int, check: Check) -> None:
        match check:
            case ThreadFree():
                self._thread(check.thread).free = (position, check)
            case RunNew():
                self._thread(check.run["thread"]).begun = check
                self._put_new(self._run_item(check.run), position, RunRecord, check.refused)
            case PauseOpen():
                self._claim(position, check)
            case RunAt():
                self._save(position, check)
            case PauseNew():
                item = _key(f"R#{check.pause['run']}", f"P#{check.pause['id']}") | _attributes(check.pause)
                self._put_new(item | {"pid": {"S": check.pause["id"]}}, position, PauseRecord, check.refused)
            case EntryNew():
                row = check.entry | {"started": self._memory.started()}
                item = _key(f"R#{row['run']}", f"J#{row['key']}") | _attributes(row)
                self._put_new(item, position, JournalEntry, check.refused)
            case EntryAt():
                self._update_entry(position, check)

    def _thread(self, thread: str) -> _ThreadChange:
        return self._threads.setdefault(thread, _ThreadChange(thread))

    def _tseq(self, thread: str) -> int | None:
        """The thread's event counter as this commit leaves it, kept on the run so that reading the run tells it."""
        events = sum(event.thread == thread for event in self._changes.events)
        return self._guesses.seqs[thread] + events if events else self._memory.seq(thread)

    def _put_new(self, item: Item, position: int, kind: type, refused: Callable[[Any], StalwartError]) -> None:
        """Put an item that must not exist yet; the one found instead is what ``refused`` is given."""
        terms = _Terms()
        request = {
            "TableName": self._table,
            "Item": item,
            "ConditionExpression": terms.absent("pk"),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

        def verdict(old: Item | None) -> Verdict:
            return position, None if not old else refused(_record(kind, old))

        self.writes.append(_Write({"Put": request | terms.fields()}, position, verdict))

    def _update(self, key: Item, terms: _Terms, update: str, condition: str | None = None) -> dict[str, Any]:
        request = {"TableName": self._table, "Key": key, "UpdateExpression": update}
        if condition is not None:
            request |= {"ConditionExpression": condition, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        return {"Update": request | terms.fields()}

    def _run_item(self, row: dict[str, Any]) -> Item:
        return _run_key(row["id"]) | _attributes(row | {"tseq": self._tseq(row["thread"])})

    def _claim(self, position: int, check: PauseOpen) -> None:
        terms = _Terms()
        update = f"SET {terms.equal('status', 'answered')}, {terms.equal('answer', check.answer)}"
        key = _key(f"R#{self._guesses.pause_run}", f"P#{check.pause_id}")
        request = self._update(key, terms, update, terms.equal("status", "open"))
        self.writes.append(_Write(request, position, lambda old: self._claimed(position, check, old)))

    def _claimed(self, position: int, check: PauseOpen, old: Item | None) -> Verdict:
        """No pause under the run guessed: the retry looks it up by id first (and finds it, or that there is none)."""
        if old is None:
            self._guesses.pause_run = None
            return position, None
        return position, check.refused(_record(PauseRecord, old))

    def _save(self, position: int, check: RunAt) -> None:
        thread = self._guesses.run_thread
        assert thread is not None
        row = check.run | {"thread": thread}
        if check.finishes and thread not in self._guesses.inactive:
            self._thread(thread).finished = row["id"]
        terms = _Terms()
        condition = f"{terms.equal('version', check.version)} AND {terms.equal('thread', thread)}"
        request = {
            "TableName": self._table,
            "Item": self._run_item(row),
            "ConditionExpression": condition,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        verdict = partial(self._saved, position, check)
        self.writes.append(_Write({"Put": request | terms.fields()}, position, verdict))

    def _saved(self, position: int, check: RunAt, old: Item | None) -> Verdict:
        """A stale version is a conflict; the right version under another thread: the run keeps its stored thread."""
        current = _run_seen(old, self._memory)
        if current is None or current.version != check.version:
            return position, check.refused(current)
        self._guesses.run_thread = current.thread
        return GUESS, None

    def _update_entry(self, position: int, check: EntryAt) -> None:
        terms = _Terms()
        changed = {name: value for name, value in check.entry.items() if name not in ("run", "key")}
        sets = [terms.equal(name, value) for name, value in changed.items() if value is not None]
        removes = [terms.name(name) for name, value in changed.items() if value is None]
        condition = terms.equal("status", check.status)
        if check.attempt is not None:
            condition += f" AND {terms.equal('attempt', check.attempt)}"
        key = _key(f"R#{check.entry['run']}", f"J#{check.entry['key']}")
        request = self._update(key, terms, _update_expression(sets, removes), condition)
        self.writes.append(_Write(request, position, lambda old: (position, check.refused(_record(JournalEntry, old)))))

    def _events(self) -> None:
        for thread, body in self._rows.events:
            change = self._thread(thread)
            change.events += 1
            event_id = self._guesses.seqs[thread] + change.events
            self.event_ids.append(event_id)
            item = _key(f"T#{thread}", f"E#{event_id:012d}") | _attributes({"body": body})
            self.writes.append(_Write({"Put": {"TableName": self._table, "Item": item}}, GUESS))

    def _shown(self) -> None:
        """Insert-or-ignore inside a transaction, where a failed condition would cancel it: each attribute if absent."""
        first = {message.id: message for message in reversed(self._changes.shown)}
        for message in first.values():
            terms = _Terms()
            values = dataclasses.asdict(message)
            sets = [
                f"{terms.name(name)} = if_not_exists({terms.name(name)}, {terms.value(value)})"
                for name, value in values.items()
            ]
            request = self._update(_key(f"M#{message.id}", "SHOWN"), terms, _update_expression(sets, []))
            self.writes.append(_Write(request, GUESS))

    def _thread_write(self, change: _ThreadChange) -> _Write:
        terms, sets, removes, conditions = _Terms(), [], [], []
        if change.free is not None and change.begun is not None:
            conditions.append(terms.absent("active_run"))
            sets.append(terms.equal("last_run", change.begun.run["id"]))
            if change.begun.active:
                sets.append(terms.equal("active_run", change.begun.run["id"]))
        elif change.finished is not None:
            conditions.append(terms.equal("active_run", change.finished))
            removes.append(terms.name("active_run"))
        if change.events:
            old = self._guesses.seqs[change.thread]
            conditions.append(terms.equal("seq", old) if old else terms.absent("seq"))
            sets.append(terms.equal("seq", old + change.events))
        update = _update_expression(sets, removes)
        request = self._update(_thread_key(change.thread), terms, update, " AND ".join(conditions))
        position = GUESS if change.free is None else change.free[0]
        return _Write(request, position, lambda old: self._thread_verdict(change, old))

    def _thread_verdict(self, change: _ThreadChange, old: Item | None) -> Verdict:
        """A begun run on a busy thread is ThreadBusy; anything else failing here was a guess, fixed from ``old``."""
        active = _plain((old or {}).get("active_run"))
        if change.free is not None and active is not None:
            position, free = change.free
            return position, free.refused(active)
        seq = _number(old, "seq") or 0
        self._guesses.seqs[change.thread] = seq
        self._memory.saw(change.thread, seq)
        if change.finished is not None and active != change.finished:
            self._guesses.inactive.add(change.thread)
        return GUESS, None
