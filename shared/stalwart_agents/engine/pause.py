"""Pauses: what a run asks a person, in the one shape every channel shows.

``Pause`` is that shape; the stored record (``record``) and the JSON
(``to_dict``) are derived from it, and read back into it (``from_record``).
A pause's id is derived from what it asks and where (``PausePoint``), so every
worker that replays the same run reaches the same id; its token is random,
stored with it, and shown only to whoever may answer.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from operator import itemgetter
from typing import Literal, NotRequired, cast

from typing_extensions import TypedDict  # pydantic builds schemas of these: before 3.12, from this one

from ..storage import PauseRecord
from ..vocabulary import JSON, Choice, OnExpiry, PauseKind
from .arguments import ArgumentDict, Source
from .deadline import EXPIRING, Deadline, escalated, reminders, wake_at

ANSWERS: dict[PauseKind, tuple[Choice, ...]] = {
    "confirm": ("approve", "skip", "cancel_all"),
    "outcome_unknown": ("happened", "did_not_happen"),
    "saga_stuck": ("retry", "done_by_hand", "abandon"),
    "ask": ("answer",),
    "delegate": ("approve", "decline"),
}


class UndoFailure(TypedDict):
    """The undo a saga_stuck pause is about: which tool, its last error, and how often it was tried."""

    tool: str
    error: str | None
    attempts: int


class UndoLine(TypedDict):
    """One write of a rollback: undone ``by`` the tool or a person, not undone and ``why``, or still pending."""

    step: int
    tool: str
    undo: str | None
    arguments: list[ArgumentDict]
    by: NotRequired[Literal["tool", "person"]]
    why: NotRequired[Literal["irreversible", "no_undo", "abandoned"]]


class AfterAnswer(TypedDict):
    """Who gave the answer that opened a pause, as its webhook tells the receiver (``edited``: they changed the call,
    which the pause now asks about)."""

    decision: str
    by: str | None
    principal: dict[str, JSON] | None
    channel: str


class Approval(TypedDict):
    """One person's approval of a pause that needs several: who (their word, and the principal), and when; ``name``
    is what a card calls them, where the service knew it."""

    by: str | None
    principal: dict[str, JSON]
    at: str
    name: NotRequired[str]


class Approvals(TypedDict):
    """A four-eyes pause's approvals: how many different people it needs, and those given so far."""

    needed: int
    given: list[Approval]


class Delivery(TypedDict):
    """How announcing a pause to ``on_interrupt`` went, the latest attempt; never part of its JSON."""

    delivered: bool
    at: float
    interrupt: NotRequired[str]
    error: NotRequired[str]


CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""One encoder for ids and digests: ``json.dumps`` with options builds a new encoder for every value."""


def canonical(value: object) -> str:
    """The one serialisation that ids and digests are computed over."""
    return CANONICAL.encode(value)


@dataclass(frozen=True)
class PausePoint:
    """Where in the run a pause stands; with the call and the kind, it makes the pause's id.

    ``key`` is the call's place in the journal (``2``, ``2.1``, ``2.undo``); an
    ask also names the argument it asks for, and a question about an attempt
    names the attempt, so asking again after a retry is a new pause and not the
    answered one.  Made only by the constructors below, one for each question a
    run asks, so the ids of stored pauses stay what they were.
    """

    step: int
    key: str
    argument: str | None = None
    attempt: int | None = None
    edit: int = 0

    @classmethod
    def call(cls, step: int, key: str, edit: int = 0) -> PausePoint:
        """The call at ``key`` itself: may it run (confirm); after ``edit`` changes a person made to it and could
        not approve alone, that changed call, so asking about it is a new pause whatever its values."""
        return cls(step, key, edit=edit)

    @classmethod
    def missing(cls, step: int, key: str, argument: str) -> PausePoint:
        """An argument the call at ``key`` needs and nobody gave (ask)."""
        return cls(step, key, argument=argument)

    @classmethod
    def after(cls, step: int, key: str, attempt: int) -> PausePoint:
        """One attempt of the call at ``key``: did it happen (outcome_unknown), or what now it failed (saga_stuck)."""
        return cls(step, key, attempt=attempt)

    @classmethod
    def turn(cls, failed_attempt: int | None = None) -> PausePoint:
        """The turn itself (delegate): at first, or again after the model's answer ``failed_attempt`` failed."""
        return cls(0, "") if failed_attempt is None else cls(0, "retry", attempt=failed_attempt)

    @property
    def subject(self) -> str:
        """What tells apart two pauses at one step: ``2``, ``2:amount``, ``2.undo#3``, ``retry#1``, ``2~1``."""
        asked = f":{self.argument}" if self.argument is not None else ""
        tried = f"#{self.attempt}" if self.attempt is not None else ""
        edited = f"~{self.edit}" if self.edit else ""
        return f"{self.key}{asked}{tried}{edited}"

    def pause_id(
        self, key: bytes, thread: str, run: str, tool: str, arguments: list[ArgumentDict], kind: PauseKind
    ) -> str:
        """Same call, same reason, same point of the run: same id, on any worker of one store.

        The id names its run (``p<run id without its r>.<digest>``), so an answer
        finds the run it belongs to in one read.  The digest is keyed (HMAC-SHA256
        under ``key``, the store's: ``storage/keys.py``), so nobody without the
        store can confirm from an id which thread, call or amount it is about.
        """
        material = self._material(thread, run, tool, arguments, kind)
        return _named(run, hmac.digest(key, material, "sha256").hex())

    def unkeyed_id(self, thread: str, run: str, tool: str, arguments: list[ArgumentDict], kind: PauseKind) -> str:
        """The id the same pause had before ids were keyed (a plain SHA-256): a run paused then finds it still."""
        return _named(run, hashlib.sha256(self._material(thread, run, tool, arguments, kind)).hexdigest())

    def _material(self, thread: str, run: str, tool: str, arguments: list[ArgumentDict], kind: PauseKind) -> bytes:
        ordered = sorted(arguments, key=itemgetter("name"))
        return canonical([thread, run, self.step, tool, ordered, kind, self.subject]).encode()


