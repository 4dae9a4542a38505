"""A LangGraph interrupt as a pause, and a person's answer as the value ``interrupt()`` returns.

Three values are understood:

- a mapping with a ``tool`` is a confirmation (its ``arguments``, per-argument ``origins``,
  ``question``, ``reasons`` and ``irreversible`` are shown as given; ``editable`` names the
  arguments a person may change before approving, and ``schema``, a JSON Schema of the
  arguments, types them).  It returns the decision; an approval with changes returns
  ``{"decision": "approve", "arguments": {...every argument, as approved}}``;
- LangChain's ``HumanInTheLoopMiddleware`` request (``action_requests`` and ``review_configs``)
  is a confirmation of its tool call, with the decisions its review allows: ``edit`` makes
  every argument editable (those of its ``args_schema`` where it gives one).  It returns the
  middleware's ``{"decisions": [...]}``: approve, edit (the approved call) or reject.  A request
  for several calls is one pause whose answer decides them all, and changes none;
- any other is an ``ask``, whose question is the value's ``question`` or ``prompt``, else the
  value as text; it returns the value it is answered with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, cast

from ..approvals.card import Input
from ..engine.arguments import ArgumentDict
from ..engine.edit import Edit, changes_of, edit_of
from ..engine.pause import ANSWERS, Pause, iso, new_token
from ..storage import RunRecord
from ..tools.python import fits_schema, input_kind, same_kind, shown_value
from ..vocabulary import JSON, Choice

Schemas = Mapping[str, Mapping[str, Any]]
"""The JSON Schema of each argument, by name, where the graph gave one."""

DECLINED = "A person declined this call, so it was not run."
CANCELLED = "A person cancelled this call and the rest of the task, so it was not run."
"""What a rejected call of LangChain's middleware tells the model: the person skipped it, or cancelled everything."""


def pause_of(run: RunRecord, interrupt: Any, at: float) -> Pause:
    """``interrupt`` (LangGraph's ``Interrupt``: its ``id`` and ``value``) as a new pause of ``run``, with a token."""
    value = interrupt.value
    if _is_review(value):
        return _review(run, interrupt.id, value, at)
    if isinstance(value, Mapping) and "tool" in value:
        return _confirmation(run, interrupt.id, value, at)
    return _ask(run, interrupt.id, _question(value), at)


