"""An MCP tool call's overhead against a direct Python tool: the same read, turn by turn, through one desk.

Three agents of one agent.yaml run the same read-only lookup (``search the inbox
for ...``): ``direct`` as a Python @tool, ``stdio`` from examples/mcp/server.py
started by the agent, ``http`` from the same server over streamable HTTP on
127.0.0.1.  Each turn is a new thread with a new query.  Runs are interleaved
(direct, stdio, http, direct, ...); each figure is the median of the runs.  An
MCP call is two requests to the server: the tool list read again (the check that
the tool is still as the agent read it) and the call.

    .venv/bin/python bench/mcp_overhead.py [turns per run] [runs]
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from stalwart_agents import Desk

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "examples" / "mcp" / "server.py"
AGENTS = ("direct", "stdio", "http")

TOOLS = """
from stalwart_agents import tool

INBOX = {
    "m1": {"from": "ana@example.com", "subject": "Invoice 1042"},
    "m2": {"from": "bo@example.com", "subject": "Lunch"},
}


@tool(says=["search the inbox for {query:text}"])
def search_inbox(query: str) -> dict:
    found = {id: m for id, m in INBOX.items() if query.lower() in m["subject"].lower()}
    return {"query": query, "messages": found}
"""


def config(port: int) -> str:
    says = "tools: {search_inbox: {says: ['search the inbox for {query:text}']}}"
    return textwrap.dedent(f"""
        storage: memory://
        agents:
          - name: direct
            tools: tools.py
          - name: stdio
            mcp:
              - name: mail
                command: [{sys.executable}, {SERVER}]
                {says}
          - name: http
            mcp:
              - name: mail
                url: http://127.0.0.1:{port}/mcp
                {says}
    """)


def serve(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the MCP server did not start")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run(desk: Desk, agent: str, turns: int, run_number: int) -> float:
    """Seconds per turn over ``turns`` turns, each a new thread reading with a new query."""
    started = time.perf_counter()
    for turn in range(turns):
        reply = desk.send(f"{agent}-{run_number}-{turn}", f"search the inbox for q{run_number}x{turn}", agent=agent)
        assert reply.status == "done", reply.text
    return (time.perf_counter() - started) / turns


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    port = free_port()
    server = serve(port)
    try:
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "tools.py").write_text(TOOLS)
            (Path(folder) / "agent.yaml").write_text(config(port))
            with Desk.from_file(Path(folder) / "agent.yaml") as desk:
                for agent in AGENTS:
                    run(desk, agent, 10, -1)
                print(f"turns per run: {turns}, runs: {runs}, load before: {os.getloadavg()}")
                seconds: dict[str, list[float]] = {agent: [] for agent in AGENTS}
                for number in range(runs):
                    for agent in AGENTS:
                        seconds[agent].append(run(desk, agent, turns, number))
                print(f"load after: {os.getloadavg()}")
    finally:
        server.kill()
        server.wait()
    median = {agent: statistics.median(values) for agent, values in seconds.items()}
    for agent in AGENTS:
        print(f"{agent:7}: {median[agent] * 1000:7.3f} ms per turn (median), {1 / median[agent]:8.1f} turns/s")
    for agent in AGENTS[1:]:
        extra = (median[agent] - median["direct"]) * 1000
        print(f"{agent} / direct = {median[agent] / median['direct']:.2f} ({extra:+.3f} ms per call)")


if __name__ == "__main__":
    main()
