"""Who answered what: every answer to a pause, taken or refused, and exactly what it then ran.

Read from the thread's own log, where each answer is written in the commit that
took it (or on its own, when refused) and each call a taken answer set going
names it; so the record cannot say something ran that did not, nor miss a call
that did.  The token an answer carried is kept only as a 16-hex digest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def history(events: Iterable[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The answers of a thread's log, oldest first, each with ``ran``: the calls it set going, in order."""
    answers: list[dict[str, Any]] = []
    ran: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for event_id, body in events:
        if body.get("type") == "answer":
            answers.append({"event": event_id, **{k: v for k, v in body.items() if k != "type"}})
        elif body.get("type") == "step" and body.get("answer"):
            call = {k: body.get(k) for k in ("key", "tool", "arguments", "status", "at")}
            ran.setdefault((body["run"], body["answer"]), []).append(call)
    for answer in answers:
        answer["ran"] = ran.get((answer.get("run"), answer.get("pause")), []) if answer["outcome"] == "taken" else []
    return answers
