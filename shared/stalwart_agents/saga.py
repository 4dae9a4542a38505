"""Undoing what a run did: newest first, each undo retried, a person asked when one keeps failing.

An undo is a write like any other, journaled under its call's key plus
``.undo`` in the run that made the call, so it is never sent twice silently and
a second rollback finds it already done.  Irreversible calls are never undone,
and neither is a write that names no undo; the report says which and why.
"""

from __future__ import annotations

from typing import Any

from .replay import Replay, call_position, is_call
from .storage.base import JournalEntry
from .tools import Tool


def undo_all(replay: Replay, reason: str) -> dict[str, Any]:
    """Undo every done write of the replay's journal, newest first; the report says what happened to each."""
    tools = replay.tools
    done = [e for e in replay.journal.values() if is_call(e.key) and e.status == "done" and tools[e.tool].write]
    report: dict[str, Any] = {"reason": reason, "status": "complete", "undone": [], "not_undone": []}
    pending = list(reversed(done))
    for index, entry in enumerate(pending):
        tool = tools[entry.tool]
        if tool.irreversible or tool.undo is None:
            report["not_undone"].append(_line(entry, tool, why="irreversible" if tool.irreversible else "no_undo"))
            continue
        outcome = _undo(replay, entry, tool, pending[index + 1:])
        if outcome is None:
            report["status"] = "waiting"
            report["pending"] = [_line(e, tools[e.tool]) for e in pending[index:] if _undoable(tools[e.tool])]
            return report
        if outcome == "abandon":
            report["status"] = "abandoned"
            report["not_undone"] += [_line(e, tools[e.tool], why="abandoned") for e in pending[index:] if _undoable(tools[e.tool])]
            return report
        report["undone"].append(_line(entry, tool, by=outcome))
    return report


def _undo(replay: Replay, entry: JournalEntry, tool: Tool, rest: list[JournalEntry]) -> str | None:
    """``tool`` or ``person`` once undone, ``abandon``, or None while a person is asked."""
    undo = replay.tools[tool.undo or ""]
    settings = replay.agent.settings
    rounds = settings.undo_retries + 1
    key = f"{entry.key}.undo"
    position = call_position(entry.key)
    arguments = [*entry.arguments, {"name": "result", "value": entry.result, "origin": f"result:{entry.key}"}]
    current = replay.journal.get(key) or replay.call(key, undo, arguments)
    while True:
        settled = replay.settle(position, undo, arguments, current)
        if settled is None:
            return None
        if settled.status == "done":
            return "tool"
        if settled.attempt % rounds:
            replay.context.sleep(settings.undo_backoff * 2 ** (settled.attempt % rounds - 1))
            current = replay.call(key, undo, arguments, previous=settled)
            continue
        decision = replay.decision(_stuck(replay, entry, tool, undo, settled, rest))
        if decision is None:
            return None
        if decision["decision"] == "done_by_hand":
            return "person"
        if decision["decision"] == "abandon":
            return "abandon"
        current = replay.call(key, undo, arguments, previous=settled)


def _stuck(replay: Replay, entry: JournalEntry, tool: Tool, undo: Tool, failed: JournalEntry, rest: list[JournalEntry]):
    tools = replay.tools
    extra = {
        "undo": {"tool": undo.name, "error": failed.error, "attempts": failed.attempt},
        "pending": [_line(e, tools[e.tool]) for e in rest if _undoable(tools[e.tool])],
    }
    return replay.pause(
        "saga_stuck", call_position(entry.key), tool, entry.arguments, [f"undo_failed: {failed.error}"],
        subject=f"{failed.key}#{failed.attempt}", extra=extra, question=f"Undoing {tool.name} failed. What should happen?",
    )


def _undoable(tool: Tool) -> bool:
    return not tool.irreversible and tool.undo is not None


def _line(entry: JournalEntry, tool: Tool, **outcome: str) -> dict[str, Any]:
    return {"step": call_position(entry.key), "tool": tool.name, "undo": tool.undo, "arguments": entry.arguments, **outcome}
