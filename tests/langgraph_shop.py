"""LangGraph shop graphs for the door's tests, and a team's application with the door mounted.

``build_graph`` looks an order up, then interrupts before charging it.
``build_chat_graph`` is a chat: the person's message becomes a ``charge_card``
tool call (asking which order where the message names none), interrupted before
it runs; the call's result goes back to the model, which says what happened.
LANGGRAPH_LEDGER counts real charges, outside the graph; where LANGGRAPH_FAIL_ONCE
names a file that does not exist yet, the approved charge first creates it and
raises, as a card network that is down once would, before anything is charged;
where LANGGRAPH_PAID_THEN_FAILED does, the charge is made and then the node raises
once, as a timeout after the card network took the payment would; where
LANGGRAPH_PAID_THEN_HUNG does, the charge is made and the node then hangs once, for
a test to kill the worker mid-node.

``build_refund_graph`` and ``build_review_graph`` refund the orders a person's
message names (40 each), once a person approves, and may change, the call: the first
asks in the door's own shape, naming ``amount`` editable; the second as LangChain's
``HumanInTheLoopMiddleware`` does (an ``HITLRequest``, answered with its
``decisions``), before a tools node runs what was approved.  Each keeps what it did
in a ``Till``.

``app`` is the door under /agent of a team's Starlette application, over the
checkpointer LANGGRAPH_CHECKPOINTS names (a SQLite file, or a postgresql:// URL)
and the stalwart store LANGGRAPH_RUNS names, so uvicorn processes can serve one
thread together.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route


class Order(TypedDict, total=False):
    order_id: str
    total: int
    charged: dict | None


def look_up(state: Order) -> Order:
    return {"total": 40}


def charge(state: Order) -> Order:
    decision = interrupt(
        {
            "tool": "charge_card",
            "arguments": {"order_id": state["order_id"], "amount": state["total"]},
            "origins": {"order_id": "typed", "amount": "result:look_up"},
            "reasons": ["write"],
        }
    )
    if decision != "approve":
        return {"charged": None}
    charge_card(state["order_id"])
    return {"charged": {"charge_id": f"ch-{state['order_id']}"}}


def charge_card(order_id: str) -> str:
    """The tool's side effect: one line in the ledger per real charge."""
    marker = os.environ.get("LANGGRAPH_FAIL_ONCE")
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        raise ConnectionError("the card network is down")
    with open(os.environ["LANGGRAPH_LEDGER"], "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps({"charge": order_id}) + "\n")
    hung = os.environ.get("LANGGRAPH_PAID_THEN_HUNG")
    if hung and not os.path.exists(hung):
        open(hung, "w").close()
        time.sleep(120)
    paid_then_failed = os.environ.get("LANGGRAPH_PAID_THEN_FAILED")
    if paid_then_failed and not os.path.exists(paid_then_failed):
        open(paid_then_failed, "w").close()
        raise TimeoutError("the card network took the charge, then timed out")
    return f"ch-{order_id}"


def build_graph(checkpointer):
    graph = StateGraph(Order)
    graph.add_node("look_up", look_up)
    graph.add_node("charge", charge)
    graph.add_edge(START, "look_up")
    graph.add_edge("look_up", "charge")
    graph.add_edge("charge", END)
    return graph.compile(checkpointer=checkpointer)


def model(state: MessagesState) -> dict:
    """A model as far as the tests need one: a charge for the order the person names, then what became of it."""
    last = state["messages"][-1]
    if last.type == "tool":
        said = f"Charged order {last.content[3:]}: {last.content}." if last.status == "success" else last.content
        return {"messages": [AIMessage(said)]}
    named = re.search(r"\d+", str(last.content))
    order_id = named.group() if named else str(interrupt({"question": "Which order should I charge?"}))
    call = {"name": "charge_card", "args": {"order_id": order_id, "amount": 40}, "id": f"call_{order_id}"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def tools(state: MessagesState) -> dict:
    """Each tool call, once a person approves it: skip and cancel_all answer the model instead of charging."""
    asked = state["messages"][-1]
    assert isinstance(asked, AIMessage), "the tools node follows the model's call"
    [call] = asked.tool_calls
    decision = interrupt({"tool": call["name"], "arguments": call["args"], "reasons": ["write"]})
    if decision != "approve":
        said = "Nothing was charged: the charge was cancelled." if decision == "cancel_all" else "Skipped the charge."
        return {"messages": [ToolMessage(said, tool_call_id=call["id"], name=call["name"], status="error")]}
    charged = charge_card(call["args"]["order_id"])
    return {"messages": [ToolMessage(charged, tool_call_id=call["id"], name=call["name"])]}


def build_chat_graph(checkpointer):
    return looped(model, "tools", tools, checkpointer)


def looped(model_node, name: str, node, checkpointer):
    """A model and the node that makes its calls, taking turns until the model calls nothing."""
    graph = StateGraph(MessagesState)
    graph.add_node("model", model_node)
    graph.add_node(name, node)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", lambda state: name if state["messages"][-1].tool_calls else END)
    graph.add_edge(name, "model")
    return graph.compile(checkpointer=checkpointer)


@dataclass
class Till:
    """What a refund graph did: each refund it made, each value ``interrupt()`` returned to it, and how many
    refunds are still to fail before one is made (as a bank that is down would)."""

    refunds: list[dict[str, Any]] = field(default_factory=list)
    heard: list[Any] = field(default_factory=list)
    failures: int = 0

    def refund(self, args: Mapping[str, Any]) -> str:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the bank is down")
        self.refunds.append(dict(args))
        return f"refunded {args['amount']} to order {args['order_id']}"


def refund_model(state: MessagesState) -> dict:
    """A model as far as the refunds need one: a refund of 40 for each order the person names, then what became
    of the last."""
    last = state["messages"][-1]
    if last.type == "tool":
        said = f"Done: {last.content}." if last.status == "success" else f"Nothing was refunded: {last.content}"
        return {"messages": [AIMessage(said)]}
    orders = re.findall(r"\d+", str(last.content))
    calls = [{"name": "refund_order", "args": {"order_id": o, "amount": 40}, "id": f"call_{o}"} for o in orders]
    return {"messages": [AIMessage("", tool_calls=calls)]}


def _asked(state: MessagesState) -> AIMessage:
    said = next(m for m in reversed(state["messages"]) if m.type == "ai")
    assert isinstance(said, AIMessage), "the model's message, with the calls it asks for"
    return said


def build_refund_graph(checkpointer, till: Till, *, schema: Mapping[str, Any] | None = None):
    """One node asks a person about the refund (``amount`` editable, typed by ``schema`` where given) and makes it
    as approved."""

    def refund(state: MessagesState) -> dict:
        [call] = _asked(state).tool_calls
        origins = {name: "model" for name in call["args"]}
        asked = {"tool": call["name"], "arguments": call["args"], "origins": origins, "editable": ["amount"]}
        decision = interrupt(asked | ({"schema": schema} if schema else {}))
        till.heard.append(decision)
        if isinstance(decision, Mapping) and decision["decision"] == "approve":
            approved = decision["arguments"]
        elif decision == "approve":
            approved = call["args"]
        else:
            declined = ToolMessage("the person declined", tool_call_id=call["id"], name=call["name"], status="error")
            return {"messages": [declined]}
        return {"messages": [ToolMessage(till.refund(approved), tool_call_id=call["id"], name=call["name"])]}

    return looped(refund_model, "refund", refund, checkpointer)


def build_review_graph(
    checkpointer,
    till: Till,
    *,
    allowed: Sequence[str] = ("approve", "edit", "reject"),
    args_schema: Mapping[str, Any] | None = None,
):
    """The model's calls reviewed as LangChain's HumanInTheLoopMiddleware reviews them, after the model: one
    ``HITLRequest`` for all of them, whose decisions approve a call, replace it (edit) or answer it with a tool
    message that it was rejected; then a tools node runs the calls left."""

    def review(state: MessagesState) -> dict:
        said = _asked(state)
        review_config: dict[str, Any] = {"action_name": "refund_order", "allowed_decisions": list(allowed)}
        review_config |= {"args_schema": args_schema} if args_schema else {}
        requests = [
            {"name": c["name"], "args": c["args"], "description": f"Refund order {c['args']['order_id']}?"}
            for c in said.tool_calls
        ]
        response = interrupt({"action_requests": requests, "review_configs": [review_config for _ in requests]})
        till.heard.append(response)
        kept, rejected = [], []
        for call, decision in zip(said.tool_calls, response["decisions"], strict=True):
            if decision["type"] not in allowed:
                raise ValueError(f"decision {decision['type']!r} is not allowed")
            if decision["type"] == "approve":
                kept.append(call)
            elif decision["type"] == "edit":
                edited = decision["edited_action"]
                kept.append({**call, "name": edited["name"], "args": edited["args"]})
            else:
                message = decision.get("message") or "rejected"
                rejected.append(ToolMessage(message, tool_call_id=call["id"], name=call["name"], status="error"))
        return {"messages": [AIMessage(said.content, tool_calls=kept, id=said.id), *rejected]}

    def tools(state: MessagesState) -> dict:
        answered = {m.tool_call_id for m in state["messages"] if m.type == "tool"}
        due = [c for c in _asked(state).tool_calls if c["id"] not in answered]
        return {"messages": [ToolMessage(till.refund(c["args"]), tool_call_id=c["id"], name=c["name"]) for c in due]}

    def after_review(state: MessagesState) -> str:
        answered = {m.tool_call_id for m in state["messages"] if m.type == "tool"}
        return "tools" if any(c["id"] not in answered for c in _asked(state).tool_calls) else "model"

    graph = StateGraph(MessagesState)
    graph.add_node("model", refund_model)
    graph.add_node("review", review)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", lambda state: "review" if state["messages"][-1].tool_calls else END)
    graph.add_conditional_edges("review", after_review)
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=checkpointer)


def sqlite_saver(path: str) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


def postgres_saver(url: str):
    """A PostgresSaver on its own connection, its tables set up."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg import Connection
    from psycopg.rows import dict_row

    saver = PostgresSaver(Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row))
    saver.setup()
    return saver


def saver_for(where: str):
    return postgres_saver(where) if where.startswith("postgresql://") else sqlite_saver(where)


def team_app():
    """A team's existing application, with the door mounted under /agent."""
    from stalwart_agents.langchain.server import langgraph_app

    graph = build_chat_graph(saver_for(os.environ["LANGGRAPH_CHECKPOINTS"]))
    door = langgraph_app(
        graph,
        storage=os.environ["LANGGRAPH_RUNS"],
        operator_token=os.environ.get("LANGGRAPH_OPERATOR"),
        hold_seconds=float(os.environ.get("LANGGRAPH_HOLD_SECONDS", "300")),
    )
    return Starlette(routes=[Route("/healthz", lambda request: JSONResponse({"ok": True})), Mount("/agent", app=door)])


app = team_app() if "LANGGRAPH_CHECKPOINTS" in os.environ else None
