"""The calls a team's step makes, each at a key ``<step>.<call>``, checked against the journal before it runs.

A step is re-executed from its start on every move of its run; a call already
made returns its journaled result, and a call that differs from what the
journal holds at its key stops the step (``NondeterministicStep``) before
anything unapproved runs.  Argument origins are inferred by value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..agent import Agent
from ..tools.python import Tool
from ..tools.steps import Later, NondeterministicStep
from ..vocabulary import JSON
from .arguments import Argument, keywords
from .ledger import Ledger
from .progress import Attempted

Attempt = Callable[[int, str, Tool, Sequence[Argument], Agent], Attempted]
"""The executor's way of taking one call: at a step's place and key, for an agent, through its check."""


class Stopped(BaseException):
    """Unwinds a step whose call waits for a person, was refused, or ended the run.

    A BaseException, so a step's own ``except Exception`` cannot swallow it.
    """


class StepCalls:
    """What a step's ``Run`` makes its calls through (``steps.Calls``), for the step at ``position`` of the turn."""

    def __init__(
        self,
        attempt: Attempt,
        agent: Agent,
        agents: Mapping[str, Agent],
        ledger: Ledger,
        position: int,
        arguments: Sequence[Argument],
    ) -> None:
        self._take = attempt
        self._agent, self._agents, self._ledger = agent, agents, ledger
        self._position = position
        self._given = {argument.name: argument for argument in arguments}

    def step_call(self, index: int, tool: str, arguments: dict[str, JSON]) -> Any:
        [result] = self.step_calls(index, [Later(tool, arguments)])
        return result

    def step_calls(self, first: int, calls: list[Later]) -> list[Any]:
        outcomes = [self._attempt(first + offset, later) for offset, later in enumerate(calls)]
        if any(not outcome.going for outcome in outcomes):
            raise Stopped
        return [outcome.result for outcome in outcomes]

    def _attempt(self, index: int, later: Later) -> Attempted:
        key = f"{self._position}.{index}"
        agent, tool = self._resolve(later.tool)
        arguments = [self._argument(name, value, agent) for name, value in later.arguments.items()]
        self._same_as_journal(key, tool.name, arguments)
        outcome = self._take(self._position, key, tool, arguments, agent)
        if outcome.kind in ("refused", "cancelled", "failed"):
            raise Stopped
        return outcome

    def _resolve(self, name: str) -> tuple[Agent, Tool]:
        """``tool`` of the step's own agent, or ``agent:tool`` of another agent of the file."""
        agent_name, colon, tool_name = name.rpartition(":")
        agent = self._agents.get(agent_name) if colon else self._agent
        if agent is None or tool_name not in agent.tools:
            owner = agent_name or self._agent.name
            raise NondeterministicStep(f"a step called {name!r}, which is not a tool of {owner}")
        return agent, agent.tools[tool_name]

    def _argument(self, name: str, value: JSON, agent: Agent) -> Argument:
        """Where a value came from: another agent, the step's own arguments, an earlier call's result, or computed."""
        if agent is not self._agent:
            return Argument(name, value, "agent")
        given = next((a for a in self._given.values() if a.value == value and type(a.value) is type(value)), None)
        if given is not None:
            return Argument(name, value, given.origin)
        mine = f"{self._position}."
        found = (e.key for e in self._ledger.entries() if e.key.startswith(mine) and _holds(e.result, value))
        source = next(found, None)
        return Argument(name, value, f"result:{source}" if source else "computed")

    def _same_as_journal(self, key: str, tool: str, arguments: Sequence[Argument]) -> None:
        entry = self._ledger.entry(key)
        if entry is None:
            return
        values = keywords(arguments)
        made = {a["name"]: a["value"] for a in entry.arguments}
        # A value a person changed before approving ran as changed: the step still asks for the value it proposed.
        changed = {a["name"] for a in entry.arguments if a["origin"].split(":", 1)[0] == "edited"}
        proposed = {name: value for name, value in values.items() if name not in changed}
        if entry.tool != tool or any(made.get(name) != value for name, value in proposed.items()):
            raise NondeterministicStep(
                f"step call {key} is {tool}({_shown(values)}) on replay, but the run's journal has "
                f"{entry.tool}({_shown(made)}) there: a step must make the same calls in the same order "
                "every time it runs"
            )


def _holds(result: object, value: object) -> bool:
    """Whether ``value`` is somewhere in ``result``, as an equal value of the same type."""
    if isinstance(result, dict):
        return any(_holds(v, value) for v in result.values())
    if isinstance(result, list):
        return any(_holds(v, value) for v in result)
    return result == value and type(result) is type(value)


def _shown(values: Mapping[str, object]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items())