def _named(run: str, digest: str) -> str:
    """A pause id: the run it is of, then a digest of what it asks."""
    return f"p{run.removeprefix('r')}.{digest[:24]}"


TRACEPARENT = "traceparent"
"""The key of a pause record's payload that keeps the trace it was opened in; read back into ``Pause.traceparent``
alone, never into any JSON."""

CLOCK_CHANNEL = "clock"
"""The channel, and the word for who answered, of the clock's answer to a pause at its deadline."""


def ended_by_clock(record: PauseRecord) -> bool:
    """Whether the stored pause was answered by the clock at its deadline: nobody answered in time."""
    return (record.answer or {}).get("channel") == CLOCK_CHANNEL


def run_of(pause: str) -> str | None:
    """The run a pause id names, or None for an id no pause of ours could have."""
    body, dot, digest = pause.rpartition(".")
    return f"r{body[1:]}" if dot and body.startswith("p_") and len(digest) == 24 else None


def new_token() -> str:
    return secrets.token_urlsafe(24)


_SECOND: tuple[int, str] = (-1, "")
"""The last whole second ``iso`` wrote, and its text: a cycle stamps several events within the same second."""


def iso(timestamp: float) -> str:
    """``timestamp`` as UTC ISO 8601 to the millisecond, ``Z``-suffixed: exactly what ``datetime.fromtimestamp``
    (which rounds to the microsecond, half to even) and ``isoformat(timespec="milliseconds")`` make, at a third of
    their cost, since every event a cycle logs is stamped."""
    global _SECOND
    fraction, whole = math.modf(timestamp)
    micro, second = round(fraction * 1e6), int(whole)
    if micro >= 1_000_000:
        micro, second = micro - 1_000_000, second + 1
    if micro < 0 or second < 0:
        return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    cached, prefix = _SECOND
    if cached != second:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _SECOND = (second, prefix)
    return f"{prefix}.{micro // 1000:03d}Z"


def seconds_since(stamp: str, now: float) -> float:
    """Seconds from an ``iso`` time to ``now``."""
    return now - datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True, slots=True)
