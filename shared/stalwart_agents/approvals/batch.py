"""Several answers in one request, each claimed on its own, so each succeeds or fails alone.

A batch is a convenience of delivery, never of judgement: every answer is admitted,
judged by the approver rules, four eyes, its deadline and its token, and claimed as if
it had come alone, and the outcome of each is reported in the order given.  A pause
named twice is answered once; only a batch over ``MAX_ANSWERS`` is refused whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from ..door import Door, seen_by
from ..engine.answer import Answer
from ..errors import BadRequest, NotFound, StalwartError
from ..vocabulary import JSON
from .admission import Admission
from .principal import ANONYMOUS, Principal
from .rules import owner_of

MAX_ANSWERS = 100
"""The most answers one request carries: an inbox page's worth, and a request that ends well within a Lambda's time."""
UNKNOWN = "nothing you may answer waits with this id"
"""Said alike of a pause that does not exist and of another person's, so a batch cannot probe ids."""


@dataclass(frozen=True)
class BatchAnswer:
    """One answer of a batch: the pause, the token shown with it, the decision, an ask's value, an approval's
    changes."""

    interrupt_id: str
    token: str | None
    decision: str
    value: JSON = None
    edits: Mapping[str, JSON] | None = None


class BatchOutcome(TypedDict):
    """What came of one answer of a batch: ``status`` as the answer alone would have had; on success the decision
    taken (``edited`` where a change is asked again) and what became of the call, as the person who answered sees
    it; otherwise the error's code and sentence."""

    interrupt_id: str
    status: int
    decision: NotRequired[str]
    steps: NotRequired[list[dict[str, object]]]
    waiting: NotRequired[list[str]]
    error: NotRequired[str]
    message: NotRequired[str]


def answer_many(
    door: Door,
    principal: Principal | None,
    given: Sequence[BatchAnswer | Mapping[str, Any]],
    *,
    channel: str = "http",
    session: str | None = None,
) -> list[BatchOutcome]:
    """Each answer of ``given`` taken through ``door`` as ``principal`` (None: in-process, speaking for each thread's
    owner as ``Desk.confirm`` without a principal does), in order; an answer to a pause named earlier in the batch
    is refused on its own, as a second answer would be.  BadRequest, with nothing answered, for more than
    ``MAX_ANSWERS``."""
    if len(given) > MAX_ANSWERS:
        raise BadRequest(f"answers: at most {MAX_ANSWERS} in one request, not {len(given)}")
    read = [_read(index, item) for index, item in enumerate(given)]
    first: dict[str, int] = {}
    outcomes: list[BatchOutcome] = []
    for index, item in enumerate(read):
        if item.interrupt_id in first:
            repeat = BadRequest(
                f"answers[{index}]: the same pause as answers[{first[item.interrupt_id]}], answered once"
            )
            outcomes.append(_refused(item, repeat))
            continue
        first[item.interrupt_id] = index
        outcomes.append(_one(door, principal, item, channel, session))
    return outcomes


def _one(door: Door, principal: Principal | None, item: BatchAnswer, channel: str, session: str | None) -> BatchOutcome:
    try:
        admitted, answer = _admitted(door, principal, item, channel)
        reply = seen_by(door, door.answer(admitted, answer, item.interrupt_id, session=session), admitted)
    except StalwartError as refused:
        return {
            "interrupt_id": item.interrupt_id,
            "status": refused.status,
            "error": refused.code,
            "message": refused.message,
        }
    return {
        "interrupt_id": item.interrupt_id,
        "status": 200,
        "decision": reply.answered_as or item.decision,
        "steps": [step.to_dict() for step in reply.steps],
        "waiting": [pause.id for pause in reply.waiting],
    }


def _read(index: int, item: BatchAnswer | Mapping[str, Any]) -> BatchAnswer:
    """An answer as given from Python: a BatchAnswer, or a mapping of its fields (``interrupt_id``, ``token``,
    ``decision``, and ``value`` or ``edits`` where it has them)."""
    if isinstance(item, BatchAnswer):
        return item
    unknown = sorted(set(item) - _FIELDS)
    missing = sorted({"interrupt_id", "decision"} - set(item))
    if unknown or missing:
        wrong = f"takes no {unknown[0]!r}" if unknown else f"needs {missing[0]!r}"
        raise BadRequest(f"answers[{index}]: an answer {wrong}; it has interrupt_id, token, decision, value, edits")
    return BatchAnswer(**{"token": None, **item})


_FIELDS = frozenset({"interrupt_id", "token", "decision", "value", "edits"})


def _refused(item: BatchAnswer, refused: StalwartError) -> BatchOutcome:
    return {
        "interrupt_id": item.interrupt_id,
        "status": refused.status,
        "error": refused.code,
        "message": refused.message,
    }


def _admitted(door: Door, principal: Principal | None, item: BatchAnswer, channel: str) -> tuple[Admission, Answer]:
    """Who answers, let into the pause's thread as a lone answer would be, and their answer."""
    stored = door.storage.get_pause(item.interrupt_id)
    if stored is None:
        raise NotFound(UNKNOWN)
    if principal is None:
        admitted = Admission(stored.thread, ANONYMOUS, owner_of(door.storage, stored.thread))
        edits = dict(item.edits) if item.edits else None
        return admitted, Answer(item.decision, item.value, item.token, channel, edits=edits)
    try:
        admitted = door.admit(stored.thread, principal, pause=item.interrupt_id)
    except NotFound:
        raise NotFound(UNKNOWN) from None
    answer = Answer.of(item.decision, item.value, item.token, channel, admitted, edits=item.edits)
    return admitted, answer
