"""Real servers on 127.0.0.1 for tests: an application under uvicorn in a thread, or `stalwart serve` in a process."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from stalwart_agents import verify_signature


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


class Later:
    """An ASGI application given once its server is up, for a service that must first know its own address."""

    app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None, "a request came before the application was given"
        await self.app(scope, receive, send)


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
        raise AssertionError(process.communicate()[0]) from None
    try:
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=10)


class Receiver:
    """A team's webhook receiver on 127.0.0.1: it verifies each delivery with the package's verifier and keeps it.

    ``status`` other than 200 makes it answer that instead, as a receiver that is down would.
    """

    def __init__(self, secret: str) -> None:
        self.secret, self.status, self.url = secret, 200, ""
        self.got: list[dict] = []
        self.delivery_ids: list[str] = []
        self.tried: list[dict] = []  # every verified request, answered or refused

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/hook")
        async def hook(request: Request):
            raw = await request.body()
            verify_signature(self.secret, request.headers.get("stalwart-signature"), raw)
            self.tried.append({"body": json.loads(raw), "headers": dict(request.headers), "status": self.status})
            if self.status != 200:
                return JSONResponse({"down": True}, status_code=self.status)
            self.got.append(json.loads(raw))
            self.delivery_ids.append(request.headers["stalwart-delivery"])
            return {"ok": True}

        return app


@contextlib.contextmanager
def receiving(secret: str) -> Iterator[Receiver]:
    receiver = Receiver(secret)
    with serving(receiver.app()) as base:
        receiver.url = f"{base}/hook"
        yield receiver


def at_once(*calls):
    """Run each call in its own thread, all released together by one barrier; their results, in call order."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(index, call):
        barrier.wait()
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
