"""The card: what a person sees of a pause, built once on the server, for whoever reads it.

Every surface renders this one model: the chat's card and the inbox (in the web
components, with their strings), the link page and a channel's message (on the
server, with the same strings, ``strings.py``), the webhook (as ``card`` beside the
pause).  Its words are the team's (the described title, labels, units, who a rule
lets decide) or keys of the shipped strings with their values, so ``setStrings``
replaces every word the interface shows and no surface invents words of its own.

What the card says depends on who reads it: the person who asked reads "you typed
it", an approver reads "Rita typed it"; each reader sees only the answers theirs to
give, and, where a rule gives the decision to someone else, who that is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypedDict

from ..engine.arguments import ArgumentDict
from ..engine.pause import Pause, iso
from ..reading.language import language_name
from ..tools.python import shown_value
from ..vocabulary import JSON
from .admission import Admission
from .strings import Said, said, shipped

Style = Literal["primary", "secondary", "danger"]
Input = Literal["number", "integer", "string", "boolean"]


@dataclass(frozen=True)
class Verdict:
    """What a door's rules say of one pause for one reader: the answers theirs to give, who decides otherwise (the
    governing rules' words; none where the thread's owner does), the rules that could not be evaluated, and the
    team's units and tool labels."""

    answers: tuple[str, ...]
    deciders: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)
    tools: Mapping[str, str] = field(default_factory=dict)
    counted: bool = False
    """The reader's own approval is counted already: it waits for another person's, not for theirs."""
    inputs: Mapping[str, Input] = field(default_factory=dict)
    """How each argument the tool lets a person change is typed in (its kind of value)."""


class Answer(TypedDict):
    """One answer this reader may give: the decision sent, its words, and how it is styled."""

    decision: str
    words: Said
    style: Style


class Source(TypedDict):
    """The earlier call a value came from: its label, and its result where small enough."""

    title: str
    value: NotRequired[JSON]


class Asked(TypedDict):
    """An argument's value before a person changed it: as JSON, and as a person reads it."""

    value: JSON
    shown: str


class Argument(TypedDict):
    """One argument as a reader sees it; ``edit`` (how it is typed in) where they may change it before approving,
    ``unit`` where the tool gives its value one, ``asked`` where someone changed it before this pause asked."""

    name: str
    label: str
    value: JSON
    shown: str
    origin: Said
    source: NotRequired[Source]
    edit: NotRequired[Input]
    unit: NotRequired[str]
    asked: NotRequired[Asked]


class Card(TypedDict):
    kind: str
    title: str
    question: str
    irreversible: bool
    arguments: list[Argument]
    reasons: list[Said]
    deciders: Said | None
    asked: Said
    answers: list[Answer]
    waits_for: Said | None
    deadline: Said | None
    escalation: Said | None


WORDS = {
    "approve": "approve",
    "skip": "skip",
    "cancel_all": "cancelAll",
    "happened": "happened",
    "did_not_happen": "didNotHappen",
    "retry": "retry",
    "done_by_hand": "doneByHand",
    "abandon": "abandon",
    "decline": "decline",
    "answer": "answerLabel",
}
"""Each answer's words, by the key of the interface's own button."""
DANGER = frozenset({"cancel_all", "abandon"})
"""Answers that undo or give up on more than this call: styled as destructive."""
ORIGINS = ("typed", "reply", "context", "computed", "model", "result", "agent")
THEIRS = {"typed": "origin_typed_by", "reply": "origin_reply_by", "context": "origin_context_of"}
"""The origins that are the asker's own doing, said from another reader's side with their name..."""
THEM = {"typed": "origin_typed_them", "reply": "origin_reply_them", "context": "origin_context_them"}
"""... or without it, where the service does not know who asked."""


def card_of(pause: Pause, verdict: Verdict, reader: Admission | None, *, edits: bool = True) -> Card:
    """``pause`` as ``reader`` sees it (None: a channel, read by whoever the rules let answer, never the asker).

    Where ``edits`` (a signed link takes none), each argument its tool lets a person change says how it is typed
    in, for a reader who may approve the pause.
    """
    own = reader is not None and reader.is_owner
    changeable = edits and pause.kind == "confirm" and "approve" in verdict.answers and not verdict.counted
    editable = pause.editable if changeable and pause.editable else ()
    inputs = {name: verdict.inputs[name] for name in editable if name in verdict.inputs}
    return {
        "kind": pause.kind,
        "title": pause.title,
        "question": pause.question,
        "irreversible": pause.irreversible,
        "arguments": [_argument(pause, a, verdict, own, inputs) for a in pause.arguments],
        "reasons": [*(_reason(code, pause, verdict) for code in pause.reasons), *_failed(verdict)],
        "deciders": _deciders(pause, verdict),
        "asked": _asked(pause, own),
        "answers": [_answer(pause, decision) for decision in pause.answers if decision in verdict.answers],
        "waits_for": _waits_for(pause, verdict),
        "deadline": deadline_of(pause),
        "escalation": _escalation(pause),
    }


