"""The decision record, read: exported for an auditor, and verified against its chain.

Every decision on a pause (a person's, through any door or channel, a link's, the clock's) is an entry of its
thread's record, written in the commit that took it (``engine.decided``) and chained by the store
(``storage.chain``).  ``entries`` reads them page by page; ``verify`` reads each thread's record in its own order
with its head and names every break; ``csv_rows`` flattens entries for a spreadsheet.  The JSON lines export is
exact (what ``verify`` and any other verifier check); the CSV is for reading.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..errors import BadRequest
from ..storage import Break, Head, Record, RecordPosition, record_position
from ..storage.chain import broken, decided_at
from ..vocabulary import CONTROL_CHARACTERS
from .admission import STORED_THREAD_MAX

PAGE = 500
CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]")
FORMATS = ("jsonl", "csv")
COLUMNS = (
    "thread",
    "seq",
    "at",
    "asked_at",
    "waited",
    "kind",
    "tool",
    "title",
    "decision",
    "outcome",
    "value",
    "by_issuer",
    "by_subject",
    "by_name",
    "verified",
    "channel",
    "rules",
    "approvals",
    "shown",
    "runs",
    "edits",
    "token",
    "prev",
    "digest",
)
"""The CSV export's columns: each entry's fields, who decided spread over four, nested ones as JSON."""
FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes a cell beginning with for a formula: such text is exported with a leading quote."""


def entries(store: Record, *, since: float = 0.0, thread: str | None = None) -> Iterator[dict[str, Any]]:
    """The record's entries decided at or after ``since``: one thread's in order, else every thread's by time."""
    if thread is not None:
        yield from _thread_entries(store, thread, since)
        return
    after = None
    while True:
        page = store.recorded(since, after, PAGE)
        yield from page
        if len(page) < PAGE:
            return
        after = record_position(page[-1])


def _thread_entries(store: Record, thread: str, since: float = 0.0) -> Iterator[dict[str, Any]]:
    after = 0
    while True:
        page = store.record(thread, after, PAGE)
        yield from (entry for entry in page if since <= 0 or decided_at(entry) >= since)
        if len(page) < PAGE:
            return
        after = int(page[-1]["seq"])


def page(
    store: Record, *, since: float, thread: str | None, after: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """Up to ``limit`` entries from where ``after`` (the previous page's cursor) left off, and the cursor of the
    next page: None where this page is the last."""
    if thread is not None:
        read = store.record(thread, _seq(after), limit)
        kept = [entry for entry in read if decided_at(entry) >= since]
        return kept, str(read[-1]["seq"]) if len(read) == limit and read else None
    found = store.recorded(since, _position(after), limit)
    more = len(found) == limit
    return found, _cursor(record_position(found[-1])) if more else None


def _cursor(position: RecordPosition) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(position)).encode()).decode().rstrip("=")


NOT_A_CURSOR = "after: not the Stalwart-Next of an earlier page"


def _position(cursor: str | None) -> RecordPosition | None:
    if cursor is None:
        return None
    try:
        at, thread, seq = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError):
        raise BadRequest(NOT_A_CURSOR) from None
    numbers = isinstance(at, (int, float)) and isinstance(seq, int) and not isinstance(seq, bool)
    if not numbers or not 0 <= at < 1e11 or not 0 <= seq < 10**12 or not _an_id(thread):
        raise BadRequest(NOT_A_CURSOR)
    return float(at), thread, seq


def _an_id(thread: object) -> bool:
    return isinstance(thread, str) and len(thread) <= STORED_THREAD_MAX and not CONTROL.search(thread)


def _seq(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 12:
        raise BadRequest(f"{NOT_A_CURSOR} of this thread's record")
    return int(cursor)


@dataclass(frozen=True)
class Verified:
    """What ``verify`` found: how many threads and entries it read, every break, and the record's ``root``.

    The root is a digest over every thread's head: an auditor who notes it can tell later that nothing was
    removed from the end of any thread, or whole, since then, by verifying again and comparing the heads.
    """

    threads: int
    entries: int
    breaks: list[Break] = field(default_factory=list)
    heads: dict[str, Head] = field(default_factory=dict)

    @property
    def intact(self) -> bool:
        return not self.breaks

    @property
    def root(self) -> str:
        lines = "".join(f"{thread}\t{head.seq}\t{head.digest}\n" for thread, head in sorted(self.heads.items()))
        return hashlib.sha256(lines.encode()).hexdigest()


def verify(store: Record, thread: str | None = None) -> Verified:
    """Read each thread's record in its own order with its head, and name every place it is not as written.

    The threads walked are those the store keeps entries or a head under, by their keys: an entry stored under a
    thread its body does not name is read as that thread's, and no longer matches its digest.
    """
    heads = dict(_heads(store)) if thread is None else {}
    threads = [thread] if thread is not None else sorted({str(e["thread"]) for e in entries(store)} | set(heads))
    breaks: list[Break] = []
    count = 0
    for name in threads:
        kept = list(_thread_entries(store, name))
        head = heads.get(name) if thread is None else store.record_head(name)
        count += len(kept)
        breaks += broken(name, kept, head)
        if kept and head is None:
            breaks.append(Break(name, len(kept), "its head, where its record ends, is missing"))
        if head is not None:
            heads[name] = head
    return Verified(len(threads), count, breaks, heads)


def _heads(store: Record) -> Iterator[tuple[str, Head]]:
    after = ""
    while True:
        page = store.record_heads(after, PAGE)
        yield from page
        if len(page) < PAGE:
            return
        after = page[-1][0]


def thread_intact(store: Record, thread: str) -> tuple[list[dict[str, Any]], bool]:
    """One thread's entries, and whether they are the chain that was written: what its history shows."""
    kept = list(_thread_entries(store, thread))
    return kept, not broken(thread, kept, store.record_head(thread))


def jsonl(found: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Each entry as one line of JSON, keys sorted: exactly what was digested."""
    for entry in found:
        yield json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def csv_rows(found: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The header, then each entry as one CSV line (``COLUMNS``)."""
    import csv  # only an export to CSV needs it, never a function's cold start

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    yield _drained(buffer)
    for entry in found:
        writer.writerow([_cell(value) for value in _flat(entry)])
        yield _drained(buffer)


def _flat(entry: Mapping[str, Any]) -> list[Any]:
    by = entry.get("by") or {}
    approvals = entry.get("approvals")
    counted = f"{approvals['given']}/{approvals['needed']}" if isinstance(approvals, dict) else ""
    named = {
        "by_issuer": by.get("issuer"),
        "by_subject": by.get("subject"),
        "by_name": by.get("name"),
        "verified": by.get("verified"),
        "rules": ";".join(entry.get("rules") or []),
        "approvals": counted,
    }
    return [named[column] if column in named else entry.get(column) for column in COLUMNS]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return f"'{value}" if value.startswith(FORMULA) else value


def _drained(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def since_of(text: str, name: str = "since") -> float:
    """``since`` (``--since``): an ISO date or time (UTC where it names no zone), or seconds since the epoch."""
    seconds: float | None
    try:
        seconds = float(text)
    except ValueError:
        seconds = _moment(text)
    if seconds is None or not 0 <= seconds < 1e11:
        example = "2026-12-01 or 2026-12-01T09:30Z"
        raise BadRequest(f"{name} takes a date or time such as {example}, not {text!r}")
    return seconds


def _moment(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
