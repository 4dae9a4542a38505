"""A LangGraph interrupt as a pause: what the graph asks a person, in the one shape every channel shows.

An interrupt whose value is a mapping with a ``tool`` is a confirmation (its
``arguments``, per-argument ``origins``, ``question``, ``reasons`` and
``irreversible`` are shown as given); any other is an ``ask``, whose question is
the value's ``question`` or ``prompt``, else the value as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from ..engine.arguments import ArgumentDict
from ..engine.pause import ANSWERS, Pause, iso, new_token
from ..storage import RunRecord


def pause_of(run: RunRecord, interrupt: Any, at: float) -> Pause:
    """``interrupt`` (LangGraph's ``Interrupt``: its ``id`` and ``value``) as a new pause of ``run``, with a token."""
    value = interrupt.value
    if isinstance(value, Mapping) and "tool" in value:
        return _confirmation(run, interrupt.id, value, at)
    return _ask(run, interrupt.id, _question(value), at)


def _question(value: object) -> str:
    if isinstance(value, Mapping):
        asked = value.get("question") or value.get("prompt")
        if asked:
            return str(asked)
    return str(value)


def _confirmation(run: RunRecord, pause_id: str, call: Mapping[str, Any], at: float) -> Pause:
    origins, given = call.get("origins") or {}, call.get("arguments") or {}
    arguments: list[ArgumentDict] = sorted(
        ({"name": k, "value": v, "origin": origins.get(k, "computed")} for k, v in given.items()),
        key=lambda argument: argument["name"],
    )
    question = str(call.get("question") or f"Run {call['tool']}?")
    return _new(
        run,
        pause_id,
        "confirm",
        str(call["tool"]),
        question,
        arguments,
        list(call.get("reasons") or ["write"]),
        at,
        irreversible=bool(call.get("irreversible")),
    )


def _ask(run: RunRecord, pause_id: str, question: str, at: float) -> Pause:
    return _new(run, pause_id, "ask", "", question, [], [], at, prompt=question)


def _new(
    run: RunRecord,
    pause_id: str,
    kind: Literal["confirm", "ask"],
    tool: str,
    question: str,
    arguments: list[ArgumentDict],
    reasons: list[str],
    at: float,
    *,
    irreversible: bool = False,
    prompt: str | None = None,
) -> Pause:
    """A new pause of ``run`` by the interrupt's id, with a token of its own."""
    return Pause(
        id=pause_id,
        kind=kind,
        thread=run.thread,
        run=run.id,
        step=0,
        tool=tool,
        question=question,
        arguments=arguments,
        reasons=reasons,
        irreversible=irreversible,
        answers=list(ANSWERS[kind]),
        token=new_token(),
        created_at=iso(at),
        prompt=prompt,
    )


def unknown_of(pause: Pause, pause_id: str, cause: str, at: float) -> Pause:
    """A pause asking whether ``pause``'s call happened: the node that took the answer did not finish (``cause``
    says why), so the door cannot know whether its write ran, and never sends it again by itself."""
    return replace(
        pause,
        id=pause_id,
        kind="outcome_unknown",
        question=f"Did {pause.tool or 'it'} happen?",
        reasons=[f"outcome_unknown: {cause}"],
        answers=list(ANSWERS["outcome_unknown"]),
        token=new_token(),
        created_at=iso(at),
        prompt=None,
        approvals=None,
    )
