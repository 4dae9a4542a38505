"""Items as DynamoDB's JSON holds them: keys, plain values as attributes and back, and the request expressions.

What the store and a commit's transaction both write and read; nothing here sends a request.  An item whose
``expires`` is at or before now is treated as gone by every read and condition: TTL deletes expired items one
at a time, in no order and days later, so until then a read would find half of a thread.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass
from typing import Any

from . import _records as records
from .base import ANYONE, MOST_PARTIES, pause_tool
from .dynamodb_schema import TTL_ATTRIBUTE

Item = dict[str, dict[str, Any]]

LIVE_SHARDS = 16
WAKE_SHARDS = 16
"""Keys of the wake index: an open pause's wake moves twice an event of its deadline (claimed, then moved on), each
a delete and a put in the index as its ``wake_at`` changes, so these are spread over partitions as the live index's
are."""
OPEN = "open"
"""The one key of the old inbox index, where pauses opened before listings were written are found until they close."""
INBOX_KEYS = ("inbox", "opened")
"""The attributes a pause opened before listings carries for the old inbox index, removed when it is answered or
closed."""
LISTING_SHARDS = 4
"""Partitions each party's listings spread over (by pause id): a party that every pause names (a team's group, or
``anyone``) takes writes on this many partitions, and a reader queries this many per party."""
PARTIES = "parties"
"""The attribute of an open pause naming the parties it is listed under (JSON), so its closing removes them."""
WAKE_KEYS = ("wake", "wake_at")
"""The attributes an open pause carries for the wake index while the clock has work on it (``wake_at`` is also its
record's field): removed when nothing remains, and when it is answered or closed."""
TOKEN = "tx"
"""The attribute holding the request token of the commit that last wrote an item: how a read tells "my write"."""


def item_key(pk: str, sk: str) -> Item:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def run_key(run_id: str) -> Item:
    return item_key(f"R#{run_id}", "RUN")


def thread_key(thread: str) -> Item:
    return item_key(f"T#{thread}", "THREAD")


def attribute(value: Any) -> dict[str, str]:
    if isinstance(value, str):
        return {"S": value}
    return {"N": repr(float(value)) if isinstance(value, float) else str(int(value))}


def attributes(values: Mapping[str, Any]) -> Item:
    """Plain values as attributes: text as S, numbers as N, and None as no attribute at all."""
    return {name: attribute(value) for name, value in values.items() if value is not None}


def plain(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None or "NULL" in value else value.get("S", value.get("N"))


def typed(annotation: Any, text: str | None) -> Any:
    if text is None:
        return None
    if "float" in str(annotation):
        return float(text)
    return int(text) if str(annotation) == "int" else text


def record_of(kind: type[records.Record], item: Mapping[str, Any] | None) -> records.Record | None:
    return None if not item else from_item(kind, item)


def from_item(kind: type[records.Record], item: Mapping[str, Any]) -> records.Record:
    """The record an item holds (its other attributes ignored), JSON fields decoded as SQLite's are."""
    row = {spec.name: _value(spec, item) for spec in records.FIELDS[kind]}
    return records.from_row(kind, row)


def _value(spec: Any, item: Mapping[str, Any]) -> Any:
    """A field as the item holds it; a field the item lacks and whose default is not None (a pause's ``woken``,
    on an item written before it was) has its default."""
    value = typed(spec.type, plain(item.get(spec.name)))
    return spec.default if value is None and spec.default not in (None, MISSING) else value


def expiry(item: Mapping[str, Any] | None) -> float | None:
    """When the item expires (epoch seconds); None for no item, or one that never expires (a secret, a legacy item)."""
    text = plain((item or {}).get(TTL_ATTRIBUTE))
    return None if text is None else float(text)


def expired(item: Mapping[str, Any] | None, now: float) -> bool:
    """Whether the item is there but past its ``expires``: as good as deleted, though TTL has not deleted it yet."""
    expires = expiry(item)
    return expires is not None and expires <= now


def visible(item: Item | None, now: float) -> Item | None:
    """The item as a read at ``now`` sees it: None where it is missing or expired."""
    return None if item is None or expired(item, now) else item


def number(item: Mapping[str, Any] | None, name: str) -> int | None:
    text = plain((item or {}).get(name))
    return None if text is None else int(text)


def opened(created_at: float, pause_id: str) -> str:
    """Where a pause sorts in the inbox index: as DynamoDB compares these (bytewise), as Python compares
    ``(created_at, pause_id)``.  The time is its IEEE 754 bits as 16 hex digits, the sign bit flipped (and a
    negative's bits inverted), so every float, exactly, sorts as numbers do."""
    bits: int = struct.unpack(">Q", struct.pack(">d", float(created_at)))[0]
    ordered = bits ^ 0xFFFF_FFFF_FFFF_FFFF if bits >> 63 else bits | 1 << 63
    return f"{ordered:016x}#{pause_id}"


def pause_attributes(pause: Mapping[str, Any], parties: Sequence[str]) -> Item:
    """What a pause's item carries beside its record: its id (for by_id), its tool, and while open, the parties it
    is listed under, and its place in the wake index where it has a ``wake_at``."""
    extra = {"pid": pause["id"], "tool": pause_tool(records.load(pause["payload"]))}
    if pause["status"] == "open":
        extra[PARTIES] = records.dump(list(parties))
        if pause["wake_at"] is not None:
            extra["wake"] = wake_shard(pause["id"])
    return attributes(extra)


def listed_under(owner: str, parties: Sequence[str] | None) -> tuple[str, ...]:
    """The parties a new open pause is listed under: its owner's (``owner``, a party), then ``parties`` (``anyone``
    where not given), at most ``MOST_PARTIES`` (past that, its owner's and ``anyone``)."""
    named = tuple(dict.fromkeys((owner, *((ANYONE,) if parties is None else parties))))
    return named if len(named) <= MOST_PARTIES else tuple(dict.fromkeys((owner, ANYONE)))


def listing_partition(party: str, shard: int) -> str:
    """The partition key of a party's listings in one shard: a digest, so a claim's text never becomes a key (any
    length, any character) and a key says nothing of who it lists."""
    digest = hashlib.blake2b(party.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"I#{digest}#{shard}"


def listing_key(party: str, pause_id: str, created_at: float) -> Item:
    """Where a pause is listed under ``party``: its shard by its id, sorted as the inbox reads (``opened``)."""
    shard = zlib.crc32(pause_id.encode("utf-8", "surrogatepass")) % LISTING_SHARDS
    return item_key(listing_partition(party, shard), opened(created_at, pause_id))


def listing_of(item: Mapping[str, Any]) -> tuple[float, tuple[str, ...]] | None:
    """An open pause item's (created_at, parties it is listed under); None for one not listed (closed, or opened
    before listings)."""
    text = plain(item.get(PARTIES))
    if text is None or plain(item.get("status")) != "open":
        return None
    return float(plain(item["created_at"]) or 0.0), tuple(records.load(text))


RECORD_SHARDS = 4
"""Partitions the record index spreads the whole record over: an export reads each, merged by time."""
RECORD_SEPARATOR = "\x1f"
"""Between the parts of an entry's place in the record index: below every character an id may hold."""


def record_key(thread: str, seq: int | None = None) -> Item:
    """A thread's decision record: its entries by seq, and its head (``seq`` None)."""
    return item_key(f"A#{thread}", "HEAD" if seq is None else f"D#{seq:012d}")


def record_place(position: tuple[float, str, int]) -> str:
    """An entry's sort key in the record index: its time, thread and seq, ordered as ``record_position``."""
    at, thread, seq = position
    return f"{at:018.6f}{RECORD_SEPARATOR}{thread}{RECORD_SEPARATOR}{seq:012d}"


def record_shard(thread: str, of: str = "record") -> str:
    """The record index's partition of a thread's entries (``record``) or of its head (``heads``)."""
    return f"{of}#{zlib.crc32(thread.encode('utf-8', 'surrogatepass')) % RECORD_SHARDS}"


def recorded_entry(item: Item) -> dict[str, Any]:
    """A decision as stored: its body, under the thread and seq of its item's key."""
    entry: dict[str, Any] = records.load(plain(item.get("body")))
    return entry | {"thread": item["pk"]["S"][2:], "seq": int(item["sk"]["S"][2:])}


def shard_of(thread: str) -> str:
    """The thread's shard of the live index: stable, and spread so no one index partition holds every thread."""
    return f"{zlib.crc32(thread.encode()) % LIVE_SHARDS:02d}"


def wake_shard(pause_id: str) -> str:
    """The pause's shard of the wake index (``wake``): stable for its life, so a move of its wake sets only
    ``wake_at``."""
    return f"{zlib.crc32(pause_id.encode()) % WAKE_SHARDS:02d}"


@dataclass(frozen=True)
class Stamp:
    """What every item one attempt at a commit writes carries: the attempt's request token, and when it expires;
    and the time the attempt is made at, by which its conditions tell an expired item from a stored one."""

    token: str
    expires: int
    now: float

    def attributes(self) -> Item:
        return attributes({TOKEN: self.token, TTL_ATTRIBUTE: self.expires})

    def sets(self, terms: Terms) -> list[str]:
        return [terms.equal(TOKEN, self.token), terms.equal(TTL_ATTRIBUTE, self.expires)]


class Terms:
    """The placeholders of one request's expressions: DynamoDB reserves words such as status, state and key."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._values: dict[str, dict[str, Any]] = {}

    def name(self, name: str) -> str:
        return self._names.setdefault(name, f"#n{len(self._names)}")

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self._values)}"
        self._values[placeholder] = attribute(value)
        return placeholder

    def equal(self, name: str, value: Any) -> str:
        return f"{self.name(name)} = {self.value(value)}"

    def absent(self, name: str) -> str:
        return f"attribute_not_exists({self.name(name)})"

    def unexpired(self, now: float) -> str:
        """True of an item not expired at ``now`` (one without ``expires`` never is), and where there is none."""
        return f"({self.absent(TTL_ATTRIBUTE)} OR {self.name(TTL_ATTRIBUTE)} > {self.value(now)})"

    def present(self, now: float) -> str:
        """True of an item that is there and not expired at ``now``."""
        return f"attribute_exists({self.name('pk')}) AND {self.unexpired(now)}"

    def vacant(self, now: float) -> str:
        """True where there is no item, or only one expired at ``now``: where a new item may be put over it."""
        return f"({self.absent('pk')} OR {self.name(TTL_ATTRIBUTE)} <= {self.value(now)})"

    def fields(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self._names:
            found["ExpressionAttributeNames"] = {placeholder: name for name, placeholder in self._names.items()}
        if self._values:
            found["ExpressionAttributeValues"] = self._values
        return found


def update_expression(sets: list[str], removes: list[str]) -> str:
    parts = [f"SET {', '.join(sets)}" if sets else "", f"REMOVE {', '.join(removes)}" if removes else ""]
    return " ".join(part for part in parts if part)
