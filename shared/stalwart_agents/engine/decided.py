"""What the decision record keeps of a decision: who, how they were known, what they were shown and what then runs.

Made from the answer's event (``Engine._take`` and the LangGraph door make it), so the record and the thread's
log never disagree, and written in the same commit as the answer it records (``Event.decision``); the store
numbers and chains it (``storage.chain``).  An auditor reads in it, without anything else: the call as the person
was shown it (each argument's value and where it came from, the reasons it paused, whether it can be undone),
the call as it then runs (its arguments where a person changed them, else ``as_shown``; null where the decision
runs nothing), the rules that
governed who could answer, how far a four-eyes approval had come, when it was asked and when answered.
The token the answer carried is kept only as the digest the thread's log keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..approvals.rules import LINK_ISSUER
from .delegation import MODEL
from .pause import CLOCK_CHANNEL, Pause, seconds_since

RUNS = frozenset({"approve", "answer", "did_not_happen", "retry"})
"""Decisions after which a call runs: the one asked about (approved, given its missing value, or sent again because
it did not happen), or, retrying a stuck undo, that undo.  ``happened`` (the call is taken as done, and not sent
again), ``done_by_hand`` (a person undid it) and ``abandon`` (nothing more is undone) run nothing."""
SLACK_ISSUER = "slack:"
OPERATOR_CHANNEL = "operator"
"""The channel of an operator's rollback, which the operator token let in."""


def decided(
    answered: Mapping[str, Any],
    pause: Pause,
    rules: Sequence[str],
    approvals: tuple[int, int] | None,
) -> dict[str, Any]:
    """The record's entry of the decision ``answered`` (the answer's event body) took on ``pause``.

    ``rules`` are the names of the approver rules that governed it (none: its thread's owner decides);
    ``approvals``, where several people must approve, how many have with this one, and how many must.
    """
    at = str(answered["at"])
    principal = answered.get("principal") if isinstance(answered.get("principal"), dict) else None
    changed = answered.get("changed_to")
    decision = answered["decision"]
    taken = answered.get("outcome") == "taken" and decision in RUNS
    runs = {"arguments": changed["arguments"]} if isinstance(changed, dict) else {"as_shown": True}
    return {
        "at": at,
        "asked_at": pause.created_at,
        "waited": round(max(seconds_since(pause.created_at, _seconds(at)), 0.0), 3),
        "run": pause.run,
        "pause": pause.id,
        "kind": pause.kind,
        "tool": pause.tool,
        "title": answered.get("title", pause.title),
        "decision": decision,
        "outcome": answered.get("outcome"),
        "value": answered.get("value"),
        "by": who(principal, answered),
        "channel": answered.get("channel"),
        "shown": {
            "question": pause.question,
            "arguments": pause.arguments,
            "reasons": pause.reasons,
            "irreversible": pause.irreversible,
        },
        "runs": {"tool": _running(pause), **runs} if taken else None,
        "edits": answered.get("edits") or [],
        "rules": list(rules),
        "approvals": None if approvals is None else {"given": approvals[0], "needed": approvals[1]},
        "token": answered.get("token"),
    }


def who(principal: Mapping[str, Any] | None, answered: Mapping[str, Any]) -> dict[str, Any]:
    """Who decided: their issuer and subject, what a card called them, and how the service knew them."""
    issuer = principal.get("iss") if principal else None
    return {
        "issuer": issuer,
        "subject": principal.get("sub") if principal else answered.get("by"),
        "name": answered.get("name"),
        "verified": verified_by(principal, answered.get("channel")),
    }


def verified_by(principal: Mapping[str, Any] | None, channel: object) -> str:
    """How the answer's giver was known: ``token`` (a verified sign-in), ``link`` (a signed one-time link),
    ``slack`` (Slack's signed request), ``clock`` (the deadline), ``operator`` (the operator token, for a
    rollback), or ``none`` (no sign-in: the caller's word)."""
    issuer = str(principal.get("iss", "")) if principal else ""
    if channel == CLOCK_CHANNEL and issuer.startswith("stalwart:clock"):
        return "clock"
    if channel == OPERATOR_CHANNEL and principal is None:
        return "operator"
    if issuer == LINK_ISSUER:
        return "link"
    if issuer.startswith(SLACK_ISSUER):
        return "slack"
    return "token" if principal and principal.get("verified") else "none"


def _running(pause: Pause) -> str:
    """The tool a decision that runs something runs: a stuck undo's own tool on a retry, the model (as the thread's
    log names it) for a turn passed on to it, else the pause's."""
    if pause.kind == "saga_stuck" and pause.undo is not None:
        return pause.undo["tool"]
    return MODEL if pause.kind == "delegate" else pause.tool


def _seconds(at: str) -> float:
    return -seconds_since(at, 0.0)
