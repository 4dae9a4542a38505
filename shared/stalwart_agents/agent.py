"""An agent: its tools, the selector over their patterns, its check and its approvers, checked together at load.

Mistakes that would otherwise surface mid-run (a pattern slot no parameter
takes, an undo that names no tool) are configuration errors, raised before any
turn is read.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .approvers import Approvers
from .check import Check
from .config import AgentConfig, Settings
from .errors import ConfigError
from .model import Model, build_model
from .selector import Pattern, PatternError, Selector, compile_pattern
from .steps import StepFunction
from .tools import Tool, load_tools


@dataclass(frozen=True)
class Agent:
    name: str
    tools: dict[str, Tool]
    steps: dict[str, StepFunction]
    selector: Selector
    check: Check
    on_unread: str
    settings: Settings
    model: Model | None = None
    approvers: Approvers = field(default_factory=Approvers)

    @classmethod
    def build(cls, config: AgentConfig, settings: Settings, base_dir: Path, environ: Mapping[str, str]) -> Agent:
        found, origin = load_tools(config.tools, base_dir)
        tools = {name: t for name, t in found.items() if isinstance(t, Tool)}
        steps = {name: s for name, s in found.items() if isinstance(s, StepFunction)}
        patterns = [(t.name, _compile(t, text, origin)) for t in found.values() for text in t.says]
        for t in tools.values():
            _check_undo(t, tools, origin)
        model = build_model(config.model, environ) if config.model is not None else None
        selector, check = Selector(patterns), Check(config.check)
        approvers = Approvers(config.approvers, config.approvals)
        return cls(config.name, tools, steps, selector, check, config.on_unread, settings, model, approvers)

    def named(self, name: str) -> Tool | StepFunction:
        """A tool or a step of this agent, by name."""
        return self.tools.get(name) or self.steps[name]


def _compile(tool: Tool | StepFunction, text: str, origin: str) -> Pattern:
    line = _line_of(tool)
    try:
        pattern = compile_pattern(text)
    except PatternError as exc:
        raise ConfigError(str(exc), file=origin, line=line, key=f"{tool.name}.says") from exc
    known = {p.name for p in tool.parameters}
    for slot in pattern.slots:
        if slot not in known:
            raise ConfigError(
                f"pattern {text!r} fills {{{slot}}}, but {tool.name}() takes no parameter {slot!r}",
                file=origin,
                line=line,
                key=f"{tool.name}.says",
            )
    return pattern


def _check_undo(tool: Tool, tools: dict[str, Tool], origin: str) -> None:
    if tool.undo is None:
        return
    problem = _undo_problem(tool, tools.get(tool.undo))
    if problem is not None:
        raise ConfigError(problem, file=origin, line=_line_of(tool), key=f"{tool.name}.undo")


def _undo_problem(tool: Tool, undo: Tool | None) -> str | None:
    """What is wrong with the undo ``tool`` names, in one sentence; None when nothing is."""
    if undo is None:
        return f"undo names {tool.undo!r}, which is not a tool of this module"
    if tool.irreversible:
        return "an irreversible tool cannot have an undo"
    if not undo.takes("result"):
        return f"{undo.name}() undoes {tool.name}, so it must take result= (the original call's result)"
    missing = [p.name for p in undo.parameters if p.required and p.name not in {q.name for q in tool.parameters}]
    if missing:
        return f"{undo.name}() needs {', '.join(missing)}, which {tool.name}() does not take"
    return None


def _line_of(tool: Tool | StepFunction) -> int | None:
    try:
        return inspect.getsourcelines(tool.fn)[1]
    except (OSError, TypeError):
        return None
