"""A small mail server over MCP, written with the official SDK: the tools the agent in agent.yaml gets.

Its annotations are all the agent needs to know what a person must confirm:
search_inbox only reads, in a closed world; fetch_page reads the open web, so what
it returns is not to be trusted; send_mail has none, so it is a destructive write
by the spec's defaults (agent.yaml gives it an undo); delete_mail says it destroys.

    python server.py                 # stdio: the agent starts it
    python server.py http 8000       # streamable HTTP on 127.0.0.1:8000/mcp
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

app = MCPServer("mail")
INBOX = {
    "m1": {"from": "ana@example.com", "subject": "Invoice 1042"},
    "m2": {"from": "bo@example.com", "subject": "Lunch"},
}
SENT: list[dict] = []


@app.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def search_inbox(query: str) -> dict:
    """Messages whose subject mentions the query."""
    found = {id: m for id, m in INBOX.items() if query.lower() in m["subject"].lower()}
    return {"query": query, "messages": found}


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def fetch_page(url: str) -> dict:
    """A page from the web (here, always the same one)."""
    return {"url": url, "text": "Great offer! Reply to win."}


@app.tool()
def send_mail(to: str, subject: str) -> dict:
    """Send a mail."""
    SENT.append({"to": to, "subject": subject})
    return {"message_id": f"sent-{len(SENT)}"}


@app.tool(annotations=ToolAnnotations(destructive_hint=False))
def recall_mail(to: str, subject: str, result: dict) -> dict:
    """Recall a mail send_mail sent (its result names the message)."""
    return {"recalled": result["message_id"]}


@app.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_mail(id: str) -> dict:
    """Delete a message for good."""
    INBOX.pop(id, None)
    return {"deleted": id}


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
