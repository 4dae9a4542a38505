"""Tools: plain Python functions with the metadata the check and the saga need.

The decorator keeps the function callable as it was, so a team's tests can call
its tools directly; the agent reads the metadata, never the function's body.
"""

from __future__ import annotations

import inspect
import json
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import ConfigError
from ..vocabulary import JSON

RESERVED = frozenset({"result", "idempotency_key"})
INPUTS: dict[object, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}
"""How a value of each annotation is typed in by a person changing it (JSON Schema's names)."""


class OutcomeUnknown(Exception):
    """Raised by a tool that cannot tell whether its write took effect (a timeout, a lost reply).

    The run then asks a person instead of guessing, unless the tool is idempotent.
    """


@dataclass(frozen=True)
class Parameter:
    """One parameter a call passes, as the function declares it (``annotation`` is ``inspect``'s, or ``empty``)."""

    name: str
    required: bool
    annotation: object


@dataclass(frozen=True)
class Tool:
    """A function the agent may call, and what a person must know before it runs.

    ``label`` is a person's name for the tool ("Charge a card"), ``describe`` a one-line
    template of a call over its arguments ("Charge {amount} to order {order_id}"), and
    ``labels`` a person's name for each parameter, ``units`` the unit of a parameter's value (a currency code
    such as ``EUR`` is shown with two decimals); ``question`` is the tool's own
    confirmation question, empty where the described call asks it.  ``editable`` names the
    parameters a person may change before approving a call (``Refund 150`` approved as 120).  ``schema`` is the
    JSON Schema of its arguments where the tool brings its own (an MCP tool's), for the
    model to see as it is; None where the function's signature is the schema.  ``definition``
    is a digest of that definition, where it lives outside this process (an MCP server's):
    a pause about the tool is another pause once it changes.
    """

    fn: Callable[..., Any]
    name: str
    says: tuple[str, ...] = ()
    write: bool = False
    irreversible: bool = False
    undo: str | None = None
    idempotent: bool = False
    untrusted: bool = False
    question: str = ""
    label: str = ""
    describe: str = ""
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    units: Mapping[str, str] = field(default_factory=dict, hash=False)
    editable: tuple[str, ...] = ()
    schema: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    definition: str = ""
    signature: inspect.Signature = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Read on every call a run makes or replays: inspect builds a new Signature each time it is asked.
        object.__setattr__(self, "signature", _signature(self.fn))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @cached_property
    def parameters(self) -> tuple[Parameter, ...]:
        """The arguments a call passes: what the person is shown and the selector fills."""
        return tuple(
            Parameter(p.name, p.default is inspect.Parameter.empty, p.annotation)
            for p in self.signature.parameters.values()
            if p.name not in RESERVED and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        )

    def takes(self, name: str) -> bool:
        """Whether a call may pass ``name``: a parameter of that name, or ``**kwargs``, which takes any."""
        parameters = self.signature.parameters
        return name in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())

    def title(self, values: Mapping[str, JSON]) -> str:
        """The call as a person reads it: described with its values, or the tool's label where any is missing."""
        fields = _fields(self.describe)
        if not self.describe or any(name is not None and name not in values for _, name in fields):
            return self.label or self.name
        shown = (self.shown(name, values[name]) if name is not None else "" for _, name in fields)
        return "".join(text + value for (text, _), value in zip(fields, shown, strict=True))

    def shown(self, parameter: str, value: JSON) -> str:
        """A value of ``parameter`` as a person reads it, in its unit where the tool gives one."""
        return shown_value(value, self.units.get(parameter))

    def edited(self, parameter: str, value: JSON, asked: JSON) -> JSON:
        """``value`` as a person's change to ``parameter`` (asked as ``asked``), once it is what the tool takes:
        its JSON Schema's (an MCP tool's), else its annotation's; where neither says, the type it was asked with.
        ValueError says why not."""
        unit = self.units.get(parameter)
        if unit and _CURRENCY.fullmatch(unit) and isinstance(value, float) and round(value, 2) != value:
            raise ValueError(f"an amount in {unit} has at most two decimals, as a person is shown it")
        if self.schema is not None:
            return fits_schema(self.schema.get("properties", {}).get(parameter, {}), value)
        annotation = self.signature.parameters[parameter].annotation
        if annotation is inspect.Parameter.empty:
            return same_kind(value, asked)
        return _fits_annotation(annotation, value)

    def input_of(self, parameter: str, asked: JSON) -> str | None:
        """How a person types a new value of ``parameter`` in (``number``, ``integer``, ``string``, ``boolean``), by
        its schema or annotation, else by the value asked; None for a value no single field holds (a list)."""
        if self.schema is not None:
            return input_kind(self.schema.get("properties", {}).get(parameter, {}).get("type"), asked)
        annotation = self.signature.parameters[parameter].annotation
        return INPUTS[annotation] if annotation in INPUTS else input_kind(None, asked)

    def label_of(self, parameter: str) -> str:
        """A person's name for ``parameter``: its label, else its own name."""
        return self.labels.get(parameter, parameter)

    @property
    def keyed(self) -> bool:
        """Whether the tool names an ``idempotency_key`` parameter, to be sent a key stable across resends.

        Only a parameter of that name receives one: ``**kwargs`` often passes on to
        another API, which would not expect it.
        """
        return "idempotency_key" in self.signature.parameters


