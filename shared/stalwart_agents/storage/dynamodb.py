"""The run store in one DynamoDB table, for many machines (one table per deployment).

Each commit is one ``TransactWriteItems`` (built in ``dynamodb_transaction``),
decided by DynamoDB whole.  Each attempt at a commit carries its own
ClientRequestToken, also written on every item: a retry of a request that was
applied is answered by DynamoDB as that success, and an answer that never comes
is settled by reading the token back, so a commit that happened is never
reported lost.  Every item but a secret carries ``expires``, ``retention`` after
it was written, for TTL; ``prune`` keeps what a thread with an active run holds
from expiring, and the sparse ``live`` index lists those threads.  TTL deletes an
expired item days later, one item at a time, so every read and every condition
treats an item at or past its ``expires`` as gone: a thread whose item expired is
a new thread, whoever claims its id, and sees nothing of the old one.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from typing import Any, Literal
from urllib.parse import urlencode

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError, NoCredentialsError, PartialCredentialsError
from botocore.exceptions import ConnectionError as BotoConnectionError

from .. import telemetry
from ..errors import StalwartError, StorageError, StorageUnavailable, ValueTooLarge
from . import _records as records
from ._conditions import PauseOpen, ThreadFree
from .base import (
    ANYONE,
    DEFAULT_RETENTION,
    Changes,
    Committed,
    Feedback,
    InboxEntry,
    JournalEntry,
    PauseRecord,
    Position,
    Pruned,
    RecordPosition,
    RunRecord,
    ShownMessage,
    Snapshot,
    delivery_due,
    owner_party,
    record_position,
)
from .chain import GENESIS, Head
from .dynamodb_items import (
    INBOX_KEYS,
    LISTING_SHARDS,
    LIVE_SHARDS,
    OPEN,
    PARTIES,
    RECORD_SHARDS,
    TOKEN,
    WAKE_KEYS,
    WAKE_SHARDS,
    Item,
    Stamp,
    Terms,
    attributes,
    expired,
    expiry,
    from_item,
    item_key,
    listing_key,
    listing_of,
    listing_partition,
    number,
    opened,
    plain,
    record_key,
    record_of,
    record_place,
    recorded_entry,
    run_key,
    thread_key,
    update_expression,
    visible,
    wake_shard,
)
from .dynamodb_schema import TTL_ATTRIBUTE, create_table_arguments
from .dynamodb_sizes import check_item, item_size
from .dynamodb_transaction import RETRIED_REASONS, Guesses, Memory, Transaction, judge, run_seen

ATTEMPTS = 10
BATCH_GET = 100
"""Keys one BatchGetItem may ask for."""
BACKOFF = 0.02
BACKOFF_CAP = 1.0
SETTLE_ATTEMPTS = 3
QUERIES_AT_ONCE = 16
"""Queries of one inbox read sent at once: its listing shards' first pages."""
CLAIMED, DELIVERED = "claimed", "delivered"
LAST_EVENT = 10**12 - 1
CLIENT_CONFIG = Config(retries={"mode": "standard"}, connect_timeout=5, read_timeout=20)

THROTTLES = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
Outcome = Literal["applied", "corrected", "contended"]
UNSETTLED = {"InternalServerError", "ServiceUnavailable", "TransactionInProgressException"}
"""Answers after which a transaction may or may not have been applied: the same token is sent again to tell."""
MISMATCH = "IdempotentParameterMismatchException"
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


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _head(item: Item) -> Head:
    return Head(number(item, "seq") or 0, plain(item.get("digest")) or GENESIS)


