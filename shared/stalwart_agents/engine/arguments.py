"""A call's arguments, each with where its value came from.

``Argument`` is what the engine passes around; ``ArgumentDict`` is the same
thing as JSON, the shape a person, the journal and every channel are shown
(``{"name", "value", "origin"}``).  Origins are ``typed``, ``reply``,
``context``, ``computed``, ``result:<step>``, ``model`` and ``agent``.  A pause
shows each argument with a person's ``label`` for it too, and, for one taken
from an earlier call's result, that call (``source``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NotRequired

from typing_extensions import TypedDict  # pydantic builds schemas of these: before 3.12, from this one

from ..vocabulary import JSON


class Source(TypedDict):
    """The earlier call an argument's value came from: its tool, its step, and its result where small enough.

    A result over ``SOURCE_BYTES`` of JSON is left out, and ``truncated`` says so.
    """

    tool: str
    step: int
    value: NotRequired[JSON]
    truncated: NotRequired[bool]


class ArgumentDict(TypedDict):
    name: str
    value: JSON
    origin: str
    label: NotRequired[str]
    source: NotRequired[Source]


SOURCE_BYTES = 2048
"""The most of an earlier call's result a pause repeats beside the argument taken from it."""


@dataclass(frozen=True, slots=True)
class Argument:
    """A value a call is given, by the name of the parameter it fills, and where the value came from."""

    name: str
    value: JSON
    origin: str

    def to_dict(self) -> ArgumentDict:
        return {"name": self.name, "value": self.value, "origin": self.origin}


def with_origin(values: Mapping[str, JSON], origin: str) -> tuple[Argument, ...]:
    """Several values that came from one place (the turn's words, the application, the model)."""
    return tuple([Argument(name, value, origin) for name, value in values.items()])


def from_dicts(stored: Iterable[Mapping[str, Any]]) -> tuple[Argument, ...]:
    """Arguments as the journal or a run's plan keeps them."""
    return tuple([Argument(a["name"], a["value"], a["origin"]) for a in stored])


def by_name(arguments: Iterable[Argument]) -> list[Argument]:
    """In the one order every pause and id shows them, so the same call is always the same."""
    return sorted(arguments, key=_NAME)


def shown(arguments: Iterable[Argument]) -> list[ArgumentDict]:
    """As JSON, by name."""
    return [argument.to_dict() for argument in by_name(arguments)]


def keywords(arguments: Iterable[Argument]) -> dict[str, JSON]:
    """What a function is called with."""
    return {argument.name: argument.value for argument in arguments}


_NAME = attrgetter("name")