def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    """The function's signature with its annotations as types, where a module's ``from __future__ import
    annotations`` wrote them as text ("float"): a person's change is then checked, and typed in, as the type."""
    try:
        return inspect.signature(fn, eval_str=True)
    except Exception:  # an annotation naming what the module never imported: read as written
        return inspect.signature(fn)


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    says: list[str] | tuple[str, ...] = (),
    write: bool = False,
    irreversible: bool = False,
    undo: str | Tool | None = None,
    idempotent: bool = False,
    untrusted: bool = False,
    question: str | None = None,
    name: str | None = None,
    label: str | None = None,
    describe: str = "",
    labels: Mapping[str, str] | None = None,
    units: Mapping[str, str] | None = None,
    editable: list[str] | tuple[str, ...] = (),
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Declare a tool: ``@tool`` alone, or ``@tool(write=True, undo="refund_charge", says=[...])``.

    ``describe``, ``labels``, ``units`` and ``editable`` may name only parameters the tool takes: anything else is
    a ConfigError here, where the mistake is made, not when a person is first asked.  ``editable`` names what a
    person may change before approving; the changed call is checked again, and runs only as they approved it.
    """

    def declare(function: Callable[..., Any]) -> Tool:
        tool_name = name or function.__name__
        declared = Tool(
            fn=function,
            name=tool_name,
            says=tuple([says] if isinstance(says, str) else says),
            write=write or irreversible,
            irreversible=irreversible,
            undo=undo.name if isinstance(undo, Tool) else undo,
            idempotent=idempotent,
            untrusted=untrusted,
            question=question or "",
            label=label or tool_name,
            describe=describe,
            labels=dict(labels or {}),
            units=dict(units or {}),
            editable=tuple([editable] if isinstance(editable, str) else editable),
        )
        _check_words(declared)
        return declared

    return declare(fn) if fn is not None else declare


def _check_words(declared: Tool) -> None:
    """A describe template or a label naming a parameter the tool does not take is a ConfigError naming both."""
    try:
        described = [name for _, name in _fields(declared.describe) if name is not None]
    except ValueError as exc:
        raise ConfigError(f"describe {declared.describe!r} is not a template: {exc}", key=declared.name) from exc
    named = (("describe", described), ("labels", list(declared.labels)), ("units", list(declared.units)))
    for where, names in named:
        for parameter in names:
            if not parameter.isidentifier() or not declared.takes(parameter):
                raise ConfigError(f"{where} names {parameter!r}, which is not a parameter it takes", key=declared.name)
    passed = {p.name for p in declared.parameters}
    for parameter in declared.editable:
        if parameter not in passed:
            taken = ", ".join(sorted(passed)) or "none"
            sentence = f"editable names {parameter!r}, which is not a parameter a call passes; its parameters: {taken}"
            raise ConfigError(sentence, key=declared.name)


def _fields(template: str) -> list[tuple[str, str | None]]:
    """A template as (text, parameter name) pairs; the name is None after the last text.

    ValueError for a format spec or a conversion: a template places values, it never formats them.
    """
    pairs = []
    for text, name, spec, conversion in string.Formatter().parse(template):
        if spec or conversion:
            raise ValueError(f"{{{name}}} may not carry a format or a conversion")
        pairs.append((text, name))
    return pairs


def shown_value(value: JSON, unit: str | None = None) -> str:
    """A value as it reads in a sentence: text as it is, a whole number without ``.0``, anything else as JSON; with
    a unit, after the value, and an amount of a currency (a three-letter code) with two decimals."""
    if unit and isinstance(value, int | float) and not isinstance(value, bool):
        amount = f"{value:,.2f}" if _CURRENCY.fullmatch(unit) else shown_value(value)
        return f"{amount} {unit}"
    if unit and isinstance(value, str) and _NUMBER.fullmatch(value):
        return shown_value(float(value), unit)
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def input_kind(declared: object, asked: JSON) -> str | None:
    """How a value is typed in, by a JSON Schema ``type`` (a name, or a list of them), else by the value asked."""
    named = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    typed = next((str(t) for t in named if t in INPUTS.values()), None)
    return typed or next((INPUTS[kind] for kind in (bool, int, float, str) if type(asked) is kind), None)


def _fits_annotation(annotation: object, value: JSON) -> JSON:
    """``value`` as JSON gives it, once it is what ``annotation`` takes, strictly: ``"120"`` is no int, 12.5 no str."""
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter[Any](annotation).validate_python(value, strict=True)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ValueError(_first_error(exc.errors()[0]["msg"])) from None
    except Exception as exc:  # an annotation pydantic cannot read: the team's type, checked as the call runs
        raise ValueError(f"its type {annotation!r} cannot be checked here ({type(exc).__name__})") from None
    return value


def fits_schema(schema: Mapping[str, Any], value: JSON) -> JSON:
    """``value``, once the property's JSON Schema takes it (an MCP tool's own)."""
    import jsonschema  # type: ignore[import-untyped]  # the mcp extra's, as every MCP tool is

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(value))
    if error is not None:
        raise ValueError(error.message)
    return value


def same_kind(value: JSON, asked: JSON) -> JSON:
    """A parameter nothing types may still change only within the kind of value it was asked with."""
    numbers = (int, float)
    if isinstance(asked, bool) or isinstance(value, bool):
        fits = isinstance(asked, bool) and isinstance(value, bool)
    elif isinstance(asked, numbers):
        fits = isinstance(value, numbers)
    else:
        fits = type(value) is type(asked)
    if not fits:
        raise ValueError(f"it was asked as {_kind_of(asked)}, so it takes {_kind_of(asked)}, not {_kind_of(value)}")
    return value


def _kind_of(value: JSON) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return {str: "text", list: "a list", dict: "an object"}.get(type(value), "nothing")  # type: ignore[arg-type]


def _first_error(message: str) -> str:
    return message[:1].lower() + message[1:]


_CURRENCY = re.compile(r"[A-Z]{3}")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
