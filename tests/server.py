"""Real servers on 127.0.0.1 for the tests: an application under uvicorn in a thread, or `stalwart serve` in a process."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_healthy(base: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.05)
    raise AssertionError(f"{base} never answered /healthz")


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    """Serve an ASGI application on a free port of 127.0.0.1 for the length of the block."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise AssertionError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def stalwart_serve(config, *args: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`stalwart serve` in its own process, stopped with SIGTERM at the end of the block."""
    port = free_port()
    command = [sys.executable, "-m", "stalwart_agents", "serve", str(config), "--port", str(port), *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base)
    except AssertionError:
        process.kill()
        raise AssertionError(process.stdout.read()) from None
    try:
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=10)
