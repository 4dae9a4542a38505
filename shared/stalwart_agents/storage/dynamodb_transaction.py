"""One attempt at a DynamoDB commit: the items its transaction writes, and what a cancellation of it means.

Each item carries its condition; a cancelled transaction's old images say which
condition failed and what is stored, so a lost race is raised with the current
record without another read, and a wrong guess is corrected for the next attempt.
Conditions treat an expired item as gone: a new item is put over it, one that must
be stored is refused, and a thread whose item expired begins anew on it.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..errors import StalwartError, StorageError, ValueTooLarge
from . import _records as records
from ._conditions import Check, EntryAt, EntryNew, PauseNew, PauseOpen, RunAt, RunNew, ThreadFree, checks
from .base import ANYONE, Changes, Committed, JournalEntry, PauseRecord, RunRecord, pause_tool, record_position, text
from .chain import GENESIS, Head, head_after, linked
from .dynamodb_items import (
    INBOX_KEYS,
    TOKEN,
    WAKE_KEYS,
    Item,
    Stamp,
    Terms,
    attributes,
    expired,
    expiry,
    item_key,
    listed_under,
    listing_key,
    number,
    pause_attributes,
    plain,
    record_key,
    record_of,
    record_place,
    record_shard,
    run_key,
    shard_of,
    thread_key,
    update_expression,
    visible,
)
from .dynamodb_schema import TTL_ATTRIBUTE
from .dynamodb_sizes import NUMBER_LIMIT, check_item, check_transaction, item_size, value_size

MAX_ITEMS = 100
GUESS = sys.maxsize  # the place of a failed guess: after every condition of the commit, so those are raised first
RETRIED_REASONS = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}
THREAD_RECORDS = ("owner", "last_run", "active_run", "live")
"""What a thread's item says of the thread besides its event counter: none of it outlives the item's expiry."""

Verdict = tuple[int, StalwartError | None]


Listing = tuple[float, tuple[str, ...]]
"""Where an open pause is listed for the inbox: its ``created_at``, and the parties it is listed under."""
REMEMBERED = 10_000
"""Owners and listings a process remembers, the least recently learnt forgotten first."""


class Memory:
    """What this process remembers between requests: each thread's event counter as last seen and owner; where each
    open pause it read or wrote is listed; the journal's clock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seqs: dict[str, int] = {}
        self._owners: OrderedDict[str, str | None] = OrderedDict()
        self._listings: OrderedDict[str, Listing | None] = OrderedDict()
        self._last_started = 0
        self._heads: OrderedDict[str, Head] = OrderedDict()

    def owner(self, thread: str) -> tuple[bool, str | None]:
        """Whether the thread's owner is known here, and who it is (None: nobody's)."""
        with self._lock:
            return thread in self._owners, self._owners.get(thread)

    def owned(self, thread: str, owner: str | None) -> None:
        self._learn(self._owners, thread, owner)

    def listing(self, pause_id: str) -> tuple[bool, Listing | None]:
        """Whether where the pause is listed is known here, and where (None: nowhere, or in the old index alone)."""
        with self._lock:
            return pause_id in self._listings, self._listings.get(pause_id)

    def listed(self, pause_id: str, listing: Listing | None) -> None:
        self._learn(self._listings, pause_id, listing)

    def _learn(self, known: OrderedDict[str, Any], key: str, value: Any) -> None:
        with self._lock:
            known[key] = value
            known.move_to_end(key)
            if len(known) > REMEMBERED:
                known.popitem(last=False)

    def head(self, thread: str) -> Head:
        """Where the thread's decision record ends, as this process last wrote or read it (else: no entry)."""
        with self._lock:
            return self._heads.get(thread, Head())

    def headed(self, thread: str, head: Head) -> None:
        self._learn(self._heads, thread, head)

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


def run_seen(item: Item | None, memory: Memory) -> RunRecord | None:
    """The run an item holds; its ``tseq`` tells this process its thread's event counter."""
    run = record_of(RunRecord, item)
    if run is not None:
        memory.saw(run.thread, number(item, "tseq"))
    return run


