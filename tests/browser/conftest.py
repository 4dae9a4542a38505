"""A real headless Chromium (Debian's package, driven by Playwright) against a real `stalwart serve`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..server import free_port, wait_until_healthy

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = ROOT / "build" / "screenshots"
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


@pytest.fixture(scope="package")
def browser():
    """One Chromium for the browser tests (each test opens a context of its own), stopped after the last of them:
    Playwright's sync API keeps an event loop running in this thread until it stops, and the Lambda tests after
    these need the thread's loop free for Mangum."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (scripts/test installs it)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


class Served:
    """`stalwart serve` on the shop example (or another agent file) in its own process; ``restart`` keeps its port
    and its store.

    ``options`` and ``env`` are added to its command line and environment (authentication, say)."""

    def __init__(
        self,
        storage: str,
        ledger: Path,
        operator_token: str,
        options: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        config: Path = SHOP,
    ) -> None:
        self.port, self.storage, self.ledger, self.token = free_port(), storage, ledger, operator_token
        self.options, self.env, self.config = list(options), dict(env or {}), config
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "stalwart_agents",
            "serve",
            str(self.config),
            "--port",
            str(self.port),
            "--storage",
            self.storage,
            "--operator-token",
            self.token,
            *self.options,
        ]
        env = {**os.environ, "STALWART_SHOP_LEDGER": str(self.ledger), **self.env}
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_healthy(self.base)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


SIGNIN_SECRET = "a shared secret for the browser tests, 32 bytes or more"
SIGNIN = ["--auth", "hs256", "--jwt-issuer", "test", "--jwt-audience", "stalwart"]
"""`stalwart serve` with people signed in: HS256 tokens, issuer ``test``, audience ``stalwart``, SIGNIN_SECRET."""


def stalwart_serving(tmp_path: Path, *, signed_in: bool = False, config: Path = SHOP) -> Iterator[Served]:
    """`stalwart serve` on ``config`` with its store and ledger in ``tmp_path``, for the length of the generator."""
    options, env = (SIGNIN, {"STALWART_JWT_SECRET": SIGNIN_SECRET}) if signed_in else ((), None)
    server = Served(
        f"sqlite:///{tmp_path / 'runs.db'}",
        tmp_path / "ledger.jsonl",
        "operator-for-browser-tests",
        options=options,
        env=env,
        config=config,
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture
def served(tmp_path):
    yield from stalwart_serving(tmp_path)


@pytest.fixture
def page(browser, served):
    """A fresh page on the served interface; every request it makes is recorded in ``page.requests_made``."""
    context = browser.new_context()
    opened = context.new_page()
    opened.requests_made = []
    opened.on("request", lambda request: opened.requests_made.append(request.url))
    opened.goto(served.base + "/")
    yield opened
    context.close()