def deadline_of(pause: Pause) -> Said | None:
    """When the pause ends if nobody answers, and what then: "Answer by 18:00, then it is skipped"."""
    expires = pause.expires_at
    if expires is None:
        return None
    return said("deadlineCancel" if pause.on_expiry == "cancel_all" else "deadlineSkip", when=iso(expires))


def expired_of(pause: Pause) -> Said:
    """What a card says once its pause expired: when, and what the run did instead."""
    expires = pause.expires_at
    when = iso(expires) if expires is not None else None
    return said("expiredCancel" if pause.on_expiry == "cancel_all" else "expiredSkip", when=when)


def _escalation(pause: Pause) -> Said | None:
    """Who else is asked if nobody answers, and when; or that they have been."""
    deadline = pause.deadline
    if deadline is None or "escalate_at" not in deadline:
        return None
    who, at = deadline.get("escalate_label"), iso(deadline["escalate_at"])
    if pause.escalated:
        return said("escalated", who=who) if who else said("escalatedOverdue")
    return said("escalatesAt", who=who, when=at) if who else said("overdueAt", when=at)


def _argument(pause: Pause, given: ArgumentDict, verdict: Verdict, own: bool, inputs: Mapping[str, Input]) -> Argument:
    name = given["name"]
    unit = verdict.units.get(name)
    shown: Argument = {
        "name": name,
        "label": pause.labels.get(name, name),
        "value": given["value"],
        "shown": shown_value(given["value"], unit),
        "origin": _origin(given["origin"], pause.asked_by, own),
    }
    source = pause.sources.get(name)
    if source is not None:
        came: Source = {"title": verdict.tools.get(source["tool"], source["tool"])}
        if "value" in source:
            came["value"] = source["value"]
        shown["source"] = came
    if name in inputs:
        shown["edit"] = inputs[name]
    if unit:
        shown["unit"] = unit
    before = next((a for a in pause.proposed or () if a["name"] == name), None)
    if before is not None and before["value"] != given["value"]:
        shown["asked"] = {"value": before["value"], "shown": shown_value(before["value"], unit)}
    return shown


def _origin(origin: str, asker: str | None, own: bool) -> Said:
    kind, _, detail = origin.partition(":")
    if kind == "edited":
        return said("origin_edited_by", who=detail) if detail else said("origin_edited")
    if kind not in ORIGINS:
        return said(origin)
    if not own and kind in THEIRS:
        return said(THEIRS[kind], who=asker) if asker else said(THEM[kind])
    return said(f"origin_{kind}")


def _reason(code: str, pause: Pause, verdict: Verdict) -> Said:
    """A reason code of the check (``tainted_call: untrusted:read_messages``) as the sentence it keys."""
    name, _, detail = code.partition(":")
    key, detail = f"reason_{name.strip()}", detail.strip()
    if key not in shipped():
        return said(code)
    tool = detail.removeprefix("untrusted:")
    values: dict[str, JSON] = {
        "arg": pause.labels.get(detail, detail),
        "tool": verdict.tools.get(tool, tool),
        "rule": detail,
        "language": language_name(detail) if name.strip() == "language" else detail,
        "error": detail,
        "cause": detail,
    }
    return said(key, **values)


def _failed(verdict: Verdict) -> list[Said]:
    return [said("reason_rule_failed", rule=rule) for rule in verdict.failed]


def _deciders(pause: Pause, verdict: Verdict) -> Said | None:
    """Who must decide, where it is not simply the person who asked: the approvals so far under four eyes, else
    the governing rules' words."""
    if pause.approvals is not None:
        given, needed = pause.approvals["given"], pause.approvals["needed"]
        if not given:
            return said("approvalsNone", needed=needed)
        names = ", ".join(
            str(a.get("name") or a.get("by") or (a.get("principal") or {}).get("sub") or "") for a in given
        )
        return said("approvalsGiven", names=names, given=len(given), needed=needed)
    if verdict.deciders:
        return said("decidesApprover", who=_either(verdict.deciders))
    return None


def _asked(pause: Pause, own: bool) -> Said:
    if own:
        return said("askedByYou", when=pause.created_at)
    if pause.asked_by:
        return said("askedBy", who=pause.asked_by, when=pause.created_at)
    return said("askedAt", when=pause.created_at)


def _answer(pause: Pause, decision: str) -> Answer:
    key = WORDS.get(decision, decision)
    if decision == "approve" and pause.kind == "delegate":
        key = "delegateApprove"
    elif decision == "approve" and pause.irreversible:
        key = "approveIrreversible"
    style: Style = "primary" if decision in ("approve", "answer") else "danger" if decision in DANGER else "secondary"
    return {"decision": decision, "words": said(key), "style": style}


def _waits_for(pause: Pause, verdict: Verdict) -> Said | None:
    """Why this reader cannot give the answer that moves the call on, and who can: None where they can."""
    if verdict.counted:
        return said("outcomeCounted")
    if not verdict.deciders or any(d not in ("skip", "cancel_all", "decline") for d in verdict.answers):
        return None
    return said("waitsFor", who=_either(verdict.deciders))


def _either(words: tuple[str, ...]) -> str:
    return " or ".join(dict.fromkeys(words))
