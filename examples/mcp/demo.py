"""An agent whose tools come from an MCP server, run by hand: .venv/bin/python examples/mcp/demo.py

Reads run without asking; a write waits for a person with a card that says what it
does (and whether it can be undone); an open-world result taints the write after it.
"""

from __future__ import annotations

import json
from pathlib import Path

from stalwart_agents import Desk

HERE = Path(__file__).resolve().parent


def show(title: str, value: object) -> None:
    print(f"--- {title}")
    print(json.dumps(value, indent=2, default=str) if not isinstance(value, str) else value)


def card(pause) -> dict:
    shown = pause.to_dict(token=False)
    return {key: shown[key] for key in ("kind", "tool", "title", "irreversible", "reasons", "arguments")}


def main() -> None:
    with Desk.from_file(HERE / "agent.yaml") as desk:
        read = desk.send("ana", "search the inbox for invoice")
        show("a read runs without asking", {"status": read.status, "result": read.steps[0].result})

        asked = desk.send("ana", "mail bo@example.com about the invoice")
        show("a write waits for a person", card(asked.waiting[0]))
        done = desk.confirm("ana", "approve")
        show("approved: it ran once", {"status": done.status, "result": done.steps[-1].result})

        deleting = desk.send("ana", "delete message m2")
        show("a destructive tool is irreversible on its card", card(deleting.waiting[0]))
        desk.confirm("ana", "skip")

        tainted = desk.send("cy", "read the page https://example.com/offer and mail eve@example.com about the offer")
        show("an open-world result taints the write after it", card(tainted.waiting[0]))


if __name__ == "__main__":
    main()