def judge(transaction: Transaction, reasons: list[dict[str, Any]], table: str) -> None:
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
class Write:
    """One item of a transaction, what it holds (named as a person would, and its size as DynamoDB counts it),
    and what its failed condition means: an error to raise, or a guess to retry."""

    request: dict[str, Any]
    position: int
    what: str
    size: int
    verdict: Callable[[Item | None], Verdict] = lambda old: (GUESS, None)
    optional: bool = False
    """Left out where the transaction would pass DynamoDB's items: a closed pause's listing, which a reader skips
    (the pause it reads back is not open) until TTL removes it."""

    @property
    def key(self) -> tuple[str, str]:
        body = next(iter(self.request.values()))
        key = body.get("Key") or body["Item"]
        return key["pk"]["S"], key["sk"]["S"]


@dataclass
class Guesses:
    """What a commit assumes of items it does not read; each is written as a condition, and corrected when wrong."""

    seqs: dict[str, int]
    run_thread: str | None = None
    pause_run: str | None = None
    inactive: set[str] = field(default_factory=set)
    expired: dict[str, float] = field(default_factory=dict)
    """Threads whose item was found expired, by its ``expires``: the item is begun anew, if still as found."""
    unowned: dict[str, bool] = field(default_factory=dict)
    """Threads a begin found an item of without an owner: whether the legacy owner item was read since, and was the
    begin's owner's or none (so the begin's owner becomes the thread's)."""
    settled: set[str] = field(default_factory=set)
    """Pauses a close found not open (answered, closed, or gone): the retry leaves them be."""
    owners: dict[str, str] = field(default_factory=dict)
    """The party of the owner of each thread a commit opens pauses in (``anyone`` where not known): each new open
    pause is listed under it."""
    listings: dict[str, Listing | None] = field(default_factory=dict)
    """Where the pauses a commit answers or closes are listed: their listings are deleted with them."""
    heads: dict[str, Head] = field(default_factory=dict)
    """Where the decision record of each thread the commit appends to ends."""


@dataclass
class ThreadChange:
    """Everything one commit does to one thread's item, which a transaction may touch only once."""

    thread: str
    free: tuple[int, ThreadFree] | None = None
    begun: RunNew | None = None
    finished: str | None = None
    events: int = 0


