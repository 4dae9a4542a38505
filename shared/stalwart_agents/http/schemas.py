"""The service's JSON, as pydantic models: request bodies are validated with them, and the
OpenAPI document at ``/openapi.json`` describes every answer with them.

Every model defers building its validator and schema to first use: a Lambda serves
one route, and only that route's models are then built at its cold start.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic.fields import FieldInfo

from ..approvals.admission import STORED_THREAD_MAX, THREAD_MAX
from ..approvals.batch import MAX_ANSWERS
from ..engine.exact import SAFE_INTEGER
from ..vocabulary import CONTROL_CHARACTERS

Value = str | int | float | bool | None | list[Any] | dict[str, Any]


NO_CONTROL = f"^[^{CONTROL_CHARACTERS}]+$"
"""An id's pattern: no store is asked for one holding a control character (a NUL alone failed Postgres)."""
NOT_TAKEN = "the request is not what this route takes"
"""The message of a 400 for a parameter or a body a route does not take."""


@dataclass(frozen=True)
class InPath:
    """What a path parameter takes, declared without FastAPI: a route FastAPI serves reads it as FastAPI's ``Path``
    (``declare.py``), for its check and the OpenAPI document; a route served lean checks it as pydantic's ``Field``
    (``lean.py``), which is the check FastAPI makes of a ``Path``.  A function serving only lean routes then loads no
    FastAPI."""

    description: str
    pattern: str
    min_length: int | None = None
    max_length: int | None = None

    def constraints(self) -> dict[str, Any]:
        """The keywords ``Path`` and ``Field`` both take, as declared."""
        return {name: value for name, value in asdict(self).items() if value is not None}

    def field(self) -> FieldInfo:
        return Field(**self.constraints())  # type: ignore[no-any-return]


def in_path(annotation: Any) -> tuple[Any, InPath] | None:
    """The type and the ``InPath`` of an ``Annotated[type, InPath(...)]``; None for any other annotation."""
    kind, *declared = get_args(annotation) or (annotation,)
    spec = next((d for d in declared if isinstance(d, InPath)), None)
    return None if spec is None else (kind, spec)


Thread = Annotated[
    str,
    InPath(
        min_length=1,
        max_length=STORED_THREAD_MAX,
        pattern=NO_CONTROL,
        description="the conversation's id, as you named it or as a pause shows it: no control characters",
    ),
]
TurnThread = Annotated[
    str,
    InPath(
        min_length=1,
        max_length=THREAD_MAX,
        pattern=NO_CONTROL,
        description="the conversation's id, as you named it: no control characters",
    ),
]
"""A turn's: a thread a turn begins is named by its owner, in at most 200 characters."""


RunId = Annotated[str, InPath(min_length=1, max_length=100, pattern="^[A-Za-z0-9_-]+$", description="a run's id")]
CallKey = Annotated[
    str, InPath(pattern=r"^[0-9]{1,6}(\.[0-9]{1,6})?$", description="a call's key in its run: `3`, or `3.2`")
]

SafeInt = Annotated[StrictInt, Field(ge=-SAFE_INTEGER, le=SAFE_INTEGER)]
SafeFloat = Annotated[StrictFloat, Field(ge=-SAFE_INTEGER, le=SAFE_INTEGER)]
"""Numbers a browser shows exactly (``engine.exact.SAFE_INTEGER``): what a person approves is what runs."""


class _Model(BaseModel):
    model_config = ConfigDict(defer_build=True)


class _Body(_Model):
    model_config = ConfigDict(extra="forbid")


class Turn(_Body):
    text: str = Field(min_length=1, max_length=4000, description="what the person wrote")


