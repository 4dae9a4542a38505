"""A LangGraph shop graph for the door's tests: look an order up, then interrupt before charging it.

``app`` is the door mounted on a team's own Starlette application, over a SqliteSaver
and a stalwart SQLite store named by LANGGRAPH_CHECKPOINTS and LANGGRAPH_RUNS, so two
uvicorn processes can serve the same thread; LANGGRAPH_LEDGER counts real charges.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
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
    decision = interrupt({"tool": "charge_card", "arguments": {"order_id": state["order_id"], "amount": state["total"]},
                          "origins": {"order_id": "typed", "amount": "result:look_up"}, "reasons": ["write"]})
    if decision != "approve":
        return {"charged": None}
    with open(os.environ["LANGGRAPH_LEDGER"], "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps({"charge": state["order_id"]}) + "\n")
    return {"charged": {"charge_id": f"ch-{state['order_id']}"}}


def build_graph(checkpointer):
    graph = StateGraph(Order)
    graph.add_node("look_up", look_up)
    graph.add_node("charge", charge)
    graph.add_edge(START, "look_up")
    graph.add_edge("look_up", "charge")
    graph.add_edge("charge", END)
    return graph.compile(checkpointer=checkpointer)


def sqlite_saver(path: str) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


def team_app():
    """A team's existing application, with the door mounted under /agent."""
    from stalwart_agents.langchain.server import langgraph_app

    graph = build_graph(sqlite_saver(os.environ["LANGGRAPH_CHECKPOINTS"]))
    door = langgraph_app(graph, storage=f"sqlite:///{os.environ['LANGGRAPH_RUNS']}")
    return Starlette(routes=[Route("/healthz", lambda request: JSONResponse({"ok": True})), Mount("/agent", app=door)])


app = team_app() if "LANGGRAPH_CHECKPOINTS" in os.environ else None