class Pause:
    """One thing a run waits on.  ``arguments`` are the call's ``{name, value, origin}``, sorted by name.

    ``title`` is what it is about as a person reads it (the described call, else the
    tool's label, else its name) and ``label`` the tool's label; a pause stored before
    either was kept has its tool's name for both.  ``labels`` (a person's name for an
    argument, where it has one other than its own) and ``sources`` (the earlier call an
    argument's value came from) are shown within each argument of its JSON, so
    ``arguments`` stay exactly what the call runs with.

    The fields after ``created_at`` belong to one kind each and are None for the
    others: an ask's ``prompt`` and the ``argument`` it fills, a delegate's
    ``turn``, a saga_stuck's ``undo`` and ``pending`` (what still needs undoing),
    ``after_answer`` on the webhook of a pause that an answer opened,
    ``approvals`` on a confirm its tool needs several people to approve, ``editable`` on a
    confirm: the arguments a person may change before approving, and ``proposed`` on a confirm
    a person's changes opened: the call's arguments as they were asked before, and ``edited_by``
    who changed them.

    ``deadline`` is the pause's timing as kept (never in its JSON, which says ``expires_at``,
    ``on_expiry`` and ``escalation`` instead), and ``woken`` how many of its events the clock has done.
    ``traceparent`` is the trace the pause was opened in, where telemetry was on (``telemetry/``): kept in its
    record, never in its JSON, so its answer and deliveries, in whichever process, join that trace.
    """

    id: str
    kind: PauseKind
    thread: str
    run: str
    step: int
    tool: str
    question: str
    arguments: list[ArgumentDict]
    reasons: list[str]
    irreversible: bool
    answers: list[Choice]
    token: str
    created_at: str
    prompt: str | None = None
    argument: str | None = None
    turn: str | None = None
    undo: UndoFailure | None = None
    pending: list[UndoLine] | None = None
    after_answer: AfterAnswer | None = None
    approvals: Approvals | None = None
    editable: list[str] | None = None
    proposed: list[ArgumentDict] | None = None
    edited_by: str | None = None
    title: str = ""
    label: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    asked_by: str | None = None
    deadline: Deadline | None = None
    woken: int = 0
    delivery: Delivery | None = field(default=None, compare=False, repr=False)
    traceparent: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", self.label or self.tool)
        object.__setattr__(self, "title", self.title or self.label)

    def to_dict(self, *, token: bool = True) -> dict[str, object]:
        """The pause's JSON: every field but the delivery, a kind's own only where set; lists copied."""
        body: dict[str, object] = {
            "id": self.id,
            "kind": self.kind,
            "thread": self.thread,
            "run": self.run,
            "step": self.step,
            "tool": self.tool,
            "title": self.title,
            "label": self.label,
            "question": self.question,
            "arguments": [self._explained(a) for a in self.arguments],
            "reasons": list(self.reasons),
            "irreversible": self.irreversible,
            "answers": list(self.answers),
            "token": self.token,
            "created_at": self.created_at,
        }
        if not token:
            del body["token"]
        for name in _KIND_FIELDS:
            value = getattr(self, name)
            if value is not None:
                body[name] = value
        if self.asked_by is not None:
            body["asked_by"] = self.asked_by
        return body | self._timed()

    def _timed(self) -> dict[str, object]:
        """What the pause's JSON says of its deadline: when it expires and what then, and its escalation."""
        deadline = self.deadline
        if deadline is None:
            return {}
        timed: dict[str, object] = {}
        if "expires_at" in deadline:
            timed |= {"expires_at": iso(deadline["expires_at"]), "on_expiry": self.on_expiry}
        if "escalate_at" in deadline:
            escalation = {"at": iso(deadline["escalate_at"]), "done": self.escalated}
            timed["escalation"] = escalation | {"to": deadline.get("escalate_label")}
        return timed

    @property
    def escalated(self) -> bool:
        """Whether the clock has escalated the pause: whoever its escalation names may answer it too."""
        return escalated(self.deadline, self.woken)

    @property
    def reminders(self) -> int:
        """How many times the clock has announced the pause again."""
        return reminders(self.deadline, self.woken)

    @property
    def expires_at(self) -> float | None:
        return self.deadline.get("expires_at") if self.deadline is not None else None

    @property
    def on_expiry(self) -> OnExpiry:
        """What the run does once the pause expired: goes on without the call (``skip``), or ``cancel_all``."""
        return (self.deadline or {}).get("on_expiry", "skip")

    def overdue(self, now: float) -> bool:
        """Whether the pause is past a deadline that ends it at ``now`` (an outcome_unknown's or a saga_stuck's
        never does): nobody's answer is taken from then on."""
        expires = self.expires_at
        return self.kind in EXPIRING and expires is not None and now >= expires

    def _explained(self, argument: ArgumentDict) -> ArgumentDict:
        """An argument as a person is shown it: with its label, and the earlier call its value came from."""
        name = argument["name"]
        shown = ArgumentDict(name=name, value=argument["value"], origin=argument["origin"])
        shown["label"] = self.labels.get(name, name)
        if name in self.sources:
            shown["source"] = self.sources[name]
        return shown

    def asked(self, by: str | None) -> Pause:
        """This pause as shown, naming who began the turn that opened it (their run keeps it, not the pause)."""
        return self if by is None or by == self.asked_by else replace(self, asked_by=by)

    def with_approvals(self, given: Sequence[Approval]) -> Pause:
        """This pause showing the approvals ``given`` so far, where it needs several; any other, as it is."""
        if self.approvals is None:
            return self
        return replace(self, approvals={"needed": self.approvals["needed"], "given": list(given)})

    @classmethod
    def from_record(cls, record: PauseRecord) -> Pause:
        """The pause a record keeps: its payload over what the record's own fields and the pause's kind say."""
        payload = {**_implied(record), **record.payload}
        payload.setdefault("question", _asked(payload))
        stored = {name: value for name, value in payload.items() if name in _STORED}
        kept = cast("list[ArgumentDict]", payload["arguments"])
        stored["arguments"] = [ArgumentDict(name=a["name"], value=a["value"], origin=a["origin"]) for a in kept]
        stored["labels"] = {a["name"]: a["label"] for a in kept if a.get("label", a["name"]) != a["name"]}
        stored["sources"] = {a["name"]: a["source"] for a in kept if "source" in a}
        delivery = cast("Delivery | None", record.delivery)
        traceparent = cast("str | None", record.payload.get(TRACEPARENT))
        return cls(**stored, token=record.token, woken=record.woken, delivery=delivery, traceparent=traceparent)

    def record(self) -> PauseRecord:
        """The pause as a store keeps it: its JSON, less what the record's fields hold and what goes without saying
        (the answers of its kind, a label that is the tool's name), which ``from_record`` puts back."""
        payload = self.to_dict(token=False)
        for derived in ("asked_by", "expires_at", "on_expiry", "escalation"):
            payload.pop(derived, None)
        if self.deadline is not None:
            payload["deadline"] = self.deadline
        if self.traceparent is not None:
            payload[TRACEPARENT] = self.traceparent
        implied = {"id": self.id, "kind": self.kind, "thread": self.thread, "run": self.run, "step": self.step}
        implied |= {"answers": list(ANSWERS[self.kind]), "irreversible": False, "label": self.tool, "title": self.label}
        implied |= {"question": _asked(payload)} if self.kind == "confirm" else {}
        kept = {name: value for name, value in payload.items() if name not in implied or implied[name] != value}
        kept["tool"] = self.tool
        kept["arguments"] = [_unexplained(argument) for argument in cast("list[ArgumentDict]", payload["arguments"])]
        return PauseRecord(
            id=self.id,
            run=self.run,
            thread=self.thread,
            kind=self.kind,
            step=self.step,
            token=self.token,
            payload=kept,
            wake_at=wake_at(self.deadline, self.woken),
            woken=self.woken,
        )