class Resume(_Body):
    interrupt_id: str = Field(min_length=1, max_length=200, pattern=NO_CONTROL)
    decision: str = Field(min_length=1, max_length=40, description="one of the pause's answers")
    token: str = Field(min_length=1, max_length=200, description="the token shown with the pause")
    value: StrictStr | SafeInt | SafeFloat | None = Field(None, description="the answer to an ask")
    edits: dict[Annotated[str, Field(max_length=100)], StrictStr | SafeInt | SafeFloat | StrictBool] | None = Field(
        None,
        max_length=50,
        description="with approve: new values for the arguments the card marks editable (`edit`), by name; the "
        "call runs with exactly these, or is asked again of whoever may approve it as changed",
    )


class Answers(_Body):
    answers: list[Resume] = Field(
        min_length=1, max_length=MAX_ANSWERS, description="each claimed on its own: each succeeds or fails alone"
    )


class Thumb(_Body):
    message: str = Field(min_length=1, max_length=200, pattern=NO_CONTROL, description="the reply's id")
    thumb: Literal["up", "down"]


class SourceOut(_Model):
    tool: str = Field(description="the earlier call the value came from")
    step: int
    value: Value = Field(None, description="that call's result, where it is at most 2 KiB of JSON")
    truncated: bool = Field(False, description="true where the result was too large to carry")


class Argument(_Model):
    name: str
    value: Value
    origin: str
    label: str | None = Field(None, description="the parameter's name for people (a pause's arguments carry it)")
    source: SourceOut | None = Field(None, description="where origin is result:<step>.<call>: that call")


class EscalationOut(_Model):
    at: str = Field(description="when it escalates (or did)")
    done: bool = Field(description="whether it has: those it names may answer it now")
    to: str | None = Field(description="who it escalates to, in words")


class PauseOut(_Model):
    model_config = ConfigDict(extra="allow")
    id: str
    kind: Literal["confirm", "outcome_unknown", "saga_stuck", "ask", "delegate"]
    thread: str
    run: str
    step: int
    tool: str
    question: str
    title: str = Field(description="the call as a person reads it: the tool's describe template filled in")
    label: str = Field(description="the tool's name for people")
    arguments: list[Argument]
    reasons: list[str]
    irreversible: bool
    answers: list[str]
    token: str
    created_at: str
    expires_at: str | None = Field(
        None, description="the deadline: nobody's answer is taken from then on, and the run does what on_expiry says"
    )
    on_expiry: Literal["skip", "cancel_all"] | None = Field(
        None, description="what the run does with a pause that expired: goes on without the call, or undoes the run"
    )
    escalation: EscalationOut | None = Field(None, description="who else may answer once it has waited long enough")
    editable: list[str] | None = Field(
        None, description="a confirm's arguments a person may change before approving (send them as `edits`)"
    )
    proposed: list[Argument] | None = Field(
        None, description="on a call a person changed and could not approve alone: its arguments as first asked"
    )
    edited_by: str | None = Field(None, description="who changed it, where the service knows their name")


class TruncatedOut(_Model):
    bytes: int = Field(description="the size of what was left out, as JSON in UTF-8")
    read: str | None = Field(
        description="where the thread's owner reads the whole result (GET); null where it is not kept (a team's step)"
    )


class StepOut(_Model):
    step: int
    tool: str
    arguments: list[Argument]
    status: str
    result: Value = None
    error: str | None = None
    call: int | None = Field(None, description="the call's number within a team's step")
    truncated: TruncatedOut | None = Field(
        None,
        description="only where the answer would have passed the response budget: `result` is null, and read whole",
    )


class ResultOut(StepOut):
    thread: str
    run: str
    key: str = Field(description="the call's key in its run: `3`, or `3.2` for a team's second call at step 3")


class DecisionsOut(_Model):
    thread: str
    intact: bool = Field(
        description="whether the record is the chain that was written: nothing changed, removed or moved"
    )
    decisions: list[dict[str, Any]] = Field(
        description="each decision, oldest first, as the record keeps it, with `mine`: whether the reader gave it"
    )


