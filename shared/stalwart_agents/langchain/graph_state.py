"""What a graph's state says to a person: the words of its reply, and the tool calls of the turn.

Messages are read by their LangChain ``type`` (``human``, ``ai``, ``tool``), so
this never imports LangChain; a state without ``messages`` has no words and no
calls to show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..engine.arguments import ArgumentDict
from ..engine.reply import CallOutcome

TurnInput = Callable[[str], Any]
"""How a person's text becomes the graph's input."""
ReplyWords = Callable[[Any], str]
"""How the graph's state values become the reply's words."""
Happened = Callable[[Any], Any]
"""The state update a door writes as a node a person said made its write, from the graph's state values."""


def said(text: str) -> dict[str, list[tuple[str, str]]]:
    """The default turn: the text as the person's message, for a graph whose state has ``messages``."""
    return {"messages": [("user", text)]}


def last_words(values: Any) -> str:
    """The default reply: the last message's text where the state has messages, else ``""``."""
    messages = _messages(values)
    return _text(messages[-1].content) if messages else ""


def tool_steps(values: Any) -> list[CallOutcome]:
    """The tool calls of the latest turn (the ToolMessages after its person's message), each with the arguments
    the model gave it (origin ``model``); a call whose message has ``status="error"`` failed."""
    messages = _messages(values)
    since = max((i for i, m in enumerate(messages) if m.type == "human"), default=-1)
    turn = messages[since + 1 :]
    asked = {call["id"]: call for m in turn if m.type == "ai" for call in (getattr(m, "tool_calls", None) or ())}
    tools = [m for m in turn if m.type == "tool"]
    return [_outcome(step, message, asked.get(message.tool_call_id)) for step, message in enumerate(tools, 1)]


def _outcome(step: int, message: Any, call: Mapping[str, Any] | None) -> CallOutcome:
    given = (call or {}).get("args") or {}
    arguments = [ArgumentDict(name=k, value=v, origin="model") for k, v in sorted(given.items())]
    text = _text(message.content)
    failed = getattr(message, "status", "success") == "error"
    tool = message.name or (call or {}).get("name") or ""
    return CallOutcome(
        step, tool, arguments, "failed" if failed else "done", None if failed else text, text if failed else None
    )


def _messages(values: Any) -> Sequence[Any]:
    messages = values.get("messages") if isinstance(values, Mapping) else getattr(values, "messages", None)
    return messages if isinstance(messages, Sequence) else []


def _text(content: Any) -> str:
    """A message's content as text: a string as it is, content blocks by their text parts."""
    if isinstance(content, str):
        return content
    parts = (block if isinstance(block, str) else block.get("text", "") for block in content or ())
    return "".join(part for part in parts if isinstance(part, str))


HAPPENED = "A person confirmed that this call happened; its result was not seen."


def happened(values: Any) -> Any:
    """What the door writes, as the node whose write a person said happened, before the graph carries on past it:
    for a graph of messages, a tool message for each call of the last AI message that has none (a model needs an
    answer to every call it made); for any other graph, nothing."""
    messages = _messages(values)
    said = next((m for m in reversed(messages) if m.type == "ai"), None)
    answered = {getattr(m, "tool_call_id", None) for m in messages if m.type == "tool"}
    calls = [c for c in (getattr(said, "tool_calls", None) or ()) if c["id"] not in answered]
    if not calls:
        return None
    from langchain_core.messages import ToolMessage

    return {"messages": [ToolMessage(HAPPENED, tool_call_id=c["id"], name=c["name"]) for c in calls]}
