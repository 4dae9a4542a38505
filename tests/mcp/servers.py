"""The mail server of mail.py, started for a test over stdio (by the agent) or streamable HTTP (here)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from stalwart_agents import Desk

SERVER = Path(__file__).with_name("mail.py")
TOKEN = "s3cret-mail-token"


@dataclass
class Mail:
    """One test's mail server: how agent.yaml reaches it, and what ran on it (its ledger)."""

    transport: str
    entry: dict
    ledger: Path
    changed: Path
    process: subprocess.Popen | None = None
    desks: list[Desk] = field(default_factory=list)

    def desk(self, folder: Path, tools: dict | None = None, **agent: object) -> Desk:
        """A desk whose one agent has this server (with ``tools`` overrides) as ``mail``."""
        server = {"name": "mail", **self.entry, **({"tools": tools} if tools else {})}
        config = {"storage": "memory://", "agents": [{"name": "desk", "mcp": [server], **agent}]}
        path = folder / "agent.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        desk = Desk.from_file(path)
        self.desks.append(desk)
        return desk

    def calls(self, tool: str | None = None) -> list[dict]:
        lines = [json.loads(line) for line in self.ledger.read_text().splitlines() if line]
        return [entry for entry in lines if tool is None or entry["tool"] == tool]

    def kill_when_called(self, tool: str) -> None:
        """Kill the server process as soon as ``tool`` has started on it (from another thread)."""
        deadline = time.monotonic() + 20
        while not self.calls(tool):
            if time.monotonic() > deadline:
                raise AssertionError(f"{tool} was never called")
            time.sleep(0.02)
        os.kill(self.calls(tool)[-1]["pid"], signal.SIGKILL)


@contextlib.contextmanager
def mail_server(transport: str, folder: Path) -> Iterator[Mail]:
    """The server for one test; its environment (ledger, change flag, token) set in this process too."""
    ledger, changed = folder / "mail-ledger.jsonl", folder / "mail-changed"
    ledger.touch()
    env = {"MCP_LEDGER": str(ledger), "MCP_CHANGED": str(changed), "MAIL_TOKEN": TOKEN}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    mail: Mail | None = None
    try:
        if transport == "stdio":
            passed = {name: {"env": name} for name in ("MCP_LEDGER", "MCP_CHANGED")}
            mail = Mail(transport, {"command": [sys.executable, str(SERVER)], "env": passed}, ledger, changed)
        else:
            port = _free_port()
            process = subprocess.Popen(
                [sys.executable, str(SERVER), "http", str(port)],
                env={**os.environ, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _wait_for(port, process)
            entry = {"url": f"http://127.0.0.1:{port}/mcp", "headers": {"Authorization": {"env": "MAIL_TOKEN"}}}
            mail = Mail(transport, entry, ledger, changed, process)
        yield mail
    finally:
        if mail is not None:
            for desk in mail.desks:
                desk.close()
        from stalwart_agents.tools.mcp_servers import close_all

        close_all()
        if mail is not None and mail.process is not None:
            mail.process.kill()
            mail.process.wait()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("the MCP server exited before it listened")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise AssertionError("the MCP server never listened")
