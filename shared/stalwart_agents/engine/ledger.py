"""The ledger of one move of a run: its journal and its pauses, and the only writer of either.

The executor decides what to do; the ledger keeps what was done.  Its writes
are staged on the lease with the events that report them, and committed where
they must be durable: a call's ``started`` entry, before a write runs, so a
worker that dies mid-call leaves it to be found.  It is also the one place a
pause is made from what it asks, so its id is the same on every worker.

It keeps nothing over the run's size limit (``sizes.py``): a call whose
arguments are over it is refused before it is journaled or shown, and the first
value refused at a call of the run is noted (``too_large``), with an event
that says so, for the move to end the run on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TypedDict, Unpack, cast

from .. import telemetry
from ..storage import Changes, Event, JournalEntry, PauseRecord, RunRecord
from ..storage.base import encoded_as
from ..tools.python import Tool
from ..tools.steps import StepFunction
from ..vocabulary import JSON, CallStatus, JournalStatus, PauseKind
from .answer import Decision
from .arguments import SOURCE_BYTES, Argument, ArgumentDict, Source, keywords, shown
from .deadline import Deadline
from .exact import unshowable
from .lease import Lease
from .pause import ANSWERS, Pause, PausePoint, UndoFailure, UndoLine, canonical, default_question, iso, new_token
from .reply import CallOutcome
from .sizes import Oversize, bounded, call_named, measure

DELEGATED = "Pass this turn to the assistant"
"""The title of a delegate pause, which is about the turn and no tool."""


class KindDetails(TypedDict, total=False):
    """What a pause of one kind says besides the call: see ``Pause``."""

    prompt: str
    turn: str
    undo: UndoFailure
    pending: list[UndoLine]
    proposed: list[ArgumentDict]
    edited_by: str | None


class Ledger:
    """One move's journal and pauses: what was done before it, and everything it does.

    ``journal_of`` is the run whose journal the move reads and writes: its own, or
    the one an operator rolls back.  ``answering`` is the pause whose answer
    started the move; each call the move makes names it in the log.  ``limit``
    is the agent's ``settings.max_value_bytes``; ``needed`` says how many people
    must approve a pause of a kind about a tool (``approvals:``); ``timing`` gives
    a new pause its deadline, from the moment it opens (``deadlines:``); ``parties`` who besides its thread's owner
    may answer it, for the inbox to list it under (``approvals.parties``; without it, anyone).
    ``pause_key`` is the store's key its pauses' ids are made with (``PausePoint.pause_id``).
    """

    def __init__(
        self,
        lease: Lease,
        clock: Callable[[], float],
        pauses: Iterable[PauseRecord],
        journal: Iterable[JournalEntry],
        *,
        journal_of: str,
        answering: str | None,
        limit: int,
        pause_key: bytes,
        needed: Callable[[str, PauseKind], int] = lambda tool, kind: 1,
        timing: Callable[[Pause, float], Deadline | None] = lambda pause, opened: None,
        parties: Callable[[Pause], tuple[str, ...]] | None = None,
    ) -> None:
        self._lease = lease
        self._clock = clock
        held = lease.run
        self._thread, self._run = held.thread, held.id
        self.journal_of = journal_of
        self._answering = answering
        self.limit = limit
        self._needed = needed
        self._pause_key = pause_key
        self._timing = timing
        self._parties = parties
        self._too_large: CallOutcome | None = None
        self._too_large_at = ""
        self._entries = {entry.key: entry for entry in journal}
        self._pauses = {pause.id: pause for pause in pauses}
        self._waiting: list[Pause] = []
        self._opened: list[Pause] = []

    def entry(self, key: str) -> JournalEntry | None:
        return self._entries.get(key)

    def entries(self) -> list[JournalEntry]:
        """The journal in the order its calls started."""
        return list(self._entries.values())

    @property
    def waiting(self) -> list[Pause]:
        """What the move waits on, each pause once for each time it was reached."""
        return list(self._waiting)

    @property
    def opened(self) -> list[Pause]:
        """The pauses the move opened: what ``on_interrupt`` is told of."""
        return list(self._opened)

    @property
    def too_large(self) -> CallOutcome | None:
        """The call of the run a value over the limit stopped, as the reply reports it; None while none did."""
        return self._too_large

    def refused_arguments(self, key: str, tool: str, arguments: Sequence[Argument]) -> str | None:
        """Why the call at ``key`` is refused, its arguments being over the limit (noted, ``failed``); else None."""
        return self.measured_arguments(key, tool, arguments)[0]

    def measured_arguments(self, key: str, tool: str, arguments: Sequence[Argument]) -> tuple[str | None, str | None]:
        """Why the call at ``key`` is refused, its arguments being over the limit (noted, ``failed``), else None;
        and, where they were measured, their encoding as the call's journal entry keeps them (``start``).

        They are measured as the entry lists them, in the order given: a call's are by name, as ``shown`` lists
        them.  An undo's are not measured: they are its call's arguments and result, each already
        within the limit.
        """
        if not is_call(key):
            return None, None
        measured = measure(f"the arguments of {call_named(tool, key)}", _listed(arguments), self.limit)
        if isinstance(measured, str):
            return None, measured
        said = f"{measured.sentence}; {tool} was not run"
        self.refuse(key, tool, arguments, measured, "failed", said)
        return said, None

    def unshown(self, key: str, about: Tool | StepFunction, arguments: Sequence[Argument]) -> str | None:
        """Why the call at ``key`` opens no pause: its arguments hold a number a person would be shown rounded (past
        ±(2^53-1)), wherever it came from (a tool's result, a step, the context), so what they approved would not be
        what runs (noted, ``failed``); else None."""
        number = unshowable([argument.value for argument in arguments])
        if number is None or not is_call(key):
            return None
        what = f"the arguments of {call_named(about.name, key)}"
        said = f"{what} hold the number {number}, which would be shown rounded; {about.name} was not run"
        self.refuse(key, about.name, arguments, Oversize(what, 0, self.limit, f"the number {number}"), "failed", said)
        return said

    def refuse(
        self,
        key: str,
        tool: str,
        arguments: Sequence[Argument],
        over: Oversize,
        status: CallStatus,
        said: str,
    ) -> None:
        """Note the first value a call of the run could not keep, as ``said``, and tell the thread's log of it.

        An undo's is not noted: a rollback goes on past it.
        """
        if self._too_large is not None or not is_call(key):
            return
        result = over.marker if status == "done" else None
        self._too_large = CallOutcome(call_position(key), tool, shown(arguments), status, result, said, call_of(key))
        self._too_large_at = key
        body = {"type": "too_large", "run": self._run, "key": key, "tool": tool, "limit": over.limit, "message": said}
        measured = {"flaw": over.flaw} if over.flaw is not None else {"bytes": over.size}
        self._lease.stage(events=(self._event({**body, **measured}),))

    def stopped_at(self, key: str) -> bool:
        """Whether the call at ``key`` is the one a value over the limit stopped in this move."""
        return self._too_large is not None and self._too_large_at == key

    def start(
        self, key: str, tool: str, arguments: Sequence[Argument], *, durable: bool, measured: str | None = None
    ) -> JournalEntry:
        """A call's ``started`` entry; a durable one (a write's) is committed before the call runs.  ``measured``:
        the arguments' encoding, where ``measured_arguments`` made it."""
        entry = JournalEntry(
            self.journal_of,
            key,
            tool,
            _listed(arguments),
            "started",
            idempotency_key=f"{self.journal_of}:{key}",
            started_at=self._clock(),
        )
        if measured is not None:
            encoded_as(entry, "arguments", measured)
        if durable:
            self._lease.stage(starts=(entry,))
            self._lease.commit()
            self._entries[key] = entry
        return entry

    def restart(self, entry: JournalEntry, *, durable: bool = True) -> JournalEntry:
        """The call of ``entry`` started again, as its next attempt (which fences a worker still on the last one)."""
        now = self._clock()
        again = entry.replace(status="started", attempt=entry.attempt + 1, started_at=now, error=None, result=None)
        self._lease.stage(updates=((again, entry.status, entry.attempt),))
        if durable:
            self._lease.commit()
        self._entries[entry.key] = again
        return again

    def finish(self, outcome: JournalEntry) -> JournalEntry:
        """Stage a call's outcome with its step event: over the entry it finishes, or as a new one (a read's)."""
        finished = outcome.replace(finished_at=self._clock())
        events = (self._step_event(finished),)
        stored = self._entries.get(finished.key)
        if stored is None:
            self._lease.stage(starts=(finished,), events=events)
        else:
            self._lease.stage(updates=((finished, stored.status, stored.attempt),), events=events)
        self._entries[finished.key] = finished
        return finished

    def wait_for(
        self,
        kind: PauseKind,
        point: PausePoint,
        about: Tool | StepFunction | None,
        arguments: Sequence[Argument],
        reasons: Sequence[str],
        *,
        question: str | None = None,
        **details: Unpack[KindDetails],
    ) -> Decision | None:
        """The decision on this pause; or None, having opened it if it is new and listed it as waiting.

        ``about`` is the tool or step the pause is about (None for the turn itself, as delegate is).
        ``question`` is said instead of the kind's own (``question_of``): only the turn's own pause needs it.
        A call whose arguments are over the limit opens no pause: it is refused, and None returned.  Those of a pause
        already open or answered were measured when it opened; a call answered is measured again before it runs.
        """
        listed = shown(arguments)
        pause_id = point.pause_id(self._pause_key, self._thread, self._run, _defined(about), listed, kind)
        stored = self._pauses.get(pause_id) or self._unkeyed(point, about, listed, kind)
        if stored is not None and stored.status == "answered":
            assert stored.answer is not None, "an answered pause keeps its answer"
            return Decision.of(stored.answer)
        if stored is not None:
            self._waiting.append(Pause.from_record(stored))
            return None
        if about is not None and (
            self.refused_arguments(point.key, about.name, arguments) or self.unshown(point.key, about, arguments)
        ):
            return None
        pause = self._pause(pause_id, kind, point, about, arguments, listed, reasons, question, details)
        self._waiting.append(self._open(pause))
        return None

    def _open(self, pause: Pause) -> Pause:
        now = self._clock()
        pause = replace(pause, deadline=self._timing(pause, now), traceparent=telemetry.current().traceparent())
        record, opened = opening(pause, now)
        parties = {} if self._parties is None else {pause.id: self._parties(pause)}
        self._lease.stage(pauses=(record,), events=(bounded(opened, self.limit),), parties=parties)
        self._pauses[pause.id] = record
        self._opened.append(pause)
        return pause

    def _pause(
        self,
        pause_id: str,
        kind: PauseKind,
        point: PausePoint,
        about: Tool | StepFunction | None,
        arguments: Sequence[Argument],
        listed: list[ArgumentDict],
        reasons: Sequence[str],
        question: str | None,
        details: KindDetails,
    ) -> Pause:
        """A new pause, built whole only where none is stored under ``pause_id`` (a replay finds its own)."""
        name = about.name if about is not None else ""
        title = title_of(about, keywords(arguments))
        needed = self._needed(name, kind)
        return Pause(
            id=pause_id,
            kind=kind,
            thread=self._thread,
            run=self._run,
            step=point.step,
            tool=name,
            question=question or question_of(kind, about, title, details.get("prompt", "")),
            arguments=listed,
            reasons=list(reasons),
            irreversible=isinstance(about, Tool) and about.irreversible,
            answers=list(ANSWERS[kind]),
            token=new_token(),
            created_at=iso(self._clock()),
            argument=point.argument,
            approvals={"needed": needed, "given": []} if needed > 1 else None,
            editable=list(about.editable) if kind == "confirm" and isinstance(about, Tool) and about.editable else None,
            title=title,
            label=about.label if isinstance(about, Tool) else name,
            labels=_labels(about, arguments),
            sources={a.name: source for a in arguments if (source := self._source(a.origin)) is not None},
            **details,
        )

    def _unkeyed(
        self, point: PausePoint, about: Tool | StepFunction | None, listed: list[ArgumentDict], kind: PauseKind
    ) -> PauseRecord | None:
        """The pause at this point as a run paused before ids were keyed stored it, so it still resumes."""
        if not self._pauses:
            return None
        return self._pauses.get(point.unkeyed_id(self._thread, self._run, _defined(about), listed, kind))

    def _source(self, origin: str) -> Source | None:
        """The journaled call an origin ``result:<key>`` names, with its result where it is small enough."""
        key = origin.removeprefix("result:")
        entry = self._entries.get(key) if key != origin else None
        if entry is None:
            return None
        source = Source(tool=entry.tool, step=call_position(key))
        if len(canonical(entry.result).encode()) <= SOURCE_BYTES:
            source["value"] = entry.result
        else:
            source["truncated"] = True
        return source

    def _step_event(self, entry: JournalEntry) -> Event:
        body = {
            "type": "step",
            "run": self._run,
            "key": entry.key,
            "tool": entry.tool,
            "status": entry.status,
            "arguments": entry.arguments,
        }
        if entry.status == "done":
            body["result"] = entry.result  # the conversation shows it, and so does a reload
        answered = {"answer": self._answering} if self._answering else {}
        return self._event({**body, **answered})

    def _event(self, body: dict[str, object]) -> Event:
        """A line of the thread's log, kept within the limit: an undo's arguments hold its call's result too."""
        return bounded(Event(self._thread, {**body, "at": iso(self._clock())}), self.limit)


