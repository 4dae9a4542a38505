"""The agent's own words for a reply: short, and never the only place a fact is reported.

Everything said here is also in the reply as data (steps, waiting, refusals,
rollback); an interface shows the data, and these words are for a chat line.
"""

from __future__ import annotations

from .progress import Progress
from .reply import RollbackReport


def words(progress: Progress) -> str:
    """What the agent says of a move: its notes, then each outcome, refusal, undo and question in turn."""
    said = list(progress.notes)
    done = [s.tool for s in progress.steps if s.status == "done"]
    if done:
        said.append(f"Done: {', '.join(done)}.")
    said += [f"Skipped {s.tool}, as you asked." for s in progress.steps if s.status == "skipped"]
    expired = [s.tool for s in progress.steps if s.status == "expired"]
    said += [f"Nobody answered about {tool} in time, so it was not done." for tool in expired]
    said += [f"{s.tool} failed: {s.error}." for s in progress.steps if s.status == "failed"]
    said += [r.sentence for r in progress.refusals]
    if progress.rollback is not None:
        said += _undone(progress.rollback)
    elif progress.status == "cancelled":
        said.append("Cancelled: nothing more of this run will happen.")
    for pause in progress.waiting:
        if pause.kind == "ask":
            said.append(pause.prompt or pause.question)
        elif pause.kind == "saga_stuck":
            said.append(pause.question)
        elif pause.kind == "outcome_unknown":
            said.append(f"I can't tell whether it took effect: {pause.question}")
        elif pause.approvals is not None and pause.approvals["given"]:
            said.append(f"{pause.title} waits for another person to approve it too.")
        elif pause.kind != "delegate":
            said.append(f"{pause.title} waits for your decision.")
    return " ".join(said)


def _undone(report: RollbackReport) -> list[str]:
    said = []
    if report["undone"]:
        said.append(f"Undone: {', '.join(line['tool'] for line in report['undone'])}.")
    if report["not_undone"]:
        said.append(f"Could not be undone: {', '.join(line['tool'] for line in report['not_undone'])}.")
    if not report["undone"] and not report["not_undone"] and report["status"] == "complete":
        said.append("Nothing this run did needed undoing.")
    return said