def _backoff(attempt: int) -> float:
    """Exponential, capped, with full jitter: racing writers spread out instead of colliding again in step."""
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF * 2**attempt))


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
        self.clock: Callable[[], float] = time.time
        self.table, self.region, self.endpoint = table, region, endpoint
        params = {"region": region} | ({"endpoint": endpoint} if endpoint else {})
        self.url = f"dynamodb://{table}?{urlencode(params, safe=':/')}"
        self._owns_client = client is None
        self._client = client or boto3.client(
            "dynamodb", region_name=region, endpoint_url=endpoint, config=CLIENT_CONFIG
        )
        self._memory = Memory()

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
            self._call("get_item", TableName=self.table, Key=item_key("K#setup", "SECRET"), ProjectionExpression="pk")
            return
        try:
            self._call("describe_table", expected=("ResourceNotFoundException",), TableName=self.table)
        except ClientError:
            self._create_table()

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def commit(self, changes: Changes) -> Committed:
        with telemetry.current().commit(self.url):
            return self._commit(changes)

    def _commit(self, changes: Changes) -> Committed:
        rows = records.encoded(changes)
        if not changes:
            return Committed(None, [])
        guesses = Guesses(
            {event.thread: self._memory.seq(event.thread) or 0 for event in changes.events},
            run_thread=None if changes.run is None else changes.run.thread,
            pause_run=None if changes.run is None else changes.run.id,
        )
        claim = None if changes.claim is None else PauseOpen(changes.claim[0], rows.claim or "")
        self._know_owners(changes, guesses)
        for attempt in range(ATTEMPTS):
            if claim is not None and guesses.pause_run is None:
                guesses.pause_run = self._pause_run(claim)
            self._know_listings(changes, guesses)
            if rows.begin is not None:
                self._read_legacy_owners(ThreadFree(rows.begin, changes.owner), guesses)
            transaction = Transaction(self.table, changes, rows, guesses, self._memory, self._stamp())
            outcome = self._outcome(transaction)
            if outcome == "applied":
                for thread, seq in transaction.seqs_after().items():
                    self._memory.saw(thread, seq)
                for pause_id, listing in transaction.listed.items():
                    self._memory.listed(pause_id, listing)
                for thread, head in transaction.heads.items():
                    self._memory.headed(thread, head)
                return transaction.committed()
            if outcome == "contended":
                time.sleep(_backoff(attempt))
        raise StorageUnavailable(
            f"a commit to the DynamoDB table {self.table} lost {ATTEMPTS} races in a row to other writers"
            " or was throttled as often; try again"
        )

    def _know_owners(self, changes: Changes, guesses: Guesses) -> None:
        """The party of the owner of each thread the commit opens a pause in, for its listing: the begin's owner,
        else the owner as this process last read it; where it has not read it, ``anyone`` (whom the owner reads
        too), so a commit never waits on a read of its own."""
        for pause in changes.pauses:
            thread = pause.thread
            if pause.status != "open" or thread in guesses.owners:
                continue
            known, owner = self._memory.owner(thread)
            if changes.begin is not None and changes.begin.thread == thread and changes.owner is not None:
                known, owner = True, changes.owner
            guesses.owners[thread] = owner_party(owner) if known else ANYONE

    def _know_listings(self, changes: Changes, guesses: Guesses) -> None:
        """Where each pause the commit answers or closes is listed, so its listings go with it: as this process
        wrote or read it (the engine reads a run before it moves it), else read from the pause's item."""
        claimed = [] if changes.claim is None or guesses.pause_run is None else [(guesses.pause_run, changes.claim[0])]
        new = {pause.id for pause in changes.pauses}  # put closed, where the commit closes them: never listed
        for run, pause_id in claimed + [(pause.run, pause.id) for pause in changes.closes]:
            if pause_id in guesses.listings or pause_id in new:
                continue
            known, listing = self._memory.listing(pause_id)
            if not known:
                terms = Terms()
                projection = ", ".join(terms.name(name) for name in (PARTIES, "status", "created_at"))
                item = self._read(
                    item_key(f"R#{run}", f"P#{pause_id}"), ProjectionExpression=projection, **terms.fields()
                )
                listing = None if item is None else listing_of(item)
            guesses.listings[pause_id] = listing

    def _remember(self, items: list[Item]) -> list[Item]:
        """Note where each pause item read is listed, so a commit closing it needs no read of its own."""
        for item in items:
            if item["sk"]["S"].startswith("P#"):
                self._memory.listed(item["sk"]["S"][2:], listing_of(item))
        return items

    def _read_legacy_owners(self, free: ThreadFree, guesses: Guesses) -> None:
        """A begun thread found without an owner on its item is the begin's owner's only where its legacy owner is
        theirs or none: NotFound where another's."""
        for thread, read in guesses.unowned.items():
            if not read:
                legacy = self._legacy_owner(thread)
                if legacy is not None and not free.owned_by(legacy):
                    raise free.not_theirs()
                guesses.unowned[thread] = True

    def snapshot(self, run_id: str) -> Snapshot | None:
        items = self._remember(self._run_items(run_id))
        run = run_seen(next((item for item in items if item["sk"]["S"] == "RUN"), None), self._memory)
        return None if run is None else Snapshot(run, _pauses(items), _journal(items))

    def get_run(self, run_id: str) -> RunRecord | None:
        return run_seen(self._get(run_key(run_id)), self._memory)

    def active_run(self, thread: str) -> RunRecord | None:
        return self._thread_run(thread, "active_run")

    def last_run(self, thread: str) -> RunRecord | None:
        return self._thread_run(thread, "last_run")

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        """Find the pause's keys by the by_id index (keys only, eventually consistent), then read it consistently."""
        terms = Terms()
        found = self._call(
            "query",
            TableName=self.table,
            IndexName="by_id",
            KeyConditionExpression=terms.equal("pid", pause_id),
            **terms.fields(),
        )
        stored = (self._get({"pk": key["pk"], "sk": key["sk"]}) for key in found.get("Items", []))
        item = next((item for item in stored if item is not None), None)
        return record_of(PauseRecord, None if item is None else self._remember([item])[0])

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        return _pauses(self._remember(self._run_items(run_id, "P#")))

    def journal(self, run_id: str) -> list[JournalEntry]:
        return _journal(self._run_items(run_id, "J#"))

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        records.check_limit(limit)
        first = max(after, 0) + 1
        if limit == 0 or first > LAST_EVENT:
            return []
        terms = Terms()
        between = f"{terms.name('sk')} BETWEEN {terms.value(f'E#{first:012d}')} AND {terms.value(f'E#{LAST_EVENT}')}"
        items = self._query(limit, terms, f"{terms.equal('pk', f'T#{thread}')} AND {between}")
        return [(int(item["sk"]["S"][2:]), records.load(plain(item.get("body")))) for item in items]

    def record(self, thread: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        records.check_limit(limit)
        if limit == 0 or after >= LAST_EVENT:
            return []
        terms = Terms()
        first, last = terms.value(f"D#{max(after, 0) + 1:012d}"), terms.value(f"D#{LAST_EVENT}")
        condition = f"{terms.equal('pk', f'A#{thread}')} AND {terms.name('sk')} BETWEEN {first} AND {last}"
        return [recorded_entry(item) for item in self._query(limit, terms, condition)]

    def recorded(
        self, since: float = 0.0, after: RecordPosition | None = None, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Each shard of the record index read from where the page starts, merged by time: an export's read,
        eventually consistent as every index is (an entry a moment old may come in the next export)."""
        records.check_limit(limit)
        start = record_place(after) if after is not None else record_place((since, "", 0))
        found: list[dict[str, Any]] = []
        for shard in range(RECORD_SHARDS):
            terms = Terms()
            condition = f"{terms.equal('rk', f'record#{shard}')} AND {terms.name('rt')} > {terms.value(start)}"
            request = {"KeyConditionExpression": condition, **terms.fields()}
            items = self._pages(TableName=self.table, IndexName="record", Limit=max(limit, 1), **request)
            found += [recorded_entry(item) for item in itertools.islice(items, limit)]
        return sorted(found, key=record_position)[:limit]

    def record_heads(self, after: str = "", limit: int = 1000) -> list[tuple[str, Head]]:
        """Each shard of the record index's heads read from ``after``, merged by thread."""
        records.check_limit(limit)
        found: list[tuple[str, Head]] = []
        for shard in range(RECORD_SHARDS):
            terms = Terms()
            condition = terms.equal("rk", f"heads#{shard}")
            condition += f" AND {terms.name('rt')} > {terms.value(after)}" if after else ""
            request = {"KeyConditionExpression": condition, **terms.fields()}
            items = self._pages(TableName=self.table, IndexName="record", Limit=max(limit, 1), **request)
            found += [(item["pk"]["S"][2:], _head(item)) for item in itertools.islice(items, limit)]
        return sorted(found, key=lambda head: head[0])[:limit]

    def record_head(self, thread: str) -> Head | None:
        item = self._read(record_key(thread))
        if item is None:
            return None
        head = _head(item)
        self._memory.headed(thread, head)
        return head

    def secret(self, name: str, candidate: str) -> str:
        return self._first(item_key(f"K#{name}", "SECRET"), candidate)

    def owner(self, thread: str) -> str | None:
        """The owner kept on the thread's item, which every write to the thread keeps from expiring first.

        Threads owned before that keep theirs in an item of its own (``OWNER``), read when the thread's has none.
        """
        item = self._get(thread_key(thread))
        self._memory.saw(thread, number(item, "seq"))
        stored = None if item is None else plain(item.get("owner"))
        owner = stored if stored is not None or item is None else self._legacy_owner(thread)
        self._memory.owned(thread, owner)
        return owner

    def own(self, thread: str, owner: str) -> str:
        """One UpdateItem for a new thread or an owned one; a thread begun without an owner may have a legacy one.

        A thread whose item expired is a new thread: ``owner`` claims it in place of its old owner.
        """
        for _ in range(ATTEMPTS):
            now, terms = self.clock(), Terms()
            first = f"{terms.name('owner')} = if_not_exists({terms.name('owner')}, {terms.value(owner)})"
            condition = f"({terms.absent('pk')} OR attribute_exists({terms.name('owner')})) AND {terms.unexpired(now)}"
            try:
                stored = self._call(
                    "update_item",
                    expected=("ConditionalCheckFailedException",),
                    TableName=self.table,
                    Key=thread_key(thread),
                    UpdateExpression=f"SET {first}, {terms.equal(TTL_ATTRIBUTE, self._expires())}",
                    ConditionExpression=condition,
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                    **terms.fields(),
                )["Attributes"]
            except ClientError as exc:
                old = exc.response.get("Item") or self._read(thread_key(thread))
                if not expired(old, now):
                    return self._own_unowned(thread, self._legacy_owner(thread) or owner)
                if self._own_expired(thread, owner, old):
                    return owner
                continue
            self._memory.saw(thread, number(stored, "seq"))
            self._memory.owned(thread, str(plain(stored["owner"])))
            return str(plain(stored["owner"]))
        raise StorageUnavailable(f"claiming thread {thread} in the DynamoDB table {self.table} kept racing; try again")

    def _own_expired(self, thread: str, owner: str, old: Item | None) -> bool:
        """Begin the thread anew on its expired item, if still as found: ``owner`` owns it, no old run is its.

        Its event counter goes on, so the new thread's events are put where no old one is.
        """
        terms = Terms()
        sets = [terms.equal("owner", owner), terms.equal(TTL_ATTRIBUTE, self._expires())]
        removes = [terms.name(name) for name in ("last_run", "active_run", "live")]
        try:
            self._call(
                "update_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Key=thread_key(thread),
                UpdateExpression=update_expression(sets, removes),
                ConditionExpression=terms.equal(TTL_ATTRIBUTE, expiry(old)),
                **terms.fields(),
            )
        except ClientError:
            return False
        self._memory.saw(thread, number(old, "seq"))
        return True

    def _own_unowned(self, thread: str, owner: str) -> str:
        """A thread begun without an owner on its item: ``owner`` (its legacy owner, if any) becomes it.

        Its ``expires`` is set too, as every write to the thread's item sets it: TTL may have deleted the item since
        it was found, and this write would begin it again.
        """
        terms = Terms()
        first = f"{terms.name('owner')} = if_not_exists({terms.name('owner')}, {terms.value(owner)})"
        stored = self._call(
            "update_item",
            TableName=self.table,
            Key=thread_key(thread),
            UpdateExpression=f"SET {first}, {terms.equal(TTL_ATTRIBUTE, self._expires())}",
            ReturnValues="UPDATED_NEW",
            **terms.fields(),
        )["Attributes"]
        return str(plain(stored["owner"]))

    def _legacy_owner(self, thread: str) -> str | None:
        item = self._get(item_key(f"T#{thread}", "OWNER"))
        return None if item is None else plain(item.get("value"))

    def _first(self, key: Item, candidate: str) -> str:
        """Put the candidate unless the item exists; a lost race's old image is the stored value."""
        terms = Terms()
        try:
            self._call(
                "put_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Item=key | attributes({"value": candidate}),
                ConditionExpression=terms.absent("pk"),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
                **terms.fields(),
            )
        except ClientError as exc:
            stored = plain((exc.response.get("Item") or self._get(key) or {}).get("value"))
            if not isinstance(stored, str):  # never a key made of nothing: it signs sessions, links and ids
                unread = f"the item {plain(key['pk'])} in the DynamoDB table {self.table} could not be read"
                raise StorageUnavailable(unread) from exc
            return stored
        return candidate

    def shown_message(self, message_id: str) -> ShownMessage | None:
        return record_of(ShownMessage, self._get(item_key(f"M#{message_id}", "SHOWN")))

    def rate_message(self, feedback: Feedback) -> None:
        values = dataclasses.asdict(feedback) | {TTL_ATTRIBUTE: self._expires()}
        item = item_key(f"F#{feedback.message}", "FEEDBACK") | attributes(values)
        check_item(f"the thumb on message {feedback.message}", item_size(item))
        self._call("put_item", TableName=self.table, Item=item)

    def feedback(self, message_id: str) -> Feedback | None:
        return record_of(Feedback, self._get(item_key(f"F#{message_id}", "FEEDBACK")))

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        """One UpdateItem, conditioned on the pause existing so an unknown id writes nothing.

        A delivery noted as delivered is also flagged in an attribute of its own, which ``claim_delivery``'s
        condition can read (the outcome is JSON text).
        """
        terms = Terms()
        sets = [terms.equal("delivery", records.dump(outcome))]
        delivered = outcome.get("delivered") is True
        sets += [terms.equal(DELIVERED, 1)] if delivered else []
        removes = [] if delivered else [terms.name(DELIVERED)]
        with suppress(ClientError):
            self._call(
                "update_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Key=item_key(f"R#{run_id}", f"P#{pause_id}"),
                UpdateExpression=update_expression(sets, removes),
                ConditionExpression=terms.present(self.clock()),
                **terms.fields(),
            )

    def claim_delivery(self, run_id: str, pause_id: str, now: float, hold: float) -> bool:
        """One conditional UpdateItem on the pause: its claim's time, unless delivered or claimed within ``hold``."""
        terms = Terms()
        unclaimed = f"{terms.absent(CLAIMED)} OR {terms.name(CLAIMED)} <= {terms.value(now - hold)}"
        condition = f"{terms.present(self.clock())} AND {terms.absent(DELIVERED)} AND ({unclaimed})"
        return self._updated_if(run_id, pause_id, f"SET {terms.equal(CLAIMED, now)}", condition, terms)

    def claim_wake(self, run_id: str, pause_id: str, woken: int, now: float, until: float) -> bool:
        """One conditional UpdateItem: ``wake_at`` moves to ``until`` where the pause is open, at ``woken`` and due."""
        terms = Terms()
        due = f"{terms.name(WAKE_KEYS[1])} <= {terms.value(now)}"
        return self._rewake(run_id, pause_id, woken, terms, [terms.equal(WAKE_KEYS[1], until)], [], due)

    def set_wake(self, run_id: str, pause_id: str, woken: int, then: tuple[int, float | None]) -> bool:
        """One conditional UpdateItem: ``woken`` and ``wake_at`` become ``then`` where the pause is open and at
        ``woken``; a ``wake_at`` of None takes the pause out of the wake index."""
        terms = Terms()
        sets = [terms.equal("woken", then[0])]
        removes: list[str] = []
        if then[1] is None:
            removes += [terms.name(name) for name in WAKE_KEYS]
        else:
            sets += [terms.equal(WAKE_KEYS[0], wake_shard(pause_id)), terms.equal(WAKE_KEYS[1], then[1])]
        return self._rewake(run_id, pause_id, woken, terms, sets, removes)

    def _rewake(
        self,
        run_id: str,
        pause_id: str,
        woken: int,
        terms: Terms,
        sets: list[str],
        removes: list[str],
        *conditions: str,
    ) -> bool:
        """Update the pause's wake where it is there, open and at ``woken`` (a pause stored before deadlines has
        no ``woken``: it is at 0), and every one of ``conditions`` holds; False where not."""
        at = terms.equal("woken", woken)
        if woken == 0:
            at = f"({at} OR {terms.absent('woken')})"
        condition = " AND ".join([terms.present(self.clock()), terms.equal("status", "open"), at, *conditions])
        return self._updated_if(run_id, pause_id, update_expression(sets, removes), condition, terms)

    def _updated_if(self, run_id: str, pause_id: str, update: str, condition: str, terms: Terms) -> bool:
        """One UpdateItem of the pause under ``condition``; whether it held (and the pause was written)."""
        try:
            self._call(
                "update_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Key=item_key(f"R#{run_id}", f"P#{pause_id}"),
                UpdateExpression=update,
                ConditionExpression=condition,
                **terms.fields(),
            )
        except ClientError:
            return False
        return True

    def due_pauses(self, now: float, limit: int = 100) -> list[PauseRecord]:
        """The soonest due of each shard of the sparse wake index, read again by key (strongly consistent, one
        BatchGetItem a hundred), so a pause answered, closed or moved since the index last saw it is left out:
        a page may then be short, and the clock's next round finds what it missed."""
        records.check_limit(limit)
        if limit == 0:
            return []
        listed = sorted(
            (item for shard in range(WAKE_SHARDS) for item in self._due_in(f"{shard:02d}", now, limit)),
            key=lambda item: (float(item[WAKE_KEYS[1]]["N"]), item["sk"]["S"]),
        )[:limit]
        found = self._batch_get([{"pk": item["pk"], "sk": item["sk"]} for item in listed])
        pauses = [from_item(PauseRecord, item) for item in found.values()]
        due = [p for p in pauses if p.status == "open" and p.wake_at is not None and p.wake_at <= now]
        return sorted(due, key=lambda pause: (pause.wake_at or 0.0, pause.id))

    def _due_in(self, shard: str, now: float, limit: int) -> Iterator[Item]:
        """The first ``limit`` pauses of one shard of the wake index due at ``now``, soonest first, that have not
        expired (by ``clock``, as every read tells).  ``Limit`` applies before the filter, so a page may hold fewer
        and the next page is read: expired pauses TTL has yet to delete never hold up the rest."""
        terms = Terms()
        condition = f"{terms.equal(WAKE_KEYS[0], shard)} AND {terms.name(WAKE_KEYS[1])} <= {terms.value(now)}"
        pages = self._pages(
            TableName=self.table,
            IndexName="wake",
            KeyConditionExpression=condition,
            FilterExpression=terms.unexpired(self.clock()),
            ScanIndexForward=True,
            Limit=limit,
            **terms.fields(),
        )
        return itertools.islice(pages, limit)

    def prune(self, now: float, *, dry_run: bool = False) -> Pruned:
        """TTL removes what expired; this keeps what each thread with an active run holds from expiring.

        Every item of the thread's partition, of its active run's and of the run that one undoes (a rollback's
        target, whose journal it reads) that would expire within half the retention gets ``expires`` moved to a
        whole retention from ``now``, each write conditioned on the item still being there, unexpired.  What
        expired already stays expired: TTL may have deleted part of it, and reads treat it as gone.  The
        partitions are read whole (billed by their size), so an older item is found however recently the thread
        itself was written.
        """
        soon, later = now + self.retention / 2, int(now + self.retention)
        expiring = [key for thread in self._live(now) for key in self._expiring(thread, now, soon)]
        if not dry_run:
            for key in expiring:
                self._keep(key, now, later)
        return Pruned(kept=len(expiring))

    def stale_runs(self, now: float, limit: int = 100) -> list[RunRecord]:
        """The live index's threads whose active run is still ``running`` with its lease run out."""
        stale: list[RunRecord] = []
        for thread in self._live(now):
            if len(stale) >= limit:
                break
            run_id = plain(thread.get("active_run"))
            run = None if run_id is None else self.get_run(run_id)
            if run is not None and run.status == "running" and (run.lease_until or 0) < now:
                stale.append(run)
        return stale

    def due_deliveries(self, now: float, limit: int = 100) -> list[PauseRecord]:
        """The open pauses of the live index's threads' active runs whose announcement is due: a pause is only
        open while its run is active, so no other partition needs reading."""
        records.check_limit(limit)
        due: list[tuple[float, PauseRecord]] = []
        for thread in self._live(now):
            run_id = plain(thread.get("active_run"))
            for pause in [] if run_id is None else self.run_pauses(run_id):
                at = delivery_due(pause)
                if at is not None and at <= now:
                    due.append((at, pause))
        return [pause for _, pause in sorted(due, key=lambda pair: pair[0])][:limit]

    def inbox(
        self,
        *,
        before: Position | None = None,
        limit: int = 50,
        kind: str | None = None,
        tool: str | None = None,
        parties: Sequence[str] = (ANYONE,),
    ) -> list[InboxEntry]:
        """The open pauses listed under ``parties``, newest first: each party's shards queried (small items, keys and
        what the filters read), merged, then the pauses, their runs and owners read by BatchGetItem.

        Pauses opened before listings are read from the old inbox index too, until they close.  Listings are read
        eventually consistent: a pause answered a moment ago may still be listed, and is left out once read.
        """
        records.check_limit(limit)
        partitions = sorted({listing_partition(party, shard) for party in parties for shard in range(LISTING_SHARDS)})
        requests = [self._listed_in(partition, before, kind, tool, limit) for partition in partitions]
        requests.append(self._opened_before_listings(before, kind, tool, limit))
        pages = self._queried_together(requests)
        streams = [*(map(_listed, page) for page in pages[:-1]), map(_indexed, pages[-1])]
        unique = (key for key, _ in itertools.groupby(heapq.merge(*streams, reverse=True)))
        entries: list[InboxEntry] = []
        while len(entries) < limit:
            batch = list(itertools.islice(unique, limit - len(entries)))
            if not batch:
                break
            found = self._batch_get([item_key(f"R#{run}", f"P#{pause_id}") for _, run, pause_id in batch])
            still = [item for _, run, pause_id in batch if (item := found.get((f"R#{run}", f"P#{pause_id}")))]
            entries += self._with_runs_and_owners([item for item in still if plain(item.get("status")) == "open"])
        return entries

    def _listed_in(
        self, partition: str, before: Position | None, kind: str | None, tool: str | None, page: int
    ) -> dict[str, Any]:
        """The Query of one party's shard of listings, newest first, strictly before ``before``."""
        terms = Terms()
        condition = terms.equal("pk", partition)
        if before is not None:
            condition += f" AND {terms.name('sk')} < {terms.value(opened(*before))}"
        return self._inbox_request(kind, tool, terms, condition, page)

    def _opened_before_listings(
        self, before: Position | None, kind: str | None, tool: str | None, page: int
    ) -> dict[str, Any]:
        """The Query of the old inbox index (pauses opened before listings), newest first, strictly before
        ``before``."""
        terms = Terms()
        condition = terms.equal(INBOX_KEYS[0], OPEN)
        if before is not None:
            condition += f" AND {terms.name(INBOX_KEYS[1])} < {terms.value(opened(*before))}"
        return self._inbox_request(kind, tool, terms, condition, page) | {"IndexName": "inbox"}

    def _queried_together(self, requests: list[dict[str, Any]]) -> list[Iterator[Item]]:
        """Each query's items as its pages come, the first pages asked for at once (a reader's parties' shards are
        a dozen or more partitions: one round trip, not a dozen), the rest only where the merge reads on."""
        with ThreadPoolExecutor(max_workers=min(len(requests), QUERIES_AT_ONCE)) as pool:
            firsts = list(pool.map(lambda request: self._call("query", **request), requests))
        return [self._pages_after(first, dict(request)) for first, request in zip(firsts, requests, strict=True)]

    def _pages_after(self, first: dict[str, Any], request: dict[str, Any]) -> Iterator[Item]:
        yield from first.get("Items", [])
        if "LastEvaluatedKey" in first:
            yield from self._pages(**request, ExclusiveStartKey=first["LastEvaluatedKey"])

    def _inbox_request(self, kind: str | None, tool: str | None, terms: Terms, condition: str, page: int) -> Item:
        """A newest-first Query of ``condition``; the filters (and unexpired) apply after ``Limit``, so a page may
        hold fewer and the next page is read."""
        filters = [terms.unexpired(self.clock())]
        filters += [terms.equal("kind", kind)] if kind is not None else []
        filters += [terms.equal("tool", tool)] if tool is not None else []
        return {
            "TableName": self.table,
            "KeyConditionExpression": condition,
            "FilterExpression": " AND ".join(filters),
            "ScanIndexForward": False,
            "Limit": max(page, 1),
            **terms.fields(),
        }

    def _with_runs_and_owners(self, items: list[Item]) -> list[InboxEntry]:
        """The pauses as entries, their runs and threads read together; a thread owned before owners moved onto
        its item has its owner read from its OWNER item (one more request, only where one is missing)."""
        pauses = [from_item(PauseRecord, item) for item in items]
        threads = sorted({pause.thread for pause in pauses})
        runs_of = sorted({pause.run for pause in pauses})
        found = self._batch_get([*map(run_key, runs_of), *map(thread_key, threads)])
        runs = {pk[2:]: run_seen(item, self._memory) for (pk, sk), item in found.items() if sk == "RUN"}
        owners: dict[str, str | None] = {}
        for thread in threads:
            item = found.get((f"T#{thread}", "THREAD"))
            self._memory.saw(thread, number(item, "seq"))
            owners[thread] = plain((item or {}).get("owner"))
        unowned = [thread for thread in threads if owners[thread] is None and (f"T#{thread}", "THREAD") in found]
        if unowned:
            legacy = self._batch_get([item_key(f"T#{thread}", "OWNER") for thread in unowned])
            owners |= {pk[2:]: plain(item.get("value")) for (pk, _), item in legacy.items()}
        return [
            InboxEntry(pause, run, owners[pause.thread]) for pause in pauses if (run := runs.get(pause.run)) is not None
        ]

    def _batch_get(self, keys: list[Item]) -> dict[tuple[str, str], Item]:
        """The unexpired items of ``keys`` by (pk, sk), read strongly consistent, ``BATCH_GET`` keys a request.

        Keys DynamoDB leaves unprocessed (throttled) are asked again after a backoff.
        """
        found: dict[tuple[str, str], Item] = {}
        pending, throttled = list(keys), 0
        while pending:
            batch, pending = pending[:BATCH_GET], pending[BATCH_GET:]
            request = {self.table: {"Keys": batch, "ConsistentRead": True}}
            answer = self._call("batch_get_item", RequestItems=request)
            now = self.clock()
            for item in answer.get("Responses", {}).get(self.table, []):
                if not expired(item, now):
                    found[item["pk"]["S"], item["sk"]["S"]] = item
            unprocessed = answer.get("UnprocessedKeys", {}).get(self.table, {}).get("Keys", [])
            if unprocessed:
                if throttled == ATTEMPTS:
                    raise StorageUnavailable(f"the DynamoDB table {self.table} {THROTTLED}")
                pending = unprocessed + pending
                time.sleep(_backoff(throttled))
                throttled += 1
        return found

    def _live(self, now: float) -> Iterator[Item]:
        """The item of every unexpired thread with an active run, shard by shard of the sparse live index."""
        for shard in range(LIVE_SHARDS):
            terms = Terms()
            condition = terms.equal("live", f"{shard:02d}")
            pages = self._pages(
                TableName=self.table, IndexName="live", KeyConditionExpression=condition, **terms.fields()
            )
            yield from (thread for thread in pages if not expired(thread, now))

    def _expiring(self, thread: Item, now: float, soon: float) -> list[Item]:
        """The keys of the unexpired items, of the thread's partition, its active run's and that run's saga target's,
        that expire before ``soon``; with each open pause among them, its inbox listings (written with it)."""
        active = plain(thread.get("active_run"))
        runs = [] if active is None else [active, *self._undone(active, now)]
        keys: list[Item] = []
        for partition in [thread["pk"]["S"], *(f"R#{run}" for run in runs)]:
            terms = Terms()
            ttl = terms.name(TTL_ATTRIBUTE)
            projected = ", ".join(terms.name(name) for name in ("pk", "sk", PARTIES, "status", "created_at"))
            for item in self._pages(
                TableName=self.table,
                KeyConditionExpression=terms.equal("pk", partition),
                FilterExpression=f"{ttl} > {terms.value(now)} AND {ttl} < {terms.value(soon)}",
                ProjectionExpression=projected,
                **terms.fields(),
            ):
                keys.append({"pk": item["pk"], "sk": item["sk"]})
                listing = listing_of(item) if item["sk"]["S"].startswith("P#") else None
                if listing is not None:
                    keys += [listing_key(party, item["sk"]["S"][2:], listing[0]) for party in listing[1]]
        return keys

    def _undone(self, run_id: str, now: float) -> list[str]:
        """The run that ``run_id`` undoes, if it is a rollback of another: its state's saga names it.

        The engine's RunState writes the saga as ``{"saga": {"target": ...}}``; the store reads only that.
        """
        terms = Terms()
        projection = f"{terms.name('state')}, {terms.name(TTL_ATTRIBUTE)}"
        item = visible(self._read(run_key(run_id), ProjectionExpression=projection, **terms.fields()), now)
        state = records.load(plain((item or {}).get("state"))) or {}
        saga = state.get("saga") if isinstance(state, dict) else None
        target = saga.get("target") if isinstance(saga, dict) else None
        return [target] if isinstance(target, str) and target != run_id else []

    def _keep(self, key: Item, now: float, expires: int) -> None:
        terms = Terms()
        with suppress(ClientError):
            self._call(
                "update_item",
                expected=("ConditionalCheckFailedException",),
                TableName=self.table,
                Key=key,
                UpdateExpression=f"SET {terms.equal(TTL_ATTRIBUTE, expires)}",
                ConditionExpression=terms.present(now),
                **terms.fields(),
            )

    def _expires(self) -> int:
        return int(self.clock() + self.retention)

    def _stamp(self) -> Stamp:
        now = self.clock()
        return Stamp(uuid.uuid4().hex, int(now + self.retention), now)

    def _outcome(self, transaction: Transaction) -> Outcome:
        """Whether DynamoDB applied the transaction; one refused (cancelled on a condition) raises its error.

        Not applied, the commit tries again: at once where only a guess failed (now corrected), after a backoff
        where it met a conflict or a throttle.  An answer lost on the way back (a read timeout, a dropped
        connection, a 500) leaves the outcome unknown, so the same request with the same token is sent again
        (through throttles too), and DynamoDB answers it as the first went: a success if that was applied,
        without applying it twice.  Where no answer comes at all, the items are read back.
        """
        request = {"TransactItems": transaction.requests(), "ClientRequestToken": transaction.token}
        for settling in range(SETTLE_ATTEMPTS):
            try:
                if self._sent(request):
                    return "applied"
            except ClientError as exc:
                if _code(exc) == "TransactionCanceledException":
                    reasons = exc.response.get("CancellationReasons", [])
                    judge(transaction, reasons, self.table)
                    contended = any(reason.get("Code") in RETRIED_REASONS for reason in reasons)
                    return "contended" if contended else "corrected"
                if not settling:
                    return "contended"
            time.sleep(_backoff(settling))
        return "applied" if self._read_back(transaction) else "contended"

    def _sent(self, request: dict[str, Any]) -> bool:
        """Send once: True if applied, False if unknown; a cancellation or a throttle raises its ClientError."""
        try:
            self._client.transact_write_items(**request)
        except HTTPClientError:
            return False
        except ClientError as exc:
            code = _code(exc)
            if code in UNSETTLED:
                return False
            if code == "TransactionCanceledException" or code in THROTTLES:
                raise
            if code == MISMATCH:
                raise StorageError(
                    f"the DynamoDB table {self.table} refused a commit whose request token another request used"
                ) from exc
            raise self._error(exc) from exc
        except BotoCoreError as exc:
            raise self._error(exc) from exc
        return True

    def _read_back(self, transaction: Transaction) -> bool:
        """Whether an item the transaction writes carries its token: all were written, or none.

        Events come first, as nothing rewrites them.  No item carrying it means the transaction was not
        applied, or every item was rewritten since, by writers whose conditions the retry then meets.
        """
        terms = Terms()
        projection = terms.name(TOKEN)
        for key in transaction.keys_to_read_back():
            item = self._call(
                "get_item",
                TableName=self.table,
                Key=item_key(*key),
                ConsistentRead=True,
                ProjectionExpression=projection,
                **terms.fields(),
            ).get("Item")
            if plain((item or {}).get(TOKEN)) == transaction.token:
                return True
        return False

    def _pause_run(self, claim: PauseOpen) -> str:
        pause = self.get_pause(claim.pause_id)
        if pause is None:
            raise claim.refused(None)
        return pause.run

    def _thread_run(self, thread: str, attribute: str) -> RunRecord | None:
        item = self._get(thread_key(thread))
        self._memory.saw(thread, number(item, "seq"))
        if item is None or "owner" in item:
            self._memory.owned(thread, plain((item or {}).get("owner")))
        run_id = plain((item or {}).get(attribute))
        return None if run_id is None else self.get_run(run_id)

    def _run_items(self, run_id: str, prefix: str = "") -> list[Item]:
        terms = Terms()
        condition = terms.equal("pk", f"R#{run_id}")
        if prefix:
            condition += f" AND begins_with({terms.name('sk')}, {terms.value(prefix)})"
        return self._query(None, terms, condition)

    def _query(self, limit: int | None, terms: Terms, condition: str) -> list[Item]:
        """Every unexpired item a strongly consistent query finds (up to ``limit``), page after page.

        DynamoDB applies ``Limit`` before the filter, so a page may hold fewer items than it was asked for
        (expired ones read and dropped) and still have more after it: the next page asks for what is missing.
        """
        request: dict[str, Any] = {"KeyConditionExpression": condition}
        request["FilterExpression"] = terms.unexpired(self.clock())
        request |= terms.fields()
        items: list[Item] = []
        while True:
            page_limit: dict[str, Any] = {} if limit is None else {"Limit": limit - len(items)}
            page = self._call("query", TableName=self.table, ConsistentRead=True, **page_limit, **request)
            items += page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if start is None or (limit is not None and len(items) >= limit):
                return items
            request["ExclusiveStartKey"] = start

    def _pages(self, **request: Any) -> Iterator[Item]:
        """Every item an eventually consistent query finds, as its pages come: what upkeep reads, never a run."""
        while True:
            page = self._call("query", **request)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _get(self, key: Item) -> Item | None:
        """The item, read strongly consistent; None where it is missing or expired."""
        return visible(self._read(key), self.clock())

    def _read(self, key: Item, **request: Any) -> Item | None:
        """The item as stored, expired or not."""
        item: Item | None = self._call("get_item", TableName=self.table, Key=key, ConsistentRead=True, **request).get(
            "Item"
        )
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
            if _code(exc) in expected:
                raise
            raise self._error(exc) from exc
        except BotoCoreError as exc:
            raise self._error(exc) from exc

    def _error(self, exc: ClientError | BotoCoreError) -> StalwartError:
        if isinstance(exc, ClientError):
            code, message = _code(exc), str(exc.response.get("Error", {}).get("Message", ""))
            if code == "ValidationException" and "size" in message.lower():
                return ValueTooLarge(f"the DynamoDB table {self.table} refused an item over its limit of 400 KB")
            problem = UNAVAILABLE.get(code)
            if problem is None:
                return StorageError(f"the DynamoDB table {self.table} refused a request ({code})")
            return StorageUnavailable(f"the DynamoDB table {self.table} {problem.format(region=self.region)}")
        if isinstance(exc, (NoCredentialsError, PartialCredentialsError)):
            return StorageUnavailable(f"the DynamoDB table {self.table} {DENIED}")
        if isinstance(exc, (BotoConnectionError, HTTPClientError)):
            where = self.endpoint or f"DynamoDB in {self.region}"
            return StorageUnavailable(f"the DynamoDB table {self.table} cannot be reached at {where}")
        return StorageUnavailable(f"the DynamoDB table {self.table} cannot be used ({type(exc).__name__})")


def _listed(item: Item) -> tuple[str, str, str]:
    """A listing as the inbox merges it: (where it sorts, its run, its pause)."""
    sort = item["sk"]["S"]
    return sort, str(plain(item["run"])), sort.split("#", 1)[1]


def _indexed(item: Item) -> tuple[str, str, str]:
    """An old inbox index entry as the inbox merges it."""
    return item[INBOX_KEYS[1]]["S"], item["pk"]["S"][2:], item["sk"]["S"][2:]


def _pauses(items: list[Item]) -> list[PauseRecord]:
    pauses = [from_item(PauseRecord, item) for item in items if item["sk"]["S"].startswith("P#")]
    return sorted(pauses, key=lambda pause: (pause.step, pause.created_at, pause.id))


def _journal(items: list[Item]) -> list[JournalEntry]:
    entries = [item for item in items if item["sk"]["S"].startswith("J#")]
    entries.sort(key=lambda item: (number(item, "started") or 0, item["sk"]["S"]))
    return [from_item(JournalEntry, item) for item in entries]
