"""Undoing what a run did: newest first, each undo retried, a person asked when one keeps failing.

An undo is a write like any other, journaled under its call's key plus
``.undo`` in the run that made the call, so it is never sent twice silently and
a second rollback finds it already done.  Irreversible calls are never undone,
and neither is a write that names no undo; the report says which and why.
Undos do not ask for a confirmation: whoever chose to undo already decided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from ..config import Settings
from ..storage import JournalEntry
from ..tools.python import Tool
from ..vocabulary import SagaReason
from .arguments import Argument, from_dicts
from .calls import Caller
from .ledger import Ledger, call_position, is_call
from .pause import PausePoint, UndoLine
from .reply import RollbackReport

Undone = Literal["tool", "person", "abandon"]
"""How one undo ended: the tool undid it, a person did, or a person chose to leave the rest undone."""


class Rollback:
    """Undoes the done writes of the ledger's journal; ``tools`` are every tool those calls may have named."""

    def __init__(
        self,
        ledger: Ledger,
        tools: Mapping[str, Tool],
        settings: Settings,
        sleep: Callable[[float], None],
    ) -> None:
        self._ledger, self._caller = ledger, Caller(ledger)
        self._tools, self._settings, self._sleep = tools, settings, sleep

    def undo_all(self, reason: SagaReason) -> RollbackReport:
        """Every done write, newest first; the report says what became of each, or what waits."""
        report: RollbackReport = {"reason": reason, "status": "complete", "undone": [], "not_undone": []}
        done = [e for e in self._ledger.entries() if is_call(e.key) and e.status == "done" and self._writes(e)]
        newest_first = list(reversed(done))
        for index, entry in enumerate(newest_first):
            tool = self._tools[entry.tool]
            if not _undoable(tool):
                report["not_undone"].append(_line(entry, tool, why="irreversible" if tool.irreversible else "no_undo"))
                continue
            undone = self._undo(entry, tool, newest_first[index + 1 :])
            if undone is None:
                report["status"] = "waiting"
                report["pending"] = self._left(newest_first[index:])
                return report
            if undone == "abandon":
                report["status"] = "abandoned"
                report["not_undone"] += self._left(newest_first[index:], why="abandoned")
                return report
            report["undone"].append(_line(entry, tool, by=undone))
        return report

    def _undo(self, entry: JournalEntry, tool: Tool, rest: Sequence[JournalEntry]) -> Undone | None:
        """One write undone, retried with backoff; None while a person is asked."""
        assert tool.undo is not None, "only an undoable write is undone"
        undo = self._tools[tool.undo]
        key, step = f"{entry.key}.undo", call_position(entry.key)
        arguments = (*from_dicts(entry.arguments), Argument("result", entry.result, f"result:{entry.key}"))
        current = self._caller.made(key, undo, arguments)
        while True:
            settled = self._caller.settle(step, undo, arguments, current)
            if settled is None:
                return None
            if settled.status == "done":
                return "tool"
            if not self._backed_off(settled):
                after = self._stuck(entry, tool, undo, settled, rest)
                if after != "retry":
                    return after
            current = self._caller.again(settled, undo, arguments)

    def _backed_off(self, failed: JournalEntry) -> bool:
        """Wait before the next try, doubling each time; False once this round of retries is spent."""
        rounds = self._settings.undo_retries + 1
        tried = failed.attempt % rounds
        if tried:
            self._sleep(self._settings.undo_backoff * 2 ** (tried - 1))
        return bool(tried)

    def _stuck(
        self,
        entry: JournalEntry,
        tool: Tool,
        undo: Tool,
        failed: JournalEntry,
        rest: Sequence[JournalEntry],
    ) -> Undone | Literal["retry"] | None:
        """Ask a person what now (saga_stuck): retry, done_by_hand (``person``) or abandon; None while asked."""
        decision = self._ledger.wait_for(
            "saga_stuck",
            PausePoint.after(call_position(entry.key), failed.key, failed.attempt),
            tool,
            from_dicts(entry.arguments),
            [f"undo_failed: {failed.error}"],
            undo={"tool": undo.name, "error": failed.error, "attempts": failed.attempt},
            pending=self._left(rest),
        )
        if decision is None:
            return None
        if decision.choice == "done_by_hand":
            return "person"
        return "abandon" if decision.choice == "abandon" else "retry"

    def _writes(self, entry: JournalEntry) -> bool:
        return self._tools[entry.tool].write

    def _left(self, entries: Sequence[JournalEntry], why: Literal["abandoned"] | None = None) -> list[UndoLine]:
        """The writes among ``entries`` that an undo could still reverse."""
        return [_line(e, self._tools[e.tool], why=why) for e in entries if _undoable(self._tools[e.tool])]


def _undoable(tool: Tool) -> bool:
    return not tool.irreversible and tool.undo is not None


def _line(
    entry: JournalEntry,
    tool: Tool,
    *,
    by: Literal["tool", "person"] | None = None,
    why: Literal["irreversible", "no_undo", "abandoned"] | None = None,
) -> UndoLine:
    step = call_position(entry.key)
    line: UndoLine = {"step": step, "tool": tool.name, "undo": tool.undo, "arguments": entry.arguments}
    if by is not None:
        line["by"] = by
    if why is not None:
        line["why"] = why
    return line
