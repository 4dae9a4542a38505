"""Who answered what: every answer to a pause, taken, counted or refused, and exactly what it then ran.

Read from the thread's own log, where each answer is written in the commit that
took it (or on its own, when refused) and each call a taken answer set going
names it; so the record cannot say something ran that did not, nor miss a call
that did.  Each answer's ``outcome`` is ``taken``, ``approval`` (one approval of
several a pause needs, counted in the commit that kept it; it runs nothing) or
``refused`` (with its ``error``: ``not_an_approver``, ``already_approved``,
``interrupt_stale``...).  Each names the pause's ``title`` (what a person was
asked about) and its time (``at``), so an interface can say "You approved: ...".
The token an answer carried is kept only as a 16-hex digest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

CALL = ("key", "tool", "arguments", "status", "at")
"""What the audit keeps of each call an answer set going."""


def history(events: Iterable[tuple[int, Mapping[str, object]]]) -> list[dict[str, object]]:
    """The answers of a thread's log, oldest first, each with ``ran``: the calls it set going, in order (none but
    for the answer that took its pause)."""
    answers: list[dict[str, object]] = []
    ran: dict[tuple[object, object], list[dict[str, object]]] = {}
    for event_id, body in events:
        if body.get("type") == "answer":
            answers.append({"event": event_id, **{k: v for k, v in body.items() if k != "type"}})
        elif body.get("type") == "step" and body.get("answer"):
            ran.setdefault((body.get("run"), body.get("answer")), []).append({k: body.get(k) for k in CALL})
    for answer in answers:
        taken = answer.get("outcome") == "taken"
        answer["ran"] = ran.get((answer.get("run"), answer.get("pause")), []) if taken else []
    return answers
