"""Pauses: what a run asks a person, in the one JSON shape every channel shows.

A pause's id is derived from what it asks, so every worker that replays the same
run reaches the same id; its token is random, stored with it, and shown only to
whoever may answer.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .storage.base import PauseRecord

ANSWERS: dict[str, tuple[str, ...]] = {
    "confirm": ("approve", "skip", "cancel_all"),
    "outcome_unknown": ("happened", "did_not_happen"),
    "saga_stuck": ("retry", "done_by_hand", "abandon"),
    "ask": ("answer",),
    "delegate": ("approve", "decline"),
}

EXTRA_FIELDS = ("prompt", "argument", "turn", "undo", "pending")


def canonical(value: Any) -> str:
    """The one serialisation that ids and digests are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def pause_id(thread: str, run: str, step: int, tool: str, arguments: list[dict[str, Any]], kind: str, subject: str = "") -> str:
    """Same call, same reason, same point of the run: same id, on any worker.

    The id names its run (``p<run id without its r>.<digest>``), so an answer
    finds the run it belongs to in one read.
    """
    material = canonical([thread, run, step, tool, sorted_arguments(arguments), kind, subject])
    return f"p{run.removeprefix('r')}.{hashlib.sha256(material.encode()).hexdigest()[:24]}"


def run_of(pause: str) -> str | None:
    """The run a pause id names, or None for an id no pause of ours could have."""
    body, dot, digest = pause.rpartition(".")
    return f"r{body[1:]}" if dot and body.startswith("p_") and len(digest) == 24 else None


def new_token() -> str:
    return secrets.token_urlsafe(24)


def sorted_arguments(arguments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({"name": a["name"], "value": a["value"], "origin": a["origin"]} for a in arguments), key=lambda a: a["name"])


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Pause:
    """One thing a run waits on.  ``arguments`` are dicts ``{name, value, origin}``, sorted by name."""

    id: str
    kind: str
    thread: str
    run: str
    step: int
    tool: str
    question: str
    arguments: list[dict[str, Any]]
    reasons: list[str]
    irreversible: bool
    answers: list[str]
    token: str
    created_at: str
    extra: dict[str, Any] = field(default_factory=dict)
    delivery: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """How announcing this pause to ``on_interrupt`` went, where it was tried; not part of its JSON."""

    def __getattr__(self, name: str) -> Any:
        if name in EXTRA_FIELDS:
            return self.extra.get(name)
        raise AttributeError(name)

    def to_dict(self, *, token: bool = True) -> dict[str, Any]:
        body = {
            "id": self.id,
            "kind": self.kind,
            "thread": self.thread,
            "run": self.run,
            "step": self.step,
            "tool": self.tool,
            "question": self.question,
            "arguments": [dict(a) for a in self.arguments],
            "reasons": list(self.reasons),
            "irreversible": self.irreversible,
            "answers": list(self.answers),
            "token": self.token,
            "created_at": self.created_at,
            **self.extra,
        }
        if not token:
            del body["token"]
        return body

    @classmethod
    def from_record(cls, record: PauseRecord) -> Pause:
        body = dict(record.payload)
        extra = {name: body.pop(name) for name in EXTRA_FIELDS if name in body}
        return cls(**body, token=record.token, extra=extra, delivery=record.delivery)

    def record(self) -> PauseRecord:
        return PauseRecord(
            id=self.id,
            run=self.run,
            thread=self.thread,
            kind=self.kind,
            step=self.step,
            token=self.token,
            payload=self.to_dict(token=False),
        )