class RefusalOut(_Model):
    step: int
    tool: str
    arguments: list[Argument]
    sentence: str
    rule: str | None


class ReplyText(_Model):
    id: str
    text: str


class ReplyOut(_Model):
    thread: str
    reply: ReplyText
    steps: list[StepOut]
    waiting: list[PauseOut]
    refusals: list[RefusalOut]
    rollback: dict[str, Any] | None
    not_notified: list[dict[str, Any]]


class WaitingOut(_Model):
    thread: str
    waiting: list[PauseOut]
    not_notified: list[dict[str, Any]] = Field(description="pauses whose announcement to on_interrupt failed")


class InboxOut(_Model):
    waiting: list[PauseOut] = Field(description="open pauses the caller may answer, newest first, each with `turn`")
    next: str | None = Field(description="the cursor of the next page (`?cursor=`), null on the last")
    not_notified: list[dict[str, Any]] = Field(description="pauses of this page whose announcement has not arrived")


class OutcomeOut(_Model):
    interrupt_id: str
    status: int = Field(description="as the answer alone would have had: 200, or its error's status")
    decision: str | None = Field(None, description="the decision taken: `edited` where a change is asked again")
    steps: list[StepOut] | None = Field(None, description="what became of the call, as the person who answered sees it")
    waiting: list[str] | None = Field(None, description="pauses now waiting that this person may answer, by id")
    error: str | None = Field(None, description="the error's code, where this answer was not taken")
    message: str | None = None


class AnswersOut(_Model):
    answers: list[OutcomeOut] = Field(description="what came of each answer, in the order given")


class FeedbackOut(_Model):
    message: str
    thumb: Literal["up", "down"]


class ErrorOut(_Model):
    error: str
    message: str
    waiting: list[PauseOut] | None = None


class HealthOut(_Model):
    ok: bool


class ConfigOut(_Model):
    agent: str = Field(description="the agent that answers a turn")
    base: str
    description: str = Field(description="what the agent does, from agent.yaml; empty where it says nothing")
    examples: list[str] = Field(description="turns the agent reads, made from its tools' `says` patterns")
    sign_in: bool = Field(
        description="whether the thread routes need Authorization: Bearer <JWT>; the interface reads a thread only "
        "once it has a token to send"
    )


def body_of(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI for a body the route reads itself (API Gateway sends JSON without a Content-Type), each model it
    holds written in place: a ``$defs`` reference inside a request body is one OpenAPI cannot resolve."""
    schema = model.model_json_schema()
    schema = _inlined(schema, schema.pop("$defs", {}))
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def _inlined(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inlined(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inlined(value, defs) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_inlined(value, defs) for value in schema]
    return schema


BAD_REQUEST = {
    "description": "bad_request: the body, a parameter or the Host is not what this route takes (never a 422)",
    "content": {"application/json": {"example": {"error": "bad_request", "message": NOT_TAKEN}}},
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Each status answered as ``{"error", "message"}``; a 400 is always ``bad_request``, shown by an example."""
    return {status: {"model": ErrorOut, **(BAD_REQUEST if status == 400 else {})} for status in statuses}


LINK_PAGES = {
    200: "the pause the link names, or what came of answering it",
    400: "an answer the pause does not take",
    401: "a link that needs its reader signed in",
    403: "a reader the approver rules do not let answer",
    404: "a link that is broken, or not genuine",
    409: "a pause answered already",
    410: "a link, or the pause it names, past its time",
    503: "the store cannot be reached",
}
"""What a signed link answers, each as a page that says it in words (a link is opened in a browser)."""


def html_answers(described: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI for a route that answers HTML: each status, and what it means."""
    html = {"text/html": {"schema": {"type": "string"}}}
    return {status: {"description": said, "content": html} for status, said in described.items()}


def answers(model: type[BaseModel], *statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI for a route that builds its own response: documented by ``model``, never re-validated through it."""
    return {200: {"model": model}, **errors(*statuses)}