def _listed(arguments: Sequence[Argument]) -> list[ArgumentDict]:
    """A call's arguments as its journal entry keeps them, in the order given."""
    return [a.to_dict() for a in arguments]


def title_of(about: Tool | StepFunction | None, values: Mapping[str, JSON]) -> str:
    """What a pause is about, as a person reads it: the described call, a step's name, or the turn."""
    if isinstance(about, Tool):
        return about.title(values)
    return about.name if about is not None else DELEGATED


def _labels(about: Tool | StepFunction | None, arguments: Sequence[Argument]) -> dict[str, str]:
    """A person's name for each argument that has one other than its own, as a pause keeps them."""
    named = {a.name: about.label_of(a.name) for a in arguments} if isinstance(about, Tool) else {}
    return {name: label for name, label in named.items() if label != name}


def question_of(kind: PauseKind, about: Tool | StepFunction | None, title: str, prompt: str) -> str:
    """The question a pause of ``kind`` puts to a person: a confirm's is the tool's own where it has one."""
    if kind == "ask":
        return prompt
    if kind == "outcome_unknown":
        return f"Did {title} happen?"
    if kind == "saga_stuck":
        return f"Undoing {title} failed. What should happen?"
    own = about.question if isinstance(about, Tool) else ""
    return own or default_question(title, about.name if about is not None else title)


