"""An MCP server's tools as tools of the agent, declared by their own annotations and agent.yaml's overrides.

The spec's annotations say nearly what a tool here declares: ``readOnlyHint``
true reads, anything else writes and is confirmed; ``destructiveHint`` (true by
default) makes a write irreversible unless agent.yaml gives it an undo;
``idempotentHint`` lets a call whose outcome is unknown be sent again with the
same key; ``openWorldHint`` (true by default) makes its results untrusted, so
they taint later calls.  Each key of a tool's entry under the server's
``tools:`` wins over the annotation; ``says`` patterns come only from there.

A call first reads the server's tool list again and compares the tool's
definition (annotations and input schema) with the one the agent was built
from, by digest: a tool gone or changed since, which a person may have approved
as it was, is not run.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcp_types import CallToolResult, ToolAnnotations
from mcp_types import Tool as Definition

from ..config import McpConfig, McpToolConfig
from ..engine.pause import canonical
from ..engine.sizes import MAX_DEPTH, deeper_than
from ..errors import ConfigError
from ..vocabulary import JSON
from .mcp_servers import Http, McpServer, ServerDown, Stdio, ToolFailed
from .python import RESERVED, OutcomeUnknown, Tool, tool

TYPES: dict[str, object] = {"string": str, "integer": int, "number": float, "boolean": bool}
"""JSON Schema types as the annotations a person's typed answer is read by (``answer.py``)."""


class ToolChanged(Exception):
    """The server no longer offers the tool as the agent read it: it was not run."""


def mcp_tools(config: McpConfig, base_dir: Path, environ: Mapping[str, str]) -> tuple[McpServer, dict[str, Tool]]:
    """The server of ``config``, connected, and its tools by name; a server that cannot be reached is a ConfigError."""
    server = McpServer(config.name, _target(config, base_dir, environ), config.timeout)
    try:
        try:
            listed = {definition.name: definition for definition in server.tools()}
        except (ServerDown, TimeoutError, ToolFailed) as exc:
            raise config.refused(f"could not list the server's tools when the agent loaded: {exc}") from None
        unknown = sorted(set(config.tools) - set(listed))
        if unknown:
            offered = ", ".join(sorted(listed)) or "none"
            sentence = f"the MCP server {config.name} offers no tool named {unknown[0]!r}; its tools: {offered}"
            raise config.refused(sentence, "tools", unknown[0])
        tools = {name: _tool(server, definition, config) for name, definition in listed.items()}
    except ConfigError:
        server.close()
        raise
    return server, tools


def _target(config: McpConfig, base_dir: Path, environ: Mapping[str, str]) -> Stdio | Http:
    """Where the server is, with each value agent.yaml takes from the environment read now."""

    def read(section: str, name: str, variable: str) -> str:
        value = environ.get(variable)
        if value is None:
            raise config.refused(f"the environment variable {variable} is not set", section, name)
        if any(ord(character) < 32 or ord(character) == 127 for character in value):
            sentence = f"the environment variable {variable} holds a control character (a line end?), which no"
            raise config.refused(f"{sentence} {section[:-1]} may carry", section, name)
        return value

    if config.command is not None:
        env = {name: read("env", name, given.env) for name, given in config.env.items()}
        return Stdio(_this_python(config.command), env, base_dir)
    assert config.url is not None, "McpConfig has a command or a url"
    return Http(config.url, {name: read("headers", name, given.env) for name, given in config.headers.items()})


def _this_python(command: tuple[str, ...]) -> tuple[str, ...]:
    """``[python, server.py]`` runs under the Python stalwart runs under, whose environment holds the MCP SDK: the
    ``python`` on PATH is another one unless the virtual environment is activated.  A path runs as given."""
    program, *arguments = command
    return (sys.executable, *arguments) if program in ("python", "python3") else command


def _tool(server: McpServer, definition: Definition, config: McpConfig) -> Tool:
    override = config.tools.get(definition.name, McpToolConfig())
    hints = definition.annotations or ToolAnnotations()
    write = override.write if override.write is not None else hints.read_only_hint is not True
    undo = override.undo
    irreversible = override.irreversible
    if irreversible is None:
        irreversible = write and hints.destructive_hint is not False and undo is None
    call = McpCall(server, definition, _signature(definition, config), write=write or irreversible)
    try:
        declared = tool(
            call,
            name=definition.name,
            says=override.says,
            write=write,
            irreversible=irreversible,
            undo=undo,
            idempotent=override.idempotent if override.idempotent is not None else hints.idempotent_hint is True,
            untrusted=override.untrusted if override.untrusted is not None else hints.open_world_hint is not False,
            question=override.question,
            label=override.label or hints.title or definition.title or definition.name,
            describe=override.describe,
            labels=override.labels,
            units=override.units,
            editable=override.editable,
        )
    except ConfigError as exc:
        sentence = str(exc).removeprefix(f"{exc.key}: ")
        raise config.refused(sentence, "tools", definition.name, sentence.split(" ", 1)[0]) from None
    assert isinstance(declared, Tool), "tool() given a function declares it"
    return replace(declared, schema=_model_schema(definition), definition=call.digest)


