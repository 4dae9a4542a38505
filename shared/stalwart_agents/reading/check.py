"""The check: before any call runs, allow it, ask a person, or refuse it.

Reasons are plain strings because they travel unchanged to the person, the
webhook and the audit: ``write``, ``argument_origin: <arg>``,
``tainted_call: untrusted:<tool>``, ``rule: <name>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..config import CheckConfig
from ..engine.arguments import Argument
from ..tools.python import Tool
from . import cel


@dataclass(frozen=True)
class Ruling:
    """What the check says of one call: allow it, ask a person (with reasons), or refuse it (with a rule)."""

    kind: Literal["allow", "confirm", "refuse"]
    reasons: tuple[str, ...] = ()
    rule: str | None = None
    sentence: str | None = None
    disclosed: bool = True


ALLOW = Ruling("allow")


def misnamed(
    tool: Sequence[str] | None, conditions: Mapping[str, str | None], tools: Mapping[str, Tool]
) -> tuple[str, str] | None:
    """What in a rule names no tool of the agent, or no argument of its tools: (the key, a sentence); else None.

    ``tool`` is the tools the rule covers (None for every one); ``conditions`` its CEL by key (``when``, ``who``).
    Found at load: a rule whose condition reads an argument its tools do not take could never be
    evaluated, so it would fail closed on every call it applies to.
    """
    unknown = [name for name in tool or () if name not in tools]
    if unknown:
        return "tool", f"names {_listed(unknown)}, but the agent has no tool of that name; its tools: {_listed(tools)}"
    scope = [tools[name] for name in tool] if tool else list(tools.values())
    for key, condition in conditions.items():
        read = cel.fields_of(condition, "args") if condition is not None else frozenset()
        missing = sorted(name for name in read if not any(t.takes(name) for t in scope))
        if missing:
            return key, _not_taken(missing[0], scope)
    return None


def _not_taken(argument: str, scope: Sequence[Tool]) -> str:
    taken = sorted({p.name for t in scope for p in t.parameters})
    takes = "takes" if len(scope) == 1 else "take"
    tools_named = _listed(t.name for t in scope)
    return f"reads args.{argument}, but {tools_named} {takes} no argument of that name: {_listed(taken)}"


def _listed(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


class Check:
    """One agent's policy, from the ``check:`` section of agent.yaml."""

    def __init__(self, config: CheckConfig) -> None:
        self.config = config

    def __call__(self, tool: Tool, arguments: Sequence[Argument], tainted_by: Sequence[str] = ()) -> Ruling:
        activation = {
            "tool": tool.name,
            "args": {a.name: a.value for a in arguments},
            "origins": {a.name: a.origin for a in arguments},
            "write": tool.write,
            "tainted": bool(tainted_by),
        }
        rules = [rule for rule in self.config.rules if rule.applies_to(tool.name) and rule.holds(activation)]
        refusal = next((rule for rule in rules if rule.then == "refuse"), None)
        if refusal is not None:
            return Ruling("refuse", rule=refusal.name, sentence=refusal.sentence, disclosed=refusal.disclose)
        reasons = self._reasons(tool, arguments, tainted_by) + [f"rule: {rule.name}" for rule in rules]
        return Ruling("confirm", tuple(reasons)) if reasons else ALLOW

    def _reasons(self, tool: Tool, arguments: Sequence[Argument], tainted_by: Sequence[str]) -> list[str]:
        if not tool.write:
            return []
        reasons = ["write"] if self.config.confirm_writes else []
        trusted = set(self.config.trusted_origins)
        reasons += [f"argument_origin: {a.name}" for a in arguments if _origin_kind(a.origin) not in trusted]
        reasons += [f"tainted_call: untrusted:{name}" for name in tainted_by]
        return reasons


def _origin_kind(origin: str) -> str:
    """``result:<step>`` is trusted or not as ``result``."""
    return origin.split(":", 1)[0]
