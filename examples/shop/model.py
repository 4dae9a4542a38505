"""The shop's stand-in for a model: a small Python function, so that delegate works offline, end to end.

It is not a language model.  It looks for an order number in a turn nothing else
read and proposes a call from a few words: "pay"/"bill"/"charge" with an amount
proposes ``charge_card``, "receipt" proposes ``send_receipt``, "messages" proposes
``read_messages``, anything else ``look_up_order``.  Like a real model, it only
proposes: its arguments have origin ``model``, so any write it proposes still
waits for a person to approve.

agent.yaml names it as ``model: {python: "model:propose"}`` (the tools file's folder
is on the import path once the tools load).  For a real model, any OpenAI-compatible
server with tool calling takes its place, as the comment in agent.yaml shows.
"""

from __future__ import annotations

import re

ORDER = re.compile(r"\b(\d{4})\b")
AMOUNT = re.compile(r"(?<![\d.])\$?(\d+(?:\.\d{1,2})?)(?![\d.])")


def propose(agent: str, turn: str, tools: list[dict]) -> dict:
    """``fn(agent, turn, tools)``: the text to say and the calls to propose, each a tool and its arguments."""
    found = ORDER.search(turn)
    offered = {tool["name"] for tool in tools}
    if found is None:
        return {"text": "I need an order number (like 4411) to help with that.", "calls": []}
    order_id, words = found.group(1), turn.lower()
    call = {"tool": "look_up_order", "arguments": {"order_id": order_id}}
    amounts = [m.group(1) for m in AMOUNT.finditer(turn) if m.group(1) != order_id]
    if re.search(r"\b(pay|bill|charge)\b", words) and amounts:
        amount = float(amounts[0]) if "." in amounts[0] else int(amounts[0])
        call = {"tool": "charge_card", "arguments": {"order_id": order_id, "amount": amount}}
    elif "receipt" in words:
        call = {"tool": "send_receipt", "arguments": {"order_id": order_id}}
    elif "message" in words:
        call = {"tool": "read_messages", "arguments": {"order_id": order_id}}
    if call["tool"] not in offered:
        return {"text": f"{agent} has no tool for that.", "calls": []}
    return {"text": f"I read that as {call['tool']} for order {order_id}.", "calls": [call]}
