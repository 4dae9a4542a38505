"""The decision record's chain: each entry of a thread carries the digest of the one before it.

A store appends a thread's entries one commit at a time (under the lock or condition that orders its events),
giving each its ``seq`` (1, 2, ...), the ``prev`` digest and its own ``digest``; it keeps the thread's ``head``,
the last seq and digest, beside them.  Anyone holding the entries can check them with ``broken`` alone: an entry
changed no longer matches its digest, one removed leaves a gap, and one moved breaks the next one's ``prev``; the
head tells an entry removed from the end.

The digest is SHA-256 over the entry's canonical JSON without its ``digest``: keys sorted, no whitespace, UTF-8,
numbers as JSON writes them.  That is all a verifier in another language needs to reproduce.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

GENESIS = "0" * 64
"""The ``prev`` of a thread's first entry."""


@dataclass(frozen=True)
class Head:
    """Where a thread's record ends: its last entry's seq and digest (seq 0 and GENESIS: no entry yet)."""

    seq: int = 0
    digest: str = GENESIS


CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical(entry: Mapping[str, Any]) -> bytes:
    return CANONICAL.encode(entry).encode()


def digest_of(entry: Mapping[str, Any]) -> str:
    """The digest an entry must carry: of everything it says but the digest itself."""
    return hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "digest"})).hexdigest()


def linked(thread: str, body: Mapping[str, Any], head: Head) -> dict[str, Any]:
    """``body`` as the entry after ``head`` in ``thread``'s record: numbered, chained and digested."""
    entry = {**body, "thread": thread, "seq": head.seq + 1, "prev": head.digest}
    return entry | {"digest": digest_of(entry)}


def head_after(entry: Mapping[str, Any]) -> Head:
    return Head(int(entry["seq"]), str(entry["digest"]))


def decided_at(entry: Mapping[str, Any]) -> float:
    """When the entry's decision was made, in seconds since the epoch (its ``at``), as stores order the record."""
    return datetime.fromisoformat(str(entry["at"]).replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True)
class Break:
    """One place where a thread's record is not as written: its thread, the seq at which, and what is wrong."""

    thread: str
    seq: int
    problem: str

    def __str__(self) -> str:
        return f"thread {self.thread}, entry {self.seq}: {self.problem}"


def broken(thread: str, entries: Iterable[Mapping[str, Any]], head: Head | None) -> list[Break]:
    """Every place where ``thread``'s entries, in the order stored, are not the chain that was written."""
    found: list[Break] = []
    expected = Head()
    for entry in entries:
        seq = entry.get("seq")
        if not isinstance(seq, int):
            found.append(Break(thread, expected.seq + 1, "an entry without its number"))
            continue
        if entry.get("thread") != thread:
            found.append(Break(thread, seq, f"an entry of another thread ({entry.get('thread')!r})"))
        if seq != expected.seq + 1:
            missing = "entries missing before it" if seq > expected.seq + 1 else "out of order"
            found.append(Break(thread, seq, f"{missing} (after entry {expected.seq})"))
        elif entry.get("prev") != expected.digest:
            found.append(Break(thread, seq, "does not follow the entry before it: one was changed or moved"))
        if entry.get("digest") != digest_of(entry):
            found.append(Break(thread, seq, "changed since it was written: its digest no longer matches"))
        expected = Head(seq, str(entry.get("digest")))
    if head is not None and head != expected:
        if head.seq > expected.seq:
            found.append(Break(thread, head.seq, f"entries {expected.seq + 1} to {head.seq} are missing"))
        else:
            found.append(Break(thread, expected.seq, "does not end where the thread's head says it ends"))
    return found
