"""<stalwart-chat> in a team's own page on another origin, exactly as frontend/README.md says to embed it: the bundle
loaded from the service's `/agent-ui.js`, the page's sign-in giving a token a moment after load, then `fetcher` set.

A real headless Chromium against a real `stalwart serve --auth hs256 --allowed-origin <the page's origin>`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import jwt
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from ..conftest import ROOT
from ..server import Later, serving
from .conftest import SIGNIN, SIGNIN_SECRET, Served
from .test_interface import CHARGE, confirm_box, say

README = (ROOT / "frontend" / "README.md").read_text()
SIGNING_IN = re.search(r"## Signing in\n.*?```html\n(.*?)```", README, re.S)
"""The page frontend/README.md shows, as a team copies it: the bundle from the service, a fetcher once signed in."""
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>The shop's own page</title>
<link rel="icon" href="data:,">
<style>
  stalwart-chat::part(choices) {{ outline: 3px solid rgb(1, 2, 3); }}
  stalwart-chat::part(arguments) {{ outline: 4px dashed rgb(4, 5, 6); }}
  stalwart-chat::part(trace) {{ outline: 5px dotted rgb(7, 8, 9); }}
</style>
</head>
<body>
{embedded}
</body>
</html>
"""
SIGN_IN = """export async function getAccessToken() {
  return (await fetch('/token')).text();
}
"""
"""The team's sign-in module the README's page imports: its token comes a moment after the page loads."""


def host_page(base: str) -> FastAPI:
    """The team's site: its page, and a sign-in that hands the page a token after a moment."""
    app = FastAPI()

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        assert SIGNING_IN is not None, "frontend/README.md shows how a page signs the chat in"
        return PAGE.format(embedded=SIGNING_IN.group(1).replace("https://agents.example.com", base))

    @app.get("/your-sign-in.js")
    def sign_in() -> Response:
        return Response(SIGN_IN, media_type="text/javascript")

    @app.get("/token", response_class=PlainTextResponse)
    def token() -> str:
        time.sleep(0.3)
        claims = {"sub": "ana", "iss": "test", "aud": "stalwart", "exp": int(time.time()) + 600}
        return jwt.encode(claims, SIGNIN_SECRET, algorithm="HS256")

    return app


@pytest.fixture
def embedded(tmp_path) -> Iterator[tuple[str, str]]:
    """The service, and the team's page on another origin it lists; both on 127.0.0.1."""
    later = Later()
    with serving(later) as site:
        service = Served(
            f"sqlite:///{tmp_path / 'runs.db'}",
            tmp_path / "ledger.jsonl",
            "operator-for-browser-tests",
            options=[*SIGNIN, "--allowed-origin", site],
            env={"STALWART_JWT_SECRET": SIGNIN_SECRET},
        )
        service.start()
        later.app = host_page(service.base)
        try:
            yield site, service.base
        finally:
            service.stop()


def test_embedded_with_a_fetcher_set_after_sign_in_the_load_makes_no_failed_request_or_console_error(browser, embedded):
    site, _ = embedded
    context = browser.new_context()
    page = context.new_page()
    failed, errors = [], []
    page.on(
        "response",
        lambda response: failed.append(f"{response.status} {response.url}") if response.status >= 400 else None,
    )
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site + "/")
    page.wait_for_function("() => document.querySelector('stalwart-chat')?.fetcher !== fetch")
    page.wait_for_load_state("networkidle")
    assert (failed, errors) == ([], [])

    say(page, CHARGE)
    confirm_box(page)
    page.wait_for_load_state("networkidle")
    assert (failed, errors) == ([], [])
    context.close()


def test_every_documented_part_of_what_the_chat_nests_is_styled_from_the_page(browser, embedded):
    site, _ = embedded
    context = browser.new_context()
    page = context.new_page()
    page.goto(site + "/")
    page.wait_for_function("() => document.querySelector('stalwart-chat')?.fetcher !== fetch")
    say(page, CHARGE)
    confirm_box(page)
    outline = """([selector, part]) => {
        const chat = document.querySelector('stalwart-chat').shadowRoot;
        const host = chat.querySelector(selector);
        const inner = host.shadowRoot.querySelector(`[part~="${part}"]`);
        return getComputedStyle(inner).outline;
    }"""
    assert page.evaluate(outline, ["stalwart-confirm", "choices"]) == "rgb(1, 2, 3) solid 3px"
    assert page.evaluate(outline, ["stalwart-confirm", "arguments"]) == "rgb(4, 5, 6) dashed 4px"
    assert page.evaluate(outline, ["stalwart-trace", "trace"]) == "rgb(7, 8, 9) dotted 5px"
    context.close()
