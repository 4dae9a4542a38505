"""The Desk: the Python face of a file of agents over one run store.

A Desk holds nothing about a conversation between calls; two Desks on the same
storage, in one process or two, see and answer the same pauses.
"""

from __future__ import annotations

import dataclasses
import os
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack, cast

from . import logs, telemetry
from .agent import Agent
from .approvals import audit
from .approvals.admission import STORED_THREAD_MAX, THREAD_MAX, Admission, enter, resolve
from .approvals.admission import admit as admit_to
from .approvals.announce import Notify, announce
from .approvals.batch import BatchAnswer, BatchOutcome, answer_many
from .approvals.card import Input, Verdict
from .approvals.inbox import Inbox, read_inbox
from .approvals.principal import ANONYMOUS, Principal
from .approvals.rules import Approvers, approved_by, same_key, unapprovable
from .approvals.rules import misnamed as misnamed_approver
from .aws.metrics import Meter, NoMeter
from .config import Config, load_config
from .door import Described
from .engine.answer import Answer
from .engine.engine import Engine, Recovery
from .engine.ledger import journal_outcomes
from .engine.move import Runtime
from .engine.pause import AfterAnswer, Pause, seconds_since
from .engine.reply import CallOutcome, NotNotified, Reply
from .errors import BadRequest, ConfigError, NotFound, PauseExpired
from .reading.check import misnamed
from .storage import PauseRecord, Storage, open_storage, sqlite_path
from .tools.load import MissingModule
from .tools.python import Tool
from .vocabulary import CONTROL_CHARACTERS, JSON


class DeskOptions(TypedDict, total=False):
    """What ``Desk.from_file`` passes on to ``Desk``: see there."""

    clock: Callable[[], float]
    sleep: Callable[[float], None]
    on_interrupt: Notify | None
    meter: Meter | None