def _implied(record: PauseRecord) -> dict[str, object]:
    """What a stored payload leaves out: the record's own fields, and what its kind answers."""
    kind = cast("PauseKind", record.kind)
    implied: dict[str, object] = {"id": record.id, "kind": kind, "thread": record.thread, "run": record.run}
    implied |= {"step": record.step, "answers": list(ANSWERS.get(kind, ())), "irreversible": False}
    return implied


def _asked(payload: dict[str, object]) -> str:
    """The question a confirm asks where its tool has none of its own (see ``default_question``)."""
    tool = str(payload["tool"])
    return default_question(str(payload.get("title") or payload.get("label") or tool), tool)


def default_question(title: str, tool: str) -> str:
    """A confirm's question where its tool words none: its described title, asked ("Charge 40.00 EUR to order
    4411?"); with no words of the tool's own at all, the documented ``Run <tool>?``, never a bare ``<tool>?``."""
    return f"Run {tool}?" if title == tool else f"{title}?"


def _unexplained(argument: ArgumentDict) -> ArgumentDict:
    """An argument as kept: its label only where it is not the argument's own name."""
    kept = ArgumentDict(**argument)
    if kept.get("label") == kept["name"]:
        del kept["label"]
    return kept


_KIND_FIELDS = (
    "prompt",
    "argument",
    "turn",
    "undo",
    "pending",
    "after_answer",
    "approvals",
    "editable",
    "proposed",
    "edited_by",
)
_STORED = frozenset(spec.name for spec in fields(Pause)) - {"token", "delivery", "asked_by", "woken", "traceparent"}