def opening(pause: Pause, at: float) -> tuple[PauseRecord, Event]:
    """A new pause as the store keeps it, and the event that tells the thread's log of it: which pause, of what kind,
    about what, never its token; the pause itself is read from the store (``GET .../interrupts``), not the log."""
    about = {"id": pause.id, "kind": pause.kind, "tool": pause.tool, "title": pause.title}
    event = Event(pause.thread, {"type": "pause", "run": pause.run, "pause": about, "at": iso(at)})
    return pause.record().replace(created_at=at), event


def claiming(pause: str, answer: dict[str, object], run: RunRecord, at: float, events: Sequence[Event] = ()) -> Changes:
    """The commit that takes an open pause for ``answer`` and saves its run over the version it was read at."""
    return Changes(claim=(pause, answer), run=run.replace(updated_at=at), version=run.version, events=list(events))


def is_call(key: str) -> bool:
    """Whether a journal key is a call of the run (``2``, ``2.1``), not an undo or the model's answer."""
    return all(part.isdigit() for part in key.split("."))


def call_position(key: str) -> int:
    """The place in the turn of the call at ``key``, or of the call an undo at ``key`` undoes."""
    return int(key.split(".")[0])


def call_of(key: str) -> int | None:
    """The call's number within its step, for a key ``<step>.<call>``; None for a plain call."""
    _, dot, call = key.partition(".")
    return int(call) if dot and call.isdigit() else None


def journal_outcomes(journal: Iterable[JournalEntry]) -> list[CallOutcome]:
    """The run's calls as its journal has them, for a reply that does not replay the plan."""
    return [
        CallOutcome(
            call_position(e.key),
            e.tool,
            e.arguments,
            cast(JournalStatus, e.status),
            e.result,
            e.error,
            call_of(e.key),
        )
        for e in journal
        if is_call(e.key)
    ]


def _defined(about: Tool | StepFunction | None) -> str:
    """What a pause's id names of what it is about.  A tool defined elsewhere (an MCP server's) names its definition
    too: once the definition changes, a replay reaches another pause, which asks again, and never runs on an answer
    given to the old."""
    name = about.name if about is not None else ""
    return f"{name}@{about.definition}" if isinstance(about, Tool) and about.definition else name
