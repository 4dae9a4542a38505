"""A team's FastAPI application with its LangGraph graph, and the stalwart door mounted under /agent.

The graph is the usual shape: a model proposes tool calls, a review node stops
for a person with ``interrupt()`` before any of them runs (the person may lower
the amount before approving), and LangGraph's ToolNode runs what was approved.  The model here is a stand-in that reads
"refund order <id>" (so the example runs without an API key); a team's graph
calls its chat model there.  Checkpoints go to checkpoints.db and the door's
claims to runs.db, both in the working directory.  OPERATOR_TOKEN, where set,
turns the rollback route on.
"""

from __future__ import annotations

import os
import re
import sqlite3

from fastapi import FastAPI
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, interrupt

from stalwart_agents.langchain.server import langgraph_app

REFUNDS: list[str] = []


@tool
def refund_order(order_id: str, amount: int) -> str:
    """Refund an order to the card it was paid with."""
    REFUNDS.append(order_id)
    return f"refunded {amount} to order {order_id}"


def model(state: MessagesState) -> dict:
    """Stand-in for a chat model: a refund for the order the person names, then what became of it."""
    last = state["messages"][-1]
    if last.type == "tool":
        said = f"Done: {last.content}." if last.status == "success" else f"Nothing was refunded: {last.content}."
        return {"messages": [AIMessage(said)]}
    named = re.search(r"order (\d+)", str(last.content))
    order_id = named.group(1) if named else str(interrupt({"question": "Which order should I refund?"}))
    call = {"name": "refund_order", "args": {"order_id": order_id, "amount": 40}, "id": f"call_{order_id}"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def review(state: MessagesState) -> Command:
    """A person confirms each call before it runs, and may lower the amount first: ``interrupt()`` returns approve,
    skip or cancel_all, or an approval with the call's arguments as the person changed them."""
    asked = state["messages"][-1]
    assert isinstance(asked, AIMessage)  # the model's message, with the call it asks for
    [call] = asked.tool_calls
    origins = {name: "model" for name in call["args"]}
    decision = interrupt(
        {
            "tool": call["name"],
            "arguments": call["args"],
            "origins": origins,
            "irreversible": True,
            "editable": ["amount"],
            "schema": {"properties": {"amount": {"type": "integer", "minimum": 1, "maximum": call["args"]["amount"]}}},
        }
    )
    if decision == "approve":
        return Command(goto="tools")
    if isinstance(decision, dict) and decision["decision"] == "approve":
        approved = AIMessage(asked.content, tool_calls=[{**call, "args": decision["arguments"]}], id=asked.id)
        return Command(goto="tools", update={"messages": [approved]})
    said = "cancelled by the operator" if decision == "cancel_all" else "the person declined the refund"
    declined = ToolMessage(said, tool_call_id=call["id"], name=call["name"], status="error")
    return Command(goto="model", update={"messages": [declined]})


def build_graph(checkpointer: SqliteSaver):
    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("review", review)
    graph.add_node("tools", ToolNode([refund_order]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", lambda state: "review" if state["messages"][-1].tool_calls else END)
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=checkpointer)


graph = build_graph(SqliteSaver(sqlite3.connect("checkpoints.db", check_same_thread=False)))
app = FastAPI(title="shop")
app.mount("/agent", langgraph_app(graph, storage="sqlite:///runs.db", operator_token=os.environ.get("OPERATOR_TOKEN")))


@app.get("/healthz")
def healthz() -> dict[str, bool]:
    return {"ok": True}
