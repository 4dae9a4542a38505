"""The model behind ``delegate``: what reads a turn the selector could not, and proposes calls.

Two kinds ship: any OpenAI-compatible chat-completions server with tool calling,
and a plain Python callable.  The model only proposes: every argument it writes
has origin ``model`` and passes the check like any other call, so a write it
proposes asks a person (``argument_origin: <arg>``).  Its answer is journaled, so
a replayed run never asks it twice.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from pydantic import create_model

from ..config import ModelConfig
from ..errors import ConfigError, StalwartError
from ..tools.python import Tool
from ..vocabulary import JSON

if TYPE_CHECKING:
    import httpx

SYSTEM = (
    "You are the agent {agent}. Do what the person asks by calling the tools you are given, with exactly the "
    "arguments the request supports; say briefly what you did. A person confirms every call that changes anything."
)


class ModelError(StalwartError):
    """The model could not be reached, timed out, or answered something that is not a tool call or text."""

    code = "model_unavailable"
    status = 502


class ProposedCall(TypedDict):
    """A call the model proposes; it is checked like any other, each argument with origin ``model``."""

    tool: str
    arguments: dict[str, JSON]


@dataclass(frozen=True)
class ModelAnswer:
    text: str = ""
    calls: list[ProposedCall] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        """The answer as the run's journal keeps it, so a replay never asks the model twice."""
        return {"text": self.text, "calls": self.calls}

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> ModelAnswer:
        return cls(stored["text"], stored["calls"])


ToolSchema = dict[str, object]
"""A tool as a model is shown it: ``{"name", "description", "parameters"}``, the last a JSON Schema."""


class Model(Protocol):
    def answer(self, agent: str, turn: str, tools: list[ToolSchema]) -> ModelAnswer: ...


def tool_schema(tool: Tool) -> ToolSchema:
    """The function a tool is to a model: its name, what it does, and a JSON Schema of its arguments."""
    description = inspect.getdoc(tool.fn) or tool.question or tool.label
    if tool.schema is not None:
        return {"name": tool.name, "description": description, "parameters": dict(tool.schema)}
    fields: dict[str, Any] = {
        p.name: (Any if p.annotation is inspect.Parameter.empty else p.annotation, ... if p.required else None)
        for p in tool.parameters
    }
    arguments = create_model(f"{tool.name}_arguments", **fields)
    schema: dict[str, object] = arguments.model_json_schema()
    schema.pop("title", None)
    return {"name": tool.name, "description": description, "parameters": schema}


class OpenAIModel:
    """Any server that speaks OpenAI's chat completions with tools: OpenAI, vLLM, Ollama, llama.cpp, LiteLLM..."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        root = base_url.rstrip("/")
        self._client = httpx.Client(base_url=root, headers=headers, timeout=timeout, transport=transport)
        self.model, self.timeout = model, timeout

    def answer(self, agent: str, turn: str, tools: list[ToolSchema]) -> ModelAnswer:
        import httpx

        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": SYSTEM.format(agent=agent)}, {"role": "user", "content": turn}],
            "tools": [{"type": "function", "function": schema} for schema in tools],
        }
        try:
            answer = self._client.post("/chat/completions", json=body)
        except httpx.TimeoutException:
            raise ModelError(f"the model did not answer within {self.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise ModelError(f"the model could not be reached ({type(exc).__name__})") from None
        if answer.status_code != 200:
            raise ModelError(f"the model answered HTTP {answer.status_code}")
        return _parsed(answer)


def _parsed(answer: httpx.Response) -> ModelAnswer:
    try:
        message = answer.json()["choices"][0]["message"]
        calls: list[ProposedCall] = [
            {"tool": call["function"]["name"], "arguments": json.loads(call["function"].get("arguments") or "{}")}
            for call in message.get("tool_calls") or []
        ]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelError("the model's answer is not a chat completion") from None
    if not all(isinstance(call["arguments"], dict) for call in calls):
        raise ModelError("the model wrote arguments that are not an object")
    return ModelAnswer(text=message.get("content") or "", calls=calls)


class CallableModel:
    """A Python function as the model: ``fn(agent, turn, tools)`` returns a ModelAnswer or ``{"text", "calls"}``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def answer(self, agent: str, turn: str, tools: list[ToolSchema]) -> ModelAnswer:
        try:
            answered = self.fn(agent, turn, tools)
        except Exception as exc:
            raise ModelError(f"the model function failed ({type(exc).__name__})") from exc
        if isinstance(answered, ModelAnswer):
            return answered
        if not isinstance(answered, Mapping):
            raise ModelError("the model function must return a ModelAnswer or a mapping with text and calls")
        return ModelAnswer(text=str(answered.get("text") or ""), calls=list(answered.get("calls") or []))


def build_model(config: ModelConfig, environ: Mapping[str, str]) -> Model:
    """The model an agent's ``model:`` section describes; the API key is read from the variable it names."""
    if config.python is not None:
        module_name, _, attribute = config.python.partition(":")
        try:
            return CallableModel(getattr(importlib.import_module(module_name), attribute))
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"cannot load the model function {config.python!r}: {exc}", key="model.python") from exc
    key = environ.get(config.api_key_env) if config.api_key_env else None
    if config.api_key_env and not key:
        unset = f"the environment variable {config.api_key_env} (model.api_key_env) is not set"
        raise ConfigError(unset, key="model.api_key_env")
    assert config.base_url is not None and config.model is not None, "ModelConfig requires both without python:"
    return OpenAIModel(config.base_url, config.model, key, timeout=config.timeout)
