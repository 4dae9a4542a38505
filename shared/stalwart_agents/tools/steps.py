"""Steps a team writes itself: Python functions that make calls through the run, some side by side.

A step is re-executed from its start every time its run moves, so it must be
deterministic: given the same arguments and the same results from its calls, it
makes the same calls, with the same arguments, in the same order.  Calls already
made return their journaled results and never run twice; a call that needs a
person stops the step until it is answered.  Read the clock, random numbers,
files or the network through a tool, never directly, or the step is not
deterministic.  A step whose calls differ from the journal on replay is stopped
with ``NondeterministicStep`` before anything unapproved runs.

    @step(says=["settle order {order_id}"])
    def settle(run: Run, order_id: str) -> dict:
        order = run.call("look_up_order", order_id=order_id)
        charged, mailed = run.together(
            run.later("charge_card", order_id=order_id, amount=order["total"]),
            run.later("send_receipt", order_id=order_id),
        )
        return {"charge": charged, "receipt": mailed}
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, overload

from ..errors import StalwartError
from ..vocabulary import JSON
from .python import Parameter


class NondeterministicStep(StalwartError):
    """A step made other calls on replay than its journal holds; nothing was run for it."""

    code = "nondeterministic_step"


@dataclass(frozen=True)
class StepFunction:
    """A team's step: selected by ``says`` like a tool, run with a ``Run`` as its first argument."""

    fn: Callable[..., Any]
    name: str
    says: tuple[str, ...] = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """The step's arguments, after the run it is given first."""
        signature = list(inspect.signature(self.fn).parameters.values())[1:]
        return tuple(Parameter(p.name, p.default is inspect.Parameter.empty, p.annotation) for p in signature)

    @property
    def question(self) -> str:
        return f"Run {self.name}?"


@overload
def step(fn: Callable[..., Any], /) -> StepFunction: ...


@overload
def step(
    *, says: Sequence[str] | str = (), name: str | None = None
) -> Callable[[Callable[..., Any]], StepFunction]: ...


def step(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    says: Sequence[str] | str = (),
    name: str | None = None,
) -> StepFunction | Callable[[Callable[..., Any]], StepFunction]:
    """Declare a step: ``@step(says=["settle order {order_id}"])`` over ``def settle(run, order_id)``."""

    def declare(function: Callable[..., Any]) -> StepFunction:
        if not inspect.signature(function).parameters:
            raise TypeError(f"step {function.__name__}() must take the run as its first argument")
        patterns = (says,) if isinstance(says, str) else tuple(says)
        return StepFunction(fn=function, name=name or function.__name__, says=patterns)

    return declare(fn) if fn is not None else declare


@dataclass(frozen=True)
class Later:
    """A call prepared with ``run.later``, to be made with others by ``run.together``."""

    tool: str
    arguments: dict[str, JSON] = field(default_factory=dict)


class Calls(Protocol):
    """What a step's run needs from the replay: make one call at a point of the step, or several together."""

    def step_call(self, index: int, tool: str, arguments: dict[str, JSON]) -> Any: ...

    def step_calls(self, first: int, calls: list[Later]) -> list[Any]: ...


class Run:
    """The run a step makes its calls through; each call is numbered in the order the step makes it."""

    def __init__(self, calls: Calls) -> None:
        self._calls = calls
        self._made = 0

    def call(self, tool: str, /, **arguments: JSON) -> Any:
        """Make one call and return its result (None if a person chose to skip it).

        ``tool`` may be ``"agent:tool"``, to hand the call to another agent of the file.
        The result is typed ``Any``, as ``json.loads`` is: it is whatever JSON the tool returned.
        """
        self._made += 1
        return self._calls.step_call(self._made, tool, arguments)

    def later(self, tool: str, /, **arguments: JSON) -> Later:
        return Later(tool, arguments)

    def together(self, *calls: Later) -> list[Any]:
        """Make several calls side by side: those that need a person wait together, each by its own id,
        and the step goes on only when every one is done (results in the order given)."""
        first = self._made + 1
        self._made += len(calls)
        return self._calls.step_calls(first, list(calls))