def _is_review(value: object) -> bool:
    """Whether ``value`` is LangChain's ``HumanInTheLoopMiddleware`` request (an ``HITLRequest``)."""
    return isinstance(value, Mapping) and isinstance(value.get("action_requests"), Sequence) and "tool" not in value


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
    pause = _new(
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
    return replace(pause, editable=_editable(call.get("editable") or (), given, {}))


def _review(run: RunRecord, pause_id: str, request: Mapping[str, Any], at: float) -> Pause:
    """The middleware's request: one call as it is; several as one pause, each argument named ``<n>.<name>``."""
    actions = list(request["action_requests"])
    allowed = [_allowed(request, action) for action in actions]
    answers = _answers(allowed)
    if len(actions) == 1:
        [action] = actions
        given, tool = _args(action), str(action["name"])
        question = str(action.get("description") or f"Run {tool}?")
        pause = _new(run, pause_id, "confirm", tool, question, _model_made(given), ["write"], at, answers)
        editable = _editable(list(given), given, schemas_of(request)) if "edit" in allowed[0] else None
        return replace(pause, editable=editable)
    names = [str(action["name"]) for action in actions]
    asked = [(f"{n}.{k}", f"{a['name']} {k}", v) for n, a in enumerate(actions, 1) for k, v in _args(a).items()]
    question = f"Run these {len(actions)} calls: {', '.join(names)}? One answer decides them all."
    arguments = _model_made({name: value for name, _, value in asked})
    pause = _new(run, pause_id, "confirm", ", ".join(names), question, arguments, ["write"], at, answers)
    return replace(pause, labels={name: label for name, label, _ in asked})


def _args(action: Mapping[str, Any]) -> dict[str, JSON]:
    return dict(action.get("args") or {})


def _model_made(given: Mapping[str, JSON]) -> list[ArgumentDict]:
    return [{"name": k, "value": v, "origin": "model"} for k, v in sorted(given.items())]


def _allowed(request: Mapping[str, Any], action: Mapping[str, Any]) -> list[str]:
    """The decisions the request's review of ``action`` allows: approve and reject where it has none."""
    review = _review_of(request, action)
    return list(review.get("allowed_decisions") or ()) if review is not None else ["approve", "reject"]


def _review_of(request: Mapping[str, Any], action: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return next((r for r in request.get("review_configs") or () if r.get("action_name") == action["name"]), None)


def _answers(allowed: list[list[str]]) -> list[Choice]:
    """What a person may answer: approve where every call may be approved or edited, skip and cancel_all where
    every call may be rejected."""
    approvable = all("approve" in a or "edit" in a for a in allowed)
    rejectable = all("reject" in a for a in allowed)
    return [d for d in ANSWERS["confirm"] if (approvable if d == "approve" else rejectable)]


def _editable(named: object, given: Mapping[str, JSON], schemas: Schemas) -> list[str] | None:
    """The arguments of ``named`` a person may change: those the call has, and that ``schemas`` types where it
    types any; None where there are none."""
    names = [named] if isinstance(named, str) else list(named) if isinstance(named, Sequence) else []
    editable = [name for name in names if name in given and (not schemas or name in schemas)]
    return editable or None


def schemas_of(value: object) -> dict[str, Mapping[str, Any]]:
    """The JSON Schema of each argument an interrupt's call gives: its ``schema``, or the ``args_schema`` of the
    middleware's review of its one call; empty where it gives none."""
    if not isinstance(value, Mapping):
        return {}
    schema: object = value.get("schema")
    if _is_review(value):
        actions = list(value["action_requests"])
        review = _review_of(value, actions[0]) if len(actions) == 1 else None
        schema = review.get("args_schema") if review is not None else None
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return dict(properties) if isinstance(properties, Mapping) else {}


def inputs_of(pause: Pause, schemas: Schemas) -> dict[str, Input]:
    """How a person types in each argument of ``pause`` they may change: by its schema's type, else by the kind of
    value asked; none for a value no single field holds (a list)."""
    asked = {a["name"]: a["value"] for a in pause.arguments}
    typed = {name: _input(schemas.get(name), asked.get(name)) for name in pause.editable or ()}
    return {name: kind for name, kind in typed.items() if kind is not None}


def _input(schema: Mapping[str, Any] | None, asked: JSON) -> Input | None:
    kind = input_kind((schema or {}).get("type"), asked)
    return cast(Input, kind) if kind is not None else None


def judged(pause: Pause, schemas: Schemas, edits: Mapping[str, JSON]) -> dict[str, JSON]:
    """The changes ``edits`` makes to ``pause``'s call (``engine/edit.py``): each to an argument it lets a person
    change, as its schema takes it, and of the schema's type, else of the kind of value asked."""

    def fit(name: str, value: JSON, asked: JSON) -> JSON:
        schema = schemas.get(name, {})
        if schema:
            fits_schema(schema, value)
        return value if "type" in schema else same_kind(value, asked)

    return changes_of(pause, pause.editable or [], fit, edits)


def edit_in(pause: Pause, changes: Mapping[str, JSON], editor: str | None) -> Edit:
    """An approval's changes to a graph's call: the call keeps its title (a graph describes none), and values read
    as they are (a graph gives them no units)."""
    return edit_of(pause, dict(changes), editor, title=lambda _: pause.title, shown=lambda _, value: shown_value(value))


def resumed(asked: object, kind: str, decision: str, value: JSON, edits: Mapping[str, JSON]) -> JSON:
    """What ``interrupt()`` returns for an answer to the interrupt whose value was ``asked``: an ask's value where
    it was answered; the middleware's decisions for its request; else the decision, or with changes, the decision
    and the call's arguments as approved."""
    if kind == "ask" and decision == "answer":
        return value
    if isinstance(asked, Mapping) and _is_review(asked):
        actions = list(asked["action_requests"])
        return {"decisions": [_decided(a, _allowed(asked, a), decision, edits) for a in actions]}
    if edits and isinstance(asked, Mapping):
        return {"decision": decision, "arguments": {**(asked.get("arguments") or {}), **edits}}
    return decision


def _decided(action: Mapping[str, Any], allowed: list[str], decision: str, edits: Mapping[str, JSON]) -> JSON:
    """One call's decision for the middleware: an approval it allows as it is, else as an edit (changed or not);
    a skip or a cancel as a rejection saying so."""
    if decision == "approve":
        if not edits and "approve" in allowed:
            return {"type": "approve"}
        return {"type": "edit", "edited_action": {"name": action["name"], "args": {**_args(action), **edits}}}
    return {"type": "reject", "message": CANCELLED if decision == "cancel_all" else DECLINED}


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
    answers: list[Choice] | None = None,
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
        answers=list(ANSWERS[kind]) if answers is None else answers,
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
        editable=None,
    )
