"""Making a run's calls through its ledger, and settling the ones whose outcome is unknown.

A write is journaled ``started`` (committed) before it runs and finished
after; a read, safe to repeat, is journaled once, finished.  A call found
``started`` (its worker died) or ``unknown`` (the tool could not tell) is sent
again only when the tool is idempotent or a person says it did not happen: a
write that is not idempotent is never silently sent twice.

A value over the run's size limit, or one no store can keep as JSON (NaN, nested
thousands deep), is refused here, at the tool boundary: a call whose arguments
are such is not made; a read whose result is such failed; a write whose result
is such ran, so it is kept done, its result replaced by a marker that says why,
and never sent again.  Either way a call of
the run then stops the walk, and the move ends the run (``move.py``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import cast

from .. import telemetry
from ..storage import JournalEntry
from ..storage.base import encoded_as, one_pass, parsed
from ..tools.python import OutcomeUnknown, Tool
from ..vocabulary import JSON
from .arguments import Argument, keywords
from .ledger import Ledger
from .pause import PausePoint
from .sizes import call_named, measure

RESEND_ATTEMPTS = 3
AS_TEXT = one_pass(json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str))
"""What ``jsonable`` encodes with: what JSON cannot hold, as its text."""
UNSETTLED = ("started", "unknown")


class Caller:
    """The calls of one move: each made at most once per attempt, each attempt in the journal."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def made(self, key: str, tool: Tool, arguments: Sequence[Argument]) -> JournalEntry:
        """The call at ``key``: as the journal has it, or made now."""
        entry = self._ledger.entry(key)
        if entry is not None:
            return entry
        refused, measured = self._ledger.measured_arguments(key, tool.name, arguments)
        if refused is not None:
            return JournalEntry(self._ledger.journal_of, key, tool.name, [], "failed", error=refused)
        started = self._ledger.start(key, tool.name, arguments, durable=tool.write, measured=measured)
        return self._run(started, tool, arguments)

    def again(self, entry: JournalEntry, tool: Tool, arguments: Sequence[Argument]) -> JournalEntry:
        """The call of ``entry`` sent again, as its next attempt, with the same idempotency key."""
        return self._run(self._ledger.restart(entry), tool, arguments)

    def settle(self, step: int, tool: Tool, arguments: Sequence[Argument], entry: JournalEntry) -> JournalEntry | None:
        """The call of ``entry`` once its outcome is known; None while a person is asked whether it happened,
        or where a write's result was too large to keep (the walk stops there; the move ends the run)."""
        if entry.status == "done" and self._ledger.stopped_at(entry.key):
            return None
        while entry.status in UNSETTLED:
            if tool.idempotent and entry.attempt < RESEND_ATTEMPTS:
                entry = self.again(entry, tool, arguments)
                continue
            cause = entry.error or "the worker stopped mid-call"
            point = PausePoint.after(step, entry.key, entry.attempt)
            decision = self._ledger.wait_for("outcome_unknown", point, tool, arguments, [f"outcome_unknown: {cause}"])
            if decision is None:
                return None
            if decision.choice == "happened":
                return self._ledger.finish(entry.replace(status="done", result=None, error="a person said it happened"))
            entry = self.again(entry, tool, arguments)
        return entry

    def _run(self, started: JournalEntry, tool: Tool, arguments: Sequence[Argument]) -> JournalEntry:
        return self._ledger.finish(self._kept(_traced(tool, arguments, started), tool, arguments))

    def _kept(self, outcome: JournalEntry, tool: Tool, arguments: Sequence[Argument]) -> JournalEntry:
        """The outcome as the journal may keep it: a result over the limit refused (failed, or a write's marker); a
        result kept keeps the encoding it was measured by, which the store writes."""
        if outcome.status != "done":
            return outcome
        over = measure(f"the result of {call_named(tool.name, outcome.key)}", outcome.result, self._ledger.limit)
        if isinstance(over, str):
            return encoded_as(outcome, "result", over)
        if not tool.write:
            said = f"{over.sentence}; it was not kept"
            self._ledger.refuse(outcome.key, tool.name, arguments, over, "failed", said)
            return outcome.replace(status="failed", result=None, error=said)
        said = f"{over.sentence}; {tool.name} ran, and is kept as done without its result, so it is never sent again"
        self._ledger.refuse(outcome.key, tool.name, arguments, over, "done", said)
        return outcome.replace(result=over.marker, error=said)


def _traced(tool: Tool, arguments: Sequence[Argument], started: JournalEntry) -> JournalEntry:
    """``_invoked``, in a span of its own where telemetry is on: a tool an MCP server defines is an extension, any
    other a function, as the GenAI conventions name a tool's type."""
    kind = "extension" if tool.definition else "function"
    call = telemetry.current().tool_call(tool.name, started.idempotency_key or started.key, kind, keywords(arguments))
    with call as traced:
        outcome = _invoked(tool, arguments, started)
        traced.ended(outcome.status, outcome.result, outcome.error)
    return outcome


def _invoked(tool: Tool, arguments: Sequence[Argument], started: JournalEntry) -> JournalEntry:
    """What calling the tool came to: done with its result, failed, or (a write that could not tell) unknown."""
    given: dict[str, object] = {name: _own(value) for name, value in keywords(arguments).items()}
    if tool.keyed:
        given["idempotency_key"] = started.idempotency_key
    try:
        result = tool.fn(**given)
    except (OutcomeUnknown, TimeoutError) as exc:
        return started.replace(status="unknown" if tool.write else "failed", error=_described(exc))
    except Exception as exc:
        return started.replace(status="failed", error=_described(exc))
    return started.replace(status="done", result=jsonable(result))


def _own(value: JSON) -> JSON:
    """An argument as the tool's own: a dict or list it changes in place leaves the call as journaled and shown, and
    what a resend sends, as they were."""
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def _described(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def jsonable(value: object) -> JSON:
    """Results are kept as JSON; what JSON cannot hold is kept as its text rather than lost.

    A value no encoder can walk (nested too deeply, or containing itself) is handed on as it is,
    for the size check (``sizes.py``) to refuse by name rather than fail here.
    """
    try:
        return cast(JSON, parsed("".join(AS_TEXT(value, 0))))
    except (RecursionError, ValueError):
        return cast(JSON, value)