class Desk:
    """``desk.send(user, text)`` starts a turn; ``desk.confirm(user, decision)`` answers what waits."""

    def __init__(
        self,
        config: Config,
        storage: Storage | str | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        on_interrupt: Notify | None = None,
        meter: Meter | None = None,
    ) -> None:
        """``on_interrupt(thread, pause)`` is told of each new pause (a ``Webhook`` is one); what it
        fails to take is listed in the reply's ``not_notified`` and never fails the turn, which ran.
        ``clock`` and ``sleep`` are injectable so tests control leases and undo backoff without waiting.
        ``meter`` is told of each pause opened and each answer taken, and how long it waited.
        """
        self.config = config
        self.default_agent = config.agents[0].name
        """The agent a turn goes to where it names none: the file's first, unless an application serves another."""
        self.on_interrupt = on_interrupt
        self.settle: Callable[[PauseRecord], None] | None = getattr(on_interrupt, "settled", None)
        """Told of each pause once an answer or the clock moved it, where channels posted it (``Channels.settled``),
        so a Slack message says who decided; set with the channels, wherever they announce from."""
        self.meter: Meter = meter or NoMeter()
        telemetry.start(os.environ)
        self.clock = clock
        self.agents = _built_agents(config)
        _refuse_misnamed_rules(config, self.agents)
        _refuse_misnamed_approvers(config, self.agents)
        self.storage = _storage(storage, config)
        worker = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._engine = Engine(Runtime(self.storage, clock, sleep, self.agents), worker=worker)
        self._shared_approvers = _shared_approvers(self.agents)
        self._agent_of_run = RunAgents(self._run_agent, AGENTS_KEPT)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        storage: Storage | str | None = None,
        **options: Unpack[DeskOptions],
    ) -> Desk:
        return cls(load_config(path), storage, **options)

    def describe(self) -> Described:
        """The agent turns go to, its description ("" where it has none) and a few turns made from its tools'
        patterns."""
        name = self.default_agent
        return {
            "agent": name,
            "description": self.config.agent(name).description or "",
            "examples": self.agent(name).selector.examples(EXAMPLES),
        }

    def send(
        self,
        user: str,
        text: str,
        context: dict[str, JSON] | None = None,
        *,
        agent: str | None = None,
        session: str | None = None,
        owner: str | None = None,
        asker: str | None = None,
    ) -> Reply:
        """A person's turn in the thread ``user``; raises RunWaiting while something there waits.

        ``session`` (a digest) records that the reply was shown to it, in the run's own commit.  ``owner`` (a
        principal's key) is whose turn it is: the thread ``user`` names for them (``approvals/admission.py``), their
        own, begun in the turn's own commit where they have none, as ``enter(..., start=True)`` does but with no write
        of its own; for the anonymous principal another's thread answers NotFound, with nothing of the turn stored.
        """
        if not isinstance(text, str):
            raise BadRequest("a turn is text")
        thread, owned = _thread(user), False
        if owner is not None:
            found = resolve(self.storage, thread, owner, start=True)
            thread, owned = found.thread, found.owner is not None and same_key(found.owner, owner)
        chosen = self.agent(agent)
        started = self._engine.start(thread, text, chosen, context, session, owner, asker, owned=owned)
        self._agent_of_run.note(started.run, chosen.name)
        return self._notified(started)

    def confirm(
        self,
        user: str,
        decision: str,
        waiting: str | Pause | None = None,
        value: JSON = None,
        *,
        token: str | None = None,
        channel: str = "python",
        by: str | None = None,
        principal: Principal | None = None,
        session: str | None = None,
        edits: Mapping[str, JSON] | None = None,
    ) -> Reply:
        """Answer the pause ``waiting`` (an id or a Pause), or the first that waits.

        ``token``, where given, must be the one the person was shown; an in-process
        caller may leave it out.  ``principal`` is who a service verified: the pause's approver
        rules judge them (or, where no rule governs it, only the thread's owner may answer), and
        one they do not allow is NotAnApprover; the thread's owner may always decline a confirm
        (``skip``, ``cancel_all``).  Without a principal, the caller speaks for the owner where no
        rule governs the pause, in declining, and as one of four eyes (the owner approving and then
        the application without a principal are one person), and is the anonymous principal to a
        rule (the owner of a thread begun from Python).  ``by`` is the caller's own word for who
        answered, and the audit keeps it marked unverified.  ``edits``, with ``approve``, changes the
        arguments the tool declares editable before the call runs (``engine/edit.py``).
        """
        pause_id = waiting.id if isinstance(waiting, Pause) else waiting
        shown = principal.to_dict() if principal is not None else None
        who_said = principal.subject if principal else by
        answer = Answer(decision, value, token, channel, who_said, shown, principal, edits=edits or None)
        thread, pause_id = _thread(user), _pause_id(pause_id)
        if principal is not None:
            thread = resolve(self.storage, thread, principal.key, pause=pause_id).thread
        return self._answered(thread, answer, pause_id, session)

    def answer_many(
        self,
        answers: Sequence[BatchAnswer | Mapping[str, Any]],
        *,
        principal: Principal | None = None,
        channel: str = "python",
        session: str | None = None,
    ) -> list[BatchOutcome]:
        """Several answers at once, each claimed on its own, so each succeeds or fails alone; what came of each, in
        order (``approvals/batch.py``).  ``principal`` is who a service verified, judged for each pause as ``confirm``
        judges one; without it each answer speaks for its thread's owner."""
        return answer_many(self, principal, answers, channel=channel, session=session)

    def rollback(self, user: str, *, session: str | None = None) -> Reply:
        """Undo the thread's run from outside it, newest write first; ``reply.rollback`` reports each."""
        return self._notified(self._engine.rollback(_thread(user), session))

    def events(self, user: str, after: int = 0, limit: int = 200) -> list[tuple[int, dict[str, JSON]]]:
        """The thread's log after the event ``after``: turns, steps, pauses, answers, runs' ends."""
        return self.storage.events(_thread(user), after, limit)

    def results(self, user: str, run: str) -> dict[str, CallOutcome]:
        """The calls of ``run`` as its journal keeps them, each result whole as it ran, by key; none where the run is
        not this thread's."""
        record = self.storage.get_run(run)
        if record is None or record.thread != _thread(user):
            return {}
        return {entry.key: outcome for entry in self.storage.journal(run) for outcome in journal_outcomes([entry])}

    def history(self, user: str) -> list[dict[str, object]]:
        """Every answer given in the thread, taken or refused: the pause, the decision, a digest of the token it
        carried, when, through which channel and by whom, and exactly what it then ran."""
        thread, events, after = _thread(user), [], 0
        while page := self.storage.events(thread, after, 1000):
            events += page
            after = page[-1][0]
        return audit.history(events)

    def enter(self, user: str, owner: str, *, start: bool = False) -> str:
        """Let ``owner`` (a principal's key) into the thread ``user`` names for them, its stored id, or raise NotFound.

        With ``start``, where they have none, it is begun as theirs. A thread begun from Python, or before threads
        had owners, belongs to the anonymous principal.  Another's thread and one that does not exist answer the
        same, so ids cannot be probed (``approvals/admission.py``).
        """
        return enter(self.storage, _thread(user), owner, start=start)

    def admit(self, user: str, principal: Principal, *, pause: str | None = None) -> Admission:
        """Let ``principal`` into the thread ``user`` names for them to read what waits there and answer it, or
        raise NotFound; the admission carries the stored thread and its owner (a principal's key, as ``owner_of``
        reads it), read once.

        The owner comes into their own as ``enter`` lets them; anyone else into the stored thread ``user`` only
        while some open pause of its run is theirs to answer by the approver rules, or to answer ``pause`` (an id),
        a pause of this thread they may answer even once it is closed: an approver a moment too late is told the
        pause was answered (409 from the engine), not that the thread does not exist.  Everyone else meets the
        NotFound of a thread that does not exist.  Which pauses they may then answer is ``may_answer``'s.
        """

        def may_come_in(thread: str, owner: str) -> bool:
            return any(self.may_answer(p, principal, owner) for p in self._engine.waiting(thread)) or (
                pause is not None and self._may_answer_any(thread, pause, principal, owner)
            )

        return admit_to(self.storage, _thread(user), principal, may_come_in, pause=pause)

    def _may_answer_any(self, thread: str, pause: str, principal: Principal, owner: str) -> bool:
        """Whether ``pause`` is of ``thread`` and ``principal`` may answer it, open or not."""
        stored = self.storage.get_pause(pause)
        if stored is None:
            return False
        found = Pause.from_record(stored)
        return found.thread == thread and self.may_answer(found, principal, owner)

    def may_answer(self, pause: Pause, principal: Principal, owner: str | None, *, agent: str | None = None) -> bool:
        """Whether ``principal`` may answer ``pause`` of a thread that ``owner`` (a principal's key) owns.

        The one decision both the inbox and an answer take.  A thread with a pause and no owner was
        begun from Python (or before threads had owners): it is the anonymous principal's, as ``enter``
        has it.  ``agent`` is the pause's run's agent, where the caller has it; otherwise it is read
        from the run when the agents' rules differ.
        """
        approvers = self._approvers(pause.run, agent)
        return approvers is not None and approvers.may_answer(pause, principal, owner or ANONYMOUS.key)

    def verdict(self, pause: Pause, reader: Admission | None) -> Verdict:
        """The answers ``reader`` may give ``pause`` by its agent's rules (each one judged as the engine will judge
        it: an owner may always decline, nobody approves twice), who the rules give it to, and the team's words."""
        agent = self.agents.get(self._agent_of_run(pause.run))
        if agent is None:
            return Verdict(())
        tool = agent.tools.get(pause.tool)
        units, tools = (tool.units if tool else {}), {name: t.label for name, t in agent.tools.items()}
        inputs = _inputs(pause, tool) if tool is not None else {}
        approvers = agent.approvers
        deciders = tuple(rule.deciders for rule in approvers.governing(pause)) if approvers.rules else ()
        if reader is None:
            return Verdict(tuple(pause.answers), deciders, (), units, tools, inputs=inputs)
        who, owner = reader.principal, reader.owner or ANONYMOUS.key
        answers, failed = approvers.open_to(pause, who, owner)
        counted = pause.approvals is not None and approved_by(pause.approvals["given"], who, owner)
        if counted:
            answers = tuple(d for d in answers if d != "approve")
        return Verdict(answers, deciders, failed, units, tools, counted, inputs)

    def _approvers(self, run: str, agent: str | None) -> Approvers | None:
        """The rules of the agent whose run ``run`` is: none read where every agent has the same, else one read of
        the run at most, kept, since a run's agent never changes.  None for a run of an agent this file no longer
        has, whose pauses nobody here can answer."""
        if agent is None and self._shared_approvers is not None:
            return self._shared_approvers
        named = agent or self._agent_of_run(run)
        return self.agents[named].approvers if named in self.agents else None

    def _run_agent(self, run: str) -> str:
        stored = self.storage.get_run(run)
        if stored is None:
            raise NotFound("no such run")
        return stored.agent

    def waiting(self, user: str, principal: Principal | None = None) -> list[Pause]:
        """Everything that waits for a person in the thread, each by its own id.

        With ``principal``: all of it for the thread's owner, whose conversation it is even where
        an approver rule gives the answer to someone else; only what they may answer for anyone else.
        """
        if principal is None:
            return self._engine.waiting(_thread(user))
        found = resolve(self.storage, _thread(user), principal.key)
        return self.waiting_for(Admission(found.thread, principal, found.owner))

    def waiting_for(self, admitted: Admission) -> list[Pause]:
        """What waits, as the admitted person is shown it: all of it for the owner (or a link, which stands for
        them), whose conversation it is even where a rule gives the answer to someone else; only what they may
        answer for anyone else."""
        waiting = self._engine.waiting(admitted.thread)
        if admitted.speaks_for_owner or not waiting:
            return waiting
        return [pause for pause in waiting if self.may_answer(pause, admitted.principal, admitted.owner)]

    def answer(self, admitted: Admission, answer: Answer, pause: str, *, session: str | None = None) -> Reply:
        """Answer ``pause`` for a person a service admitted: the engine judges their rules against the admission's
        owner, never reading it again."""
        return self._answered(admitted.thread, answer, pause, session)

    def _answered(self, thread: str, answer: Answer, pause: str | None, session: str | None) -> Reply:
        """The engine's answer, announced.  An answer that finds the pause past its deadline ends it as the clock
        would (PauseExpired), and what the run then opened is announced all the same."""
        try:
            return self._notified(self._engine.answer(thread, answer, pause, session), after=answer)
        except PauseExpired as expired:
            if isinstance(expired.reply, Reply):
                self._notified(expired.reply, after=Answer.expiry())
            raise
        finally:
            self._settled(pause)

    def _settled(self, pause: str | None) -> None:
        """Tell the channels that posted ``pause`` how it stands now (decided, expired, or one approval more)."""
        stored = self.storage.get_pause(pause) if self.settle is not None and pause is not None else None
        if self.settle is not None and stored is not None:
            self.settle(stored)

    def expire(self, pause: Pause) -> Reply:
        """End ``pause`` at its deadline as the clock (``approvals.overdue`` calls this): InterruptStale where a
        person answered first or it is not due; what the run then opened is announced."""
        try:
            return self._notified(self._engine.expire(pause.thread, pause.id), after=Answer.expiry())
        finally:
            self._settled(pause.id)

    def inbox(
        self,
        principal: Principal,
        *,
        kind: str | None = None,
        tool: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Inbox:
        """Every open pause ``principal`` may answer, across threads, newest first: a page of at most ``limit``,
        and the cursor that reads on from it (``inbox.py``)."""
        return read_inbox(
            self.storage,
            lambda pause, who, owner, agent: self.may_answer(pause, who, owner, agent=agent),
            principal,
            kind=kind,
            tool=tool,
            cursor=cursor,
            limit=limit,
        )

    def recover(self, user: str) -> Recovery:
        """Carry on the thread's run if its worker died (its lease ran out), as the thread's next request would.

        What the sweep calls for each stale run.  The pauses this carrying on opened are
        announced to ``on_interrupt`` as any new pause is; where another worker carried the
        run on first, it announced them.
        """
        recovery = self._engine.recover(_thread(user))
        self._announced(recovery.opened)
        return recovery

    def _notified(self, reply: Reply, after: Answer | None = None) -> Reply:
        """Tell ``on_interrupt`` of each pause the reply opened, and, after an answer, who gave it; log what an
        operator watches (``logs.outcome``), whichever door the turn or answer came through."""
        answered: AfterAnswer | None = None
        if after is not None:
            answered = {
                "decision": reply.answered_as or after.decision,
                "by": after.by,
                "principal": after.principal,
                "channel": after.channel,
            }
        if reply.answered is not None:
            self.meter.answer_taken(reply.answered.kind, seconds_since(reply.answered.created_at, self.clock()))
        missed = self._announced(reply.opened, answered)
        notified = dataclasses.replace(reply, not_notified=missed) if missed else reply
        logs.outcome(notified)
        return notified

    def _announced(self, pauses: list[Pause], answered: AfterAnswer | None = None) -> list[NotNotified]:
        """Tell ``on_interrupt`` (and the meter) of each pause; those it did not take."""
        for pause in pauses:
            self.meter.pause_opened(pause.kind)
            telemetry.current().pause_opened(pause)
        if self.on_interrupt is None:
            return []
        notify = self.on_interrupt
        missed = [
            announce(self.storage, notify, pause, dataclasses.replace(pause, after_answer=answered)) for pause in pauses
        ]
        return [m for m in missed if m is not None]

    def close(self) -> None:
        """Close the store and the agents' connections to their MCP servers."""
        for agent in self.agents.values():
            agent.close()
        self.storage.close()

    def __enter__(self) -> Desk:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def agent(self, name: str | None = None) -> Agent:
        """An agent of the file by name; the first where no name is given."""
        if name is None:
            return self.agents[self.default_agent]
        if name not in self.agents:
            raise ConfigError(f"no agent named {name!r}; this file has {', '.join(self.agents)}")
        return self.agents[name]


def _inputs(pause: Pause, tool: Tool) -> dict[str, Input]:
    """How a person types in each argument of ``pause`` its tool lets them change before approving."""
    asked = {a["name"]: a["value"] for a in pause.arguments}
    typed = {name: tool.input_of(name, asked.get(name)) for name in pause.editable or () if name in tool.editable}
    return {name: cast(Input, kind) for name, kind in typed.items() if kind is not None}


def _refuse_misnamed_rules(config: Config, agents: dict[str, Agent]) -> None:
    """A check rule naming a tool or an argument the agent does not have, refused at load with its file and line."""
    for i, agent in enumerate(config.agents):
        for j, rule in enumerate(agent.check.rules):
            problem = misnamed(rule.tool, {"when": rule.when}, agents[agent.name].tools)
            if problem is not None:
                key, sentence = problem
                raise config.refused(sentence, "agents", i, "check", "rules", j, key)


def _refuse_misnamed_approvers(config: Config, agents: dict[str, Agent]) -> None:
    """An approver rule that could never match, or four eyes on a tool the agent lacks, refused at load."""
    for i, agent in enumerate(config.agents):
        tools = agents[agent.name].tools
        for j, rule in enumerate(agent.approvers):
            problem = misnamed_approver(rule, tools)
            if problem is not None:
                key, sentence = problem
                raise config.refused(sentence, "agents", i, "approvers", j, key)
        for tool, needed in agent.approvals.items():
            if tool not in tools:
                sentence = f"names {tool}, but the agent has no tool of that name; its tools: {', '.join(tools)}"
                raise config.refused(sentence, "agents", i, "approvals", tool)
            if needed > 1 and unapprovable(tool, agent.approvers):
                sentence = (
                    f"needs {needed} people to approve {tool}, but no approvers: rule without a when covers its "
                    "confirm pauses, so those no rule governs are the thread's owner's alone, who is one person: "
                    "add a rule without a when saying who else may approve them"
                )
                raise config.refused(sentence, "agents", i, "approvals", tool)


def _built_agents(config: Config) -> dict[str, Agent]:
    """Each agent of the file with its tools; a tools module that is not there is a mistake at its ``tools:`` line."""
    agents: dict[str, Agent] = {}
    for i, agent in enumerate(config.agents):
        try:
            agents[agent.name] = Agent.build(agent, config.settings, config.base_dir, os.environ)
        except MissingModule as exc:
            raise config.refused(str(exc), "agents", i, "tools") from None
    return agents


def _shared_approvers(agents: dict[str, Agent]) -> Approvers | None:
    """The approver rules every agent has alike, or None where two agents' differ."""
    first, *others = [agent.approvers for agent in agents.values()]
    alike = all((other.rules, other.approvals) == (first.rules, first.approvals) for other in others)
    return first if alike else None


def _storage(storage: Storage | str | None, config: Config) -> Storage:
    retention = config.settings.retention_days * 86400
    if storage is None:
        if config.storage is None:  # the default store's folder is ours to make, readable by its owner alone
            sqlite_path(config.store_url, None).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return open_storage(config.store_url, base_dir=config.base_dir, retention=retention)
    if isinstance(storage, str):
        return open_storage(storage, base_dir=Path.cwd(), retention=retention)
    return storage


EXAMPLES = 4
"""Example turns ``describe`` offers at most: one per tool, as many as a person takes in at a glance."""
AGENTS_KEPT = 10_000
"""How many runs' agents a Desk remembers for ``may_answer``, the least recently used forgotten first."""


class RunAgents:
    """The agent of each of the runs used last: a run's agent never changes, so it is read from the store once, and
    not at all for a run this Desk began (``note``), whose reply's cards would otherwise read it back at once."""

    def __init__(self, read: Callable[[str], str], size: int) -> None:
        self._read, self._size = read, size
        self._kept: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, run: str) -> str:
        with self._lock:
            agent = self._kept.get(run)
            if agent is not None:
                self._kept.move_to_end(run)
                return agent
        agent = self._read(run)
        self.note(run, agent)
        return agent

    def note(self, run: str, agent: str) -> None:
        with self._lock:
            self._kept[run] = agent
            self._kept.move_to_end(run)
            if len(self._kept) > self._size:
                self._kept.popitem(last=False)


_CONTROL = re.compile(rf"[{CONTROL_CHARACTERS}\ud800-\udfff]")


def _thread(user: str) -> str:
    if not isinstance(user, str) or not user or len(user) > STORED_THREAD_MAX or _CONTROL.search(user):
        raise BadRequest(
            f"a thread id is a non-empty string of at most {STORED_THREAD_MAX} characters (a new thread's, "
            f"{THREAD_MAX}), without control characters"
        )
    return user


def _pause_id(pause: str | None) -> str | None:
    """A pause id as the service takes one: no store is asked for an id none of them could hold."""
    if pause is not None and (
        not isinstance(pause, str) or not pause or len(pause) > THREAD_MAX or _CONTROL.search(pause)
    ):
        raise BadRequest("a pause id is a non-empty string of at most 200 characters, without control characters")
    return pause
