"""An agent: its tools, the selector over their patterns, its check and its approvers, checked together at load.

Its tools come from its tools file, its MCP servers (``mcp_tools.py``), or both;
a name two of them give is refused.  Mistakes that would otherwise surface
mid-run (a pattern slot no parameter takes, an undo that names no tool) are
configuration errors, raised before any turn is read, at the place they were
made: the tools module's line, or the MCP server's entry in agent.yaml.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .approvals.deadlines import Deadlines
from .approvals.rules import Approvers
from .config import AgentConfig, McpConfig, Settings
from .errors import ConfigError
from .reading.check import Check
from .reading.model import Model, build_model
from .reading.selector import Pattern, PatternError, Selector, compile_pattern
from .tools.load import load_tools
from .tools.python import Tool
from .tools.steps import StepFunction

if TYPE_CHECKING:
    from .tools.mcp_servers import McpServer


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
    servers: tuple[McpServer, ...] = ()
    deadlines: Deadlines = field(default_factory=Deadlines)

    @classmethod
    def build(cls, config: AgentConfig, settings: Settings, base_dir: Path, environ: Mapping[str, str]) -> Agent:
        found, sources, servers = _found(config, base_dir, environ)
        tools = {name: t for name, t in found.items() if isinstance(t, Tool)}
        steps = {name: s for name, s in found.items() if isinstance(s, StepFunction)}
        patterns = [(t.name, _compile(t, text, sources[t.name])) for t in found.values() for text in t.says]
        for t in tools.values():
            _check_undo(t, tools, sources[t.name])
        model = build_model(config.model, environ) if config.model is not None else None
        selector, check = Selector(patterns), Check(config.check)
        approvers = Approvers(config.approvers, config.approvals)
        deadlines = Deadlines(config.deadlines, approvers)
        return cls(
            config.name,
            tools,
            steps,
            selector,
            check,
            config.on_unread,
            settings,
            model,
            approvers,
            tuple(servers),
            deadlines,
        )

    def close(self) -> None:
        """Close the connections to its MCP servers (their child processes end); a later call opens them again."""
        for server in self.servers:
            server.close()

    def named(self, name: str) -> Tool | StepFunction:
        """A tool or a step of this agent, by name."""
        return self.tools.get(name) or self.steps[name]


@dataclass(frozen=True)
class _Source:
    """Where tools were declared: a tools module (``origin``), or an MCP server's entry in agent.yaml."""

    origin: str | None = None
    server: McpConfig | None = None

    @property
    def named(self) -> str:
        return f"the MCP server {self.server.name}" if self.server is not None else f"the tools file {self.origin}"

    def refused(self, sentence: str, tool: Tool | StepFunction, key: str) -> ConfigError:
        """A mistake in what ``tool`` declares under ``key`` (says, undo), placed where it was declared."""
        if self.server is not None:
            return self.server.refused(sentence, "tools", tool.name, key)
        return ConfigError(sentence, file=self.origin, line=_line_of(tool), key=f"{tool.name}.{key}")


def _found(
    config: AgentConfig, base_dir: Path, environ: Mapping[str, str]
) -> tuple[dict[str, Tool | StepFunction], dict[str, _Source], list[McpServer]]:
    """The agent's tools and steps by name, from its tools file and then each of its MCP servers, and where each
    came from, and the servers' connections; a name given twice is refused, naming both places."""
    found: dict[str, Tool | StepFunction] = {}
    sources: dict[str, _Source] = {}
    if config.tools is not None:
        loaded, origin = load_tools(config.tools, base_dir)
        found |= loaded
        sources |= dict.fromkeys(loaded, _Source(origin=origin))
    servers: list[McpServer] = []
    try:
        for server_config in config.mcp:
            server, offered = _mcp_tools(server_config, base_dir, environ)
            servers.append(server)
            source = _Source(server=server_config)
            for name in sorted(offered.keys() & found.keys()):
                sentence = f"{source.named} offers a tool named {name!r}, and so does {sources[name].named}"
                raise server_config.refused(sentence)
            found |= offered
            sources |= dict.fromkeys(offered, source)
    except ConfigError:
        for server in servers:
            server.close()
        raise
    return found, sources, servers


def _mcp_tools(config: McpConfig, base_dir: Path, environ: Mapping[str, str]) -> tuple[McpServer, dict[str, Tool]]:
    """The MCP server's tools; the SDK is imported only by an agent that has a server, as an optional extra."""
    try:
        from .tools.mcp import mcp_tools
    except ImportError as exc:
        sentence = f"MCP servers need the MCP SDK ({exc}): pip install -e '.[mcp]' in the stalwart-agents checkout"
        raise config.refused(sentence) from None
    return mcp_tools(config, base_dir, environ)


def _compile(tool: Tool | StepFunction, text: str, source: _Source) -> Pattern:
    try:
        pattern = compile_pattern(text)
    except PatternError as exc:
        raise source.refused(str(exc), tool, "says") from exc
    known = {p.name for p in tool.parameters}
    for slot in pattern.slots:
        if slot not in known:
            sentence = f"pattern {text!r} fills {{{slot}}}, but {tool.name}() takes no parameter {slot!r}"
            raise source.refused(sentence, tool, "says")
    return pattern


def _check_undo(tool: Tool, tools: dict[str, Tool], source: _Source) -> None:
    if tool.undo is None:
        return
    problem = _undo_problem(tool, tools.get(tool.undo))
    if problem is not None:
        raise source.refused(problem, tool, "undo")


def _undo_problem(tool: Tool, undo: Tool | None) -> str | None:
    """What is wrong with the undo ``tool`` names, in one sentence; None when nothing is."""
    if undo is None:
        return f"undo names {tool.undo!r}, which is not a tool of this agent"
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