class Transaction:
    """The items one attempt at a commit writes, each with its condition and the meaning of its failure.

    A check's writes take its place in ``checks``' order, so the first refused
    in that order is the one raised; events and shown messages have no condition.
    Every item carries the attempt's stamp.
    """

    def __init__(
        self, table: str, changes: Changes, rows: records.Rows, guesses: Guesses, memory: Memory, stamp: Stamp
    ) -> None:
        self._table, self._changes, self._rows, self._guesses, self._memory = table, changes, rows, guesses, memory
        self._stamp = stamp
        self._threads: dict[str, ThreadChange] = {}
        self.writes: list[Write] = []
        self.event_ids: list[int] = []
        self.listed: dict[str, Listing] = {}
        """Where each new open pause is listed: for this process to remember once the transaction is applied."""
        self.heads: dict[str, Head] = {}
        """Where each thread's decision record ends once the transaction is applied."""
        self._closing = self._closes()
        for position, check in enumerate(checks(changes, rows)):
            self._add(position, check)
        self._close()
        self._events()
        self._record()
        self._shown()
        self.writes += [self._thread_write(change) for change in self._threads.values()]

    @property
    def token(self) -> str:
        return self._stamp.token

    @property
    def _now(self) -> float:
        return self._stamp.now

    def requests(self) -> list[dict[str, Any]]:
        """The transaction's items, once they are known to fit DynamoDB's limits (else ValueTooLarge)."""
        if len(self.writes) > MAX_ITEMS:
            surplus = len(self.writes) - MAX_ITEMS
            optional = [write for write in self.writes if write.optional][:surplus]
            self.writes = [write for write in self.writes if not any(write is left for left in optional)]
        if len(self.writes) > MAX_ITEMS:
            raise ValueTooLarge(
                f"a commit would write {len(self.writes)} items; DynamoDB takes at most {MAX_ITEMS} in one transaction"
            )
        keys = [write.key for write in self.writes]
        if len(set(keys)) < len(keys):
            raise ValueError("a commit writes one item twice (the same run, pause or journal key): DynamoDB refuses it")
        for write in self.writes:
            check_item(write.what, write.size)
        check_transaction([(write.what, write.size) for write in self.writes])
        return [write.request for write in self.writes]

    def keys_to_read_back(self) -> list[tuple[str, str]]:
        """The keys written, events first: nothing rewrites an event, so one settles whether the commit landed."""
        return sorted((write.key for write in self.writes), key=lambda key: not key[1].startswith("E#"))

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
                what = f"run {check.run['id']}"
                self._put_new(self._run_item(check.run), position, what, RunRecord, check.refused)
            case PauseOpen():
                self._claim(position, check)
            case RunAt():
                self._save(position, check)
            case PauseNew():
                row = self._closed_at_once(check.pause)
                parties = self._list(row) if row["status"] == "open" else ()
                item = item_key(f"R#{row['run']}", f"P#{row['id']}") | self._item(row)
                what = f"pause {row['id']} of run {row['run']}"
                self._put_new(item | pause_attributes(row, parties), position, what, PauseRecord, check.refused)
            case EntryNew():
                row = check.entry | {"started": self._memory.started()}
                item = item_key(f"R#{row['run']}", f"J#{row['key']}") | self._item(row)
                self._put_new(item, position, entry_named(row), JournalEntry, check.refused)
            case EntryAt():
                self._update_entry(position, check)

    def _list(self, row: records.Row) -> tuple[str, ...]:
        """Put the new open pause's listings, one small item a party (what an inbox page filters on), under its
        thread's owner and the parties the commit names for it; the parties it is listed under."""
        parties = listed_under(self._guesses.owners.get(row["thread"], ANYONE), self._changes.parties.get(row["id"]))
        shown = {"run": row["run"], "thread": row["thread"], "kind": row["kind"]}
        shown["tool"] = pause_tool(records.load(row["payload"]))
        for party in parties:
            item = listing_key(party, row["id"], row["created_at"]) | self._item(shown)
            self._put({"Item": item}, GUESS, f"the inbox listing of pause {row['id']}", lambda old: (GUESS, None))
        self.listed[row["id"]] = (row["created_at"], parties)
        return parties

    def _unlist(self, pause_id: str, *, optional: bool = False) -> None:
        """Delete the pause's listings, in the transaction that answers or closes it (``optional`` for a close)."""
        listing = self._guesses.listings.get(pause_id)
        if listing is None:
            return
        created_at, parties = listing
        for party in parties:
            key = listing_key(party, pause_id, created_at)
            request = {"Delete": {"TableName": self._table, "Key": key}}
            what = f"the inbox listing of pause {pause_id}"
            self.writes.append(Write(request, GUESS, what, item_size(key), optional=optional))

    def _item(self, values: Mapping[str, Any]) -> Item:
        return attributes(values) | self._stamp.attributes()

    def _thread(self, thread: str) -> ThreadChange:
        return self._threads.setdefault(thread, ThreadChange(thread))

    def _tseq(self, thread: str) -> int | None:
        """The thread's event counter as this commit leaves it, kept on the run so that reading the run tells it."""
        events = sum(event.thread == thread for event in self._changes.events)
        return self._guesses.seqs[thread] + events if events else self._memory.seq(thread)

    def _put(
        self, request: dict[str, Any], position: int, what: str, verdict: Callable[[Item | None], Verdict]
    ) -> None:
        request = {"TableName": self._table, **request}
        self.writes.append(Write({"Put": request}, position, what, item_size(request["Item"]), verdict))

    def _put_new(
        self, item: Item, position: int, what: str, kind: type, refused: Callable[[Any], StalwartError]
    ) -> None:
        """Put an item that must not exist yet; the one found instead is what ``refused`` is given."""
        terms = Terms()

        def verdict(old: Item | None) -> Verdict:
            return position, None if not old else refused(record_of(kind, old))

        condition = {"ConditionExpression": terms.vacant(self._now), "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        self._put({"Item": item} | condition | terms.fields(), position, what, verdict)

    def _update(
        self, key: Item, terms: Terms, sets: list[str], removes: list[str], condition: str | None = None
    ) -> dict[str, Any]:
        """An Update request whose item is stamped too; its condition's failure returns the old item."""
        update = update_expression(sets + self._stamp.sets(terms), removes)
        request = {"TableName": self._table, "Key": key, "UpdateExpression": update}
        if condition:
            request |= {"ConditionExpression": condition, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        return {"Update": request | terms.fields()}

    def _run_item(self, row: dict[str, Any]) -> Item:
        return run_key(row["id"]) | self._item(row | {"tseq": self._tseq(row["thread"])})

    def _claim(self, position: int, check: PauseOpen) -> None:
        terms = Terms()
        sets = [terms.equal("status", "answered"), terms.equal("answer", check.answer)]
        key = item_key(f"R#{self._guesses.pause_run}", f"P#{check.pause_id}")
        condition = f"{terms.equal('status', 'open')} AND {terms.unexpired(self._now)}"
        request = self._update(key, terms, sets, [terms.name(name) for name in INBOX_KEYS + WAKE_KEYS], condition)
        verdict = partial(self._claimed, position, check)
        self.writes.append(
            Write(request, position, f"the answer to pause {check.pause_id}", set_size(request), verdict)
        )
        self._unlist(check.pause_id)

    def _claimed(self, position: int, check: PauseOpen, old: Item | None) -> Verdict:
        """No pause under the run guessed: the retry looks it up by id first (and finds it, or that there is none)."""
        if visible(old, self._now) is None:
            self._guesses.pause_run = None
            self._guesses.listings.pop(check.pause_id, None)
            return position, None
        return position, check.refused(record_of(PauseRecord, old))

    def _closes(self) -> dict[str, PauseRecord]:
        """The pauses to close, by id: those given open, but for the one the commit answers (then answered, not
        open) and those a failed try found not open."""
        claimed = None if self._changes.claim is None else self._changes.claim[0]
        return {
            pause.id: pause
            for pause in self._changes.closes
            if pause.status == "open" and pause.id != claimed and pause.id not in self._guesses.settled
        }

    def _close(self) -> None:
        """Close each pause left to close where it is still open; one found otherwise was a guess: the retry
        leaves it be, so a close never cancels its commit (the saved run's version condition covers the rest)."""
        for pause in self._closing.values():
            terms = Terms()
            key = item_key(f"R#{pause.run}", f"P#{pause.id}")
            condition = f"{terms.equal('status', 'open')} AND {terms.unexpired(self._now)}"
            removes = [terms.name(name) for name in INBOX_KEYS + WAKE_KEYS]
            request = self._update(key, terms, [terms.equal("status", "closed")], removes, condition)
            verdict = partial(self._not_open, pause.id)
            self.writes.append(Write(request, GUESS, f"the closing of pause {pause.id}", set_size(request), verdict))
            self._unlist(pause.id, optional=True)

    def _closed_at_once(self, pause: records.Row) -> records.Row:
        """A new pause the same commit closes is put closed (if put open): one write of its item, as it is left."""
        if self._closing.pop(pause["id"], None) is None or pause["status"] != "open":
            return pause
        return pause | {"status": "closed", "wake_at": None}

    def _not_open(self, pause_id: str, old: Item | None) -> Verdict:
        self._guesses.settled.add(pause_id)
        return GUESS, None

    def _save(self, position: int, check: RunAt) -> None:
        thread = self._guesses.run_thread
        assert thread is not None
        row = check.run | {"thread": thread}
        if check.finishes and thread not in self._guesses.inactive:
            self._thread(thread).finished = row["id"]
        terms = Terms()
        condition = f"{terms.equal('version', check.version)} AND {terms.equal('thread', thread)}"
        condition += f" AND {terms.unexpired(self._now)}"
        request = {
            "Item": self._run_item(row),
            "ConditionExpression": condition,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        self._put(request | terms.fields(), position, f"run {row['id']}", partial(self._saved, position, check))

    def _saved(self, position: int, check: RunAt, old: Item | None) -> Verdict:
        """A stale version is a conflict; the right version under another thread: the run keeps its stored thread."""
        current = run_seen(visible(old, self._now), self._memory)
        if current is None or current.version != check.version:
            return position, check.refused(current)
        self._guesses.run_thread = current.thread
        return GUESS, None

    def _update_entry(self, position: int, check: EntryAt) -> None:
        """Replace an entry's fields; its size is the whole entry's, as it will be stored."""
        terms = Terms()
        changed = {name: value for name, value in check.entry.items() if name not in ("run", "key")}
        sets = [terms.equal(name, value) for name, value in changed.items() if value is not None]
        removes = [terms.name(name) for name, value in changed.items() if value is None]
        condition = terms.equal("status", check.status)
        if check.attempt is not None:
            condition += f" AND {terms.equal('attempt', check.attempt)}"
        condition += f" AND {terms.unexpired(self._now)}"
        key = item_key(f"R#{check.entry['run']}", f"J#{check.entry['key']}")
        request = self._update(key, terms, sets, removes, condition)
        stored = item_size(key | self._item(check.entry)) + len("started") + NUMBER_LIMIT
        verdict = partial(self._refused_entry, position, check)
        self.writes.append(Write(request, position, entry_named(check.entry), stored, verdict))

    def _refused_entry(self, position: int, check: EntryAt, old: Item | None) -> Verdict:
        return position, check.refused(record_of(JournalEntry, visible(old, self._now)))

    def _events(self) -> None:
        """Each event put where no event is, or only an expired one: a stale counter never overwrites the log."""
        for (thread, body), event in zip(self._rows.events, self._changes.events, strict=True):
            change = self._thread(thread)
            change.events += 1
            event_id = self._guesses.seqs[thread] + change.events
            self.event_ids.append(event_id)
            item = item_key(f"T#{thread}", f"E#{event_id:012d}") | self._item({"body": body})
            kind = event.body.get("type")
            what = f"an event{f' ({kind})' if isinstance(kind, str) else ''} of thread {thread}"
            terms = Terms()
            condition = {"ConditionExpression": terms.vacant(self._now)} | terms.fields()
            self._put({"Item": item} | condition, GUESS, what, lambda old: (GUESS, None))

    def _record(self) -> None:
        """Each decision put after its thread's head as guessed, and the head moved on from exactly that guess: a
        wrong guess (another process decided in the thread since) fails the head's condition and is corrected from
        the head as stored, for the retry.  Neither carries ``expires``: the record outlives the thread."""
        for event in self._changes.events:
            if event.decision is None:
                continue
            thread = event.thread
            guessed = self._guesses.heads.setdefault(thread, self._memory.head(thread))
            entry = linked(thread, event.decision, self.heads.get(thread, guessed))
            self.heads[thread] = head_after(entry)
            position = record_position(entry)
            values = {"body": text(entry), "rk": record_shard(thread), "rt": record_place(position), TOKEN: self.token}
            terms = Terms()
            condition = {"ConditionExpression": terms.absent("pk")} | terms.fields()
            what = f"entry {entry['seq']} of the decision record of thread {thread}"
            self._put({"Item": record_key(thread, entry["seq"]) | attributes(values)} | condition, GUESS, what, _guess)
        for thread, head in self.heads.items():
            guessed = self._guesses.heads[thread]
            terms = Terms()
            held = terms.equal("seq", guessed.seq) if guessed.seq else terms.absent("pk")
            listed = {"rk": record_shard(thread, "heads"), "rt": thread}
            stored = {"seq": head.seq, "digest": head.digest, **listed, TOKEN: self.token}
            request = {"Item": record_key(thread) | attributes(stored), "ConditionExpression": held}
            request |= {"ReturnValuesOnConditionCheckFailure": "ALL_OLD"} | terms.fields()
            what = f"the head of the decision record of thread {thread}"
            self._put(request, GUESS, what, partial(self._headed, thread))

    def _headed(self, thread: str, old: Item | None) -> Verdict:
        stored = Head() if not old else Head(number(old, "seq") or 0, plain(old.get("digest")) or GENESIS)
        self._guesses.heads[thread] = stored
        self._memory.headed(thread, stored)
        return GUESS, None

    def _shown(self) -> None:
        """Insert-or-ignore inside a transaction, where a failed condition would cancel it: each attribute if absent."""
        first = {message.id: message for message in reversed(self._changes.shown)}
        for message in first.values():
            terms = Terms()
            values = dataclasses.asdict(message)
            sets = [
                f"{terms.name(name)} = if_not_exists({terms.name(name)}, {terms.value(value)})"
                for name, value in values.items()
            ]
            request = self._update(item_key(f"M#{message.id}", "SHOWN"), terms, sets, [])
            what = f"the reply {message.id} shown in thread {message.thread}"
            self.writes.append(Write(request, GUESS, what, set_size(request)))

    def _thread_write(self, change: ThreadChange) -> Write:
        """The thread's item: its runs, its event counter, when it expires, and whether the live index lists it.

        An item found expired is begun anew, if it is still as found: what it said of the old thread is removed
        and its counter goes on, so the new thread's events are put where no old one is.
        """
        terms = Terms()
        setting: dict[str, Any] = {}
        removing: list[str] = []
        renewed = self._guesses.expired.get(change.thread)
        conditions = [terms.unexpired(self._now) if renewed is None else terms.equal(TTL_ATTRIBUTE, renewed)]
        if change.free is not None and change.begun is not None:
            conditions += [terms.absent("active_run")] if renewed is None else []
            owner = change.free[1].owner
            if owner is not None:
                conditions += [self._owned(change.thread, owner, terms)] if renewed is None else []
                setting["owner"] = owner
            setting["last_run"] = change.begun.run["id"]
            if change.begun.active:
                setting |= {"active_run": change.begun.run["id"], "live": shard_of(change.thread)}
        elif change.finished is not None and renewed is None:
            conditions.append(terms.equal("active_run", change.finished))
            removing += ["active_run", "live"]
        if change.events:
            old = self._guesses.seqs[change.thread]
            conditions.append(terms.equal("seq", old) if old else terms.absent("seq"))
            setting["seq"] = old + change.events
        if renewed is not None:
            removing += [name for name in THREAD_RECORDS if name not in setting]
        sets = [terms.equal(name, value) for name, value in setting.items()]
        removes = [terms.name(name) for name in removing]
        request = self._update(thread_key(change.thread), terms, sets, removes, " AND ".join(conditions))
        position = GUESS if change.free is None else change.free[0]
        verdict = partial(self._thread_verdict, change)
        return Write(request, position, f"the record of thread {change.thread}", set_size(request), verdict)

    def _owned(self, thread: str, owner: str, terms: Terms) -> str:
        """The condition that a begin's thread is ``owner``'s: a new thread is, and one found without an owner
        once its legacy owner was read and was theirs or none."""
        theirs = terms.equal("owner", owner)
        if self._guesses.unowned.get(thread):
            return f"({theirs} OR {terms.absent('owner')})"
        return f"({theirs} OR {terms.absent('pk')})"

    def _thread_verdict(self, change: ThreadChange, old: Item | None) -> Verdict:
        """A begun run on another's thread is NotFound, on a busy one ThreadBusy; anything else failing here was a
        guess, fixed from ``old``: an expired item is a guess too, which the retry begins anew, and an item without
        an owner is, which the retry reads the legacy owner of first."""
        if expired(old, self._now):
            self._guesses.expired[change.thread] = expiry(old) or 0.0
        else:
            self._guesses.expired.pop(change.thread, None)
        found = visible(old, self._now) or {}
        active = plain(found.get("active_run"))
        if change.free is not None and found:
            position, free = change.free
            owner = plain(found.get("owner"))
            if owner is not None and not free.owned_by(owner):
                return position, free.not_theirs()
            if owner is None and free.owner is not None:
                self._guesses.unowned.setdefault(change.thread, False)
        if change.free is not None and active is not None:
            position, free = change.free
            return position, free.refused(active)
        seq = number(old, "seq") or 0
        self._guesses.seqs[change.thread] = seq
        self._memory.saw(change.thread, seq)
        if change.finished is not None and active != change.finished:
            self._guesses.inactive.add(change.thread)
        return GUESS, None


def _guess(old: Item | None) -> Verdict:
    return GUESS, None


def entry_named(entry: Mapping[str, Any]) -> str:
    return f"the journal entry of {entry['tool']} (call {entry['key']}) in run {entry['run']}"


def set_size(request: Mapping[str, Any]) -> int:
    """What an update adds to its item, at least: its key and the values it sets (the rest is already stored)."""
    body = request["Update"]
    names = body.get("ExpressionAttributeNames", {}).values()
    values = body.get("ExpressionAttributeValues", {}).values()
    return item_size(body["Key"]) + sum(len(name.encode()) for name in names) + sum(map(value_size, values))
