"""How large a value a run keeps may be: a call's arguments, its result, an event, measured as a store keeps it.

A store keeps each value whole, and a DynamoDB item holds 400 KB, so what is
over ``settings.max_value_bytes`` is refused where it meets the run (the tool
boundary), by a sentence that names the call, the size and the limit, before
anything of it is stored.  A value over the limit is never copied into an
event either: an event field that would take it over is replaced by a marker
that says how large it was.

A value is measured by the very encoding the stores write (``storage.text``),
so what that encoding cannot write (NaN) is refused here the same way, as a
value no store can keep, rather than failing in the store after a write has
run.  So is a value nested deeper than ``MAX_DEPTH``, measured without
recursion: one the encoder could still walk here might fail a later encoding
of it (a reply, a webhook, a card) made deeper on the stack.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ValueTooLarge
from ..storage import Event, text
from ..storage.base import ENCODER, utf8_size
from ..vocabulary import JSON

SETTING = "settings.max_value_bytes in agent.yaml"
MAX_DEPTH = 100
"""The deepest a kept value nests lists and objects: more than any real result needs, and far enough from Python's
recursion limit that every encoding of it, wherever on the stack it is made, succeeds."""
DEEP = "nested too deeply"


class Unkeepable(ValueError):
    """A value the stores' encoding cannot write; ``flaw`` says why, as a person would (``NaN or Infinity``)."""

    def __init__(self, flaw: str) -> None:
        super().__init__(flaw)
        self.flaw = flaw


def json_size(value: object) -> int:
    """Bytes of ``value`` as the stores keep it (compact JSON in UTF-8); Unkeepable where they could not keep it."""
    return _measured(value)[1]


def _measured(value: object) -> tuple[str, int]:
    """``value`` as the stores keep it, and its bytes; Unkeepable where they could not keep it."""
    try:
        try:
            encoded = text(value)
        except RecursionError:
            encoded = ENCODER.encode(value)  # which says where it is a value that contains itself
        return encoded, utf8_size(encoded)
    except RecursionError:
        raise Unkeepable(DEEP) from None
    except UnicodeEncodeError:
        raise Unkeepable("text that is not valid Unicode") from None
    except ValueError as exc:
        raise Unkeepable("it contains itself" if "Circular" in str(exc) else "NaN or Infinity") from None
    except TypeError as exc:
        raise Unkeepable(str(exc)) from None


def deeper_than(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep, measured without recursion (a value that
    contains itself is as deep as any limit)."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list | tuple):
            if depth == limit:
                return True
            pending.extend((inner, depth + 1) for inner in (item.values() if isinstance(item, dict) else item))
    return False


def marker(size: int, limit: int) -> dict[str, JSON]:
    """What is kept in place of a value too large to keep: how large it was, and the limit."""
    return {"too_large": {"bytes": size, "limit": limit}}


def flaw_marker(flaw: str) -> dict[str, JSON]:
    """What is kept in place of a value no store can keep: why not."""
    return {"not_json": {"flaw": flaw}}


@dataclass(frozen=True)
class Oversize:
    """A value a store cannot keep: ``what`` it is, naming its call (``the result of fetch (step 1)``).

    Over the limit at ``size`` bytes; or, where ``flaw`` says why, not JSON a store can write at all.
    """

    what: str
    size: int
    limit: int
    flaw: str | None = None

    @property
    def sentence(self) -> str:
        verb = "are" if self.what.startswith("the arguments") else "is"
        if self.flaw is not None:
            return f"{self.what} {verb} not JSON a store can keep ({self.flaw})"
        return f"{self.what} {verb} {self.size:,} bytes as JSON, over the limit of {self.limit:,} ({SETTING})"

    @property
    def marker(self) -> dict[str, JSON]:
        return flaw_marker(self.flaw) if self.flaw is not None else marker(self.size, self.limit)


def oversize(what: str, value: object, limit: int) -> Oversize | None:
    """``value`` measured, if a store may not keep it (over ``limit``, or not JSON it can write); else None."""
    measured = measure(what, value, limit)
    return measured if isinstance(measured, Oversize) else None


def measure(what: str, value: object, limit: int) -> Oversize | str:
    """``value`` as the stores keep it (``storage.text``), where a store may keep it; else why not (``Oversize``).
    The encoding is the one a store then writes (``storage.encoded_as``), so a value kept is encoded once.

    The depth is walked only where the encoding could be that deep: a value nests no deeper than its encoding
    opens brackets, which C counts at once, while the walk is Python's.
    """
    try:
        encoded, size = _measured(value)
    except Unkeepable as exc:
        return Oversize(what, 0, limit, DEEP if deeper_than(value) else exc.flaw)
    if encoded.count("[") + encoded.count("{") > MAX_DEPTH and deeper_than(value):
        return Oversize(what, 0, limit, DEEP)
    return Oversize(what, size, limit) if size > limit else encoded


def refuse(what: str, value: object, limit: int) -> None:
    """Raise ValueTooLarge (413) for ``value`` a store may not keep, before anything of it is stored."""
    over = oversize(what, value, limit)
    if over is not None:
        raise ValueTooLarge(f"{over.sentence}; nothing was run or kept")


def call_named(tool: str, key: str) -> str:
    """A call as a person finds it in the reply: ``fetch (step 2)``, ``fetch (step 2, call 1)``, an undo's step."""
    step, _, rest = key.partition(".")
    if rest == "undo" or rest.endswith(".undo"):
        return f"{tool} (undoing step {step})"
    return f"{tool} (step {step}, call {rest})" if rest else f"{tool} (step {step})"


def bounded(event: Event, limit: int) -> Event:
    """``event`` as the log keeps it: within ``limit``, its largest fields replaced by markers where it was not
    (and a field no store can keep, first of all)."""
    try:
        if utf8_size(event.text) <= limit:
            return event
    except (RecursionError, ValueError, TypeError):
        pass
    return Event(event.thread, _within(event.body, limit), event.decision)


def _within(body: Mapping[str, Any], limit: int) -> dict[str, Any]:
    """``body`` with its fields shrunk, largest first, until it fits: a nested object field by field, else whole."""
    kept = dict(body)
    for name in sorted(kept, key=lambda field: _weight(kept[field]), reverse=True):
        excess = _weight(kept) - limit
        if excess <= 0:
            break
        value = kept[name]
        try:
            size = json_size(value)
        except Unkeepable as exc:
            kept[name] = flaw_marker(exc.flaw)
            continue
        room = size - excess
        smaller = _within(value, room) if isinstance(value, dict) else value
        kept[name] = smaller if _weight(smaller) <= room else marker(size, limit)
    return kept


def _weight(value: object) -> int:
    """A value's size as the stores keep it, where one that no store can keep weighs more than any limit."""
    try:
        return json_size(value)
    except Unkeepable:
        return sys.maxsize