def _signature(definition: Definition, config: McpConfig) -> inspect.Signature:
    """The tool's arguments as keyword parameters: its input schema's properties, required as ``required`` says."""
    schema = definition.input_schema
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    parameters = []
    for name, property_schema in properties.items():
        if not name.isidentifier():
            sentence = f"the MCP tool {definition.name} takes an argument {name!r}, which is not a name a call can pass"
            raise config.refused(sentence)
        kind = property_schema.get("type") if isinstance(property_schema, Mapping) else None
        annotation = TYPES.get(kind, inspect.Parameter.empty) if isinstance(kind, str) else inspect.Parameter.empty
        default = inspect.Parameter.empty if name in required else None
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
    return inspect.Signature(parameters)


def _model_schema(definition: Definition) -> dict[str, Any]:
    """The input schema as a model is shown it: without what the engine passes itself (a key, a result)."""
    schema = {key: value for key, value in definition.input_schema.items() if key != "title"}
    properties = schema.get("properties") or {}
    schema["properties"] = {name: value for name, value in properties.items() if name not in RESERVED}
    if "required" in schema:
        schema["required"] = [name for name in schema["required"] if name not in RESERVED]
    return schema


def digest(definition: Definition) -> str:
    """What a call is checked against: the tool's name, annotations and input schema, hashed."""
    annotations = definition.annotations.model_dump(mode="json", exclude_none=True) if definition.annotations else {}
    material = canonical([definition.name, annotations, definition.input_schema])
    return hashlib.sha256(material.encode()).hexdigest()


class McpCall:
    """What an MCP tool runs: the server's tool, once the server still offers it as the agent read it.

    A write whose server cannot be reached, or goes away mid-call, raises OutcomeUnknown, so a
    person is asked whether it happened (an idempotent one is first sent again with the same key);
    a read's is a plain error.  ``isError`` in the answer is the call failing with its text.
    """

    def __init__(self, server: McpServer, definition: Definition, signature: inspect.Signature, *, write: bool) -> None:
        self.server, self.name, self.write = server, definition.name, write
        self.digest = digest(definition)
        self.__signature__ = signature
        self.__doc__ = definition.description or None
        self._takes = frozenset(signature.parameters)

    def __repr__(self) -> str:
        return f"McpCall({self.server.name}.{self.name})"

    def __call__(self, **arguments: JSON) -> JSON:
        sent = {name: value for name, value in arguments.items() if name in self._takes}
        key = arguments.get("idempotency_key") if "idempotency_key" in self._takes else None
        try:
            self._still_offered()
            answer = self.server.call(self.name, sent, meta={"idempotency_key": key} if key else None)
        except ServerDown as exc:
            if self.write:
                raise OutcomeUnknown(str(exc)) from None
            raise
        return _result(answer, f"{self.name} failed on the MCP server {self.server.name}")

    def _still_offered(self) -> None:
        current = next((d for d in self.server.tools() if d.name == self.name), None)
        if current is None:
            raise ToolChanged(f"the MCP server {self.server.name} no longer offers {self.name}; it was not run")
        if digest(current) != self.digest:
            raise ToolChanged(
                f"{self.name} changed on the MCP server {self.server.name} (its annotations or input schema) since "
                "it was read; it was not run: load the agent again to read the new definition, then ask again"
            )


def _result(answer: CallToolResult, failed: str) -> JSON:
    """The call's result: its structured content, else its text (decoded where it is JSON); an error raises."""
    texts = [block.text for block in answer.content if block.type == "text"]
    text = "\n".join(texts)
    if answer.is_error:
        raise ToolFailed(f"{failed}: {text or 'it gave no reason'}")
    if answer.structured_content is not None:
        return answer.structured_content  # type: ignore[no-any-return]
    if not texts:
        return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in answer.content]
    try:
        decoded: JSON = json.loads(text)
    except ValueError:
        return text
    except RecursionError:
        return too_deep(text)
    return too_deep(text) if deeper_than(decoded) else decoded


def too_deep(text: str) -> JSON:
    """A result the server answered as JSON nested deeper than a store keeps (``sizes.MAX_DEPTH``): kept as the
    text it came as, marked, since the call ran and must be kept done (its undo given this in place of the result)."""
    return {"too_deep": {"depth_limit": MAX_DEPTH, "text": text}}
