"""A new user's first hour, as they meet it: `stalwart serve` run as a person runs it, over a real socket.

Every mistake they can make on the way in is one line on stderr naming the fix, and a non-zero exit.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jwt
import pytest

from .conftest import ROOT, SHOP
from .server import free_port, stalwart_serve, wait_until_healthy

SECRET = "a-first-hour-secret-of-at-least-32-bytes"
TEAM, AUDIENCE = "https://team.example", "stalwart-shop"


def serve(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`stalwart serve` that is expected to refuse to start."""
    return subprocess.run(
        [sys.executable, "-m", "stalwart_agents", "serve", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The refusal: exit 2, nothing on stdout (no banner), one line on stderr."""
    assert (done.returncode, done.stdout) == (2, ""), (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("stalwart: "), done.stderr
    return done.stderr


# ------------------------------------------------------------------ 12: the store outside the agent's folder


def test_the_readmes_first_command_keeps_its_store_in_the_state_folder_not_the_agents(tmp_path, monkeypatch, ledger):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    before = set((ROOT / "examples" / "shop").iterdir())
    with stalwart_serve(SHOP) as (base, process):
        turn = httpx.post(f"{base}/threads/u-17/messages", json={"text": "charge 40 to order 4411"})
        assert turn.status_code == 200 and turn.json()["waiting"], turn.text
    assert set((ROOT / "examples" / "shop").iterdir()) == before
    [store] = (tmp_path / "state" / "stalwart").glob("shop-*.db")
    assert (store.parent.stat().st_mode & 0o777, store.stat().st_mode & 0o777) == (0o700, 0o600)
    assert process.stdout is not None and f"storage sqlite:///{store})" in process.stdout.readline()


# ------------------------------------------------------------------ 13: the documented default question

WORDLESS = """\
agents:
  - name: bank
    tools: tools.py
"""
WORDLESS_TOOLS = """\
from stalwart_agents import tool


@tool(write=True, says=["transfer {amount:number} to {target}"])
def transfer(amount: float, target: str) -> dict:
    return {"sent": amount, "to": target}


@tool(write=True, label="Close an account", says=["close account {account}"])
def close(account: str) -> dict:
    return {"closed": account}
"""


def test_a_tool_that_gives_no_wording_asks_run_tool(tmp_path):
    (tmp_path / "agent.yaml").write_text(WORDLESS)
    (tmp_path / "tools.py").write_text(WORDLESS_TOOLS)
    with stalwart_serve(tmp_path / "agent.yaml", "--storage", "memory://") as (base, _):
        [transfer] = httpx.post(f"{base}/threads/t/messages", json={"text": "transfer 5 to ana"}).json()["waiting"]
        [close] = httpx.post(f"{base}/threads/c/messages", json={"text": "close account 7"}).json()["waiting"]
        listed = httpx.get(f"{base}/threads/t/interrupts").json()["waiting"]
    assert (transfer["question"], transfer["card"]["question"]) == ("Run transfer?", "Run transfer?")
    assert listed[0]["question"] == "Run transfer?"
    assert close["question"] == "Close an account?"  # the tool's own words, asked


# ------------------------------------------------------------------ 15: a tools module that is not there


def test_a_missing_dotted_tools_module_is_one_line_naming_the_fix(tmp_path):
    config = tmp_path / "agent.yaml"
    config.write_text("agents:\n  - name: refunds\n    tools: mycompany.refund_tools\n")
    said = one_line(serve(str(config), "--storage", "memory://"))
    assert said.startswith(f"stalwart: {config}:3: agents[0].tools: cannot import mycompany.refund_tools ")
    assert "PYTHONPATH" in said and "tools: refund_tools.py" in said


def test_a_tools_module_whose_own_import_is_missing_keeps_its_own_error(tmp_path):
    """Only the module's absence is explained: one it imports that is missing is the team's bug, and says so."""
    (tmp_path / "teamtools.py").write_text("import not_installed_anywhere\n")
    config = tmp_path / "agent.yaml"
    config.write_text("agents:\n  - name: refunds\n    tools: teamtools\n")
    path = os.pathsep.join(filter(None, (str(tmp_path), os.environ.get("PYTHONPATH"))))
    done = serve(str(config), "--storage", "memory://", env={"PYTHONPATH": path})
    assert done.returncode != 0 and "No module named 'not_installed_anywhere'" in done.stderr


# ------------------------------------------------------------------ 16: the claims a token needs


def test_a_token_without_a_claim_is_refused_naming_it_and_the_ones_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("STALWART_JWT_SECRET", SECRET)
    flags = ("--auth", "hs256", "--jwt-issuer", TEAM, "--jwt-audience", AUDIENCE, "--storage", "memory://")
    claims = {"sub": "ana", "iss": TEAM, "aud": AUDIENCE, "exp": int(time.time()) + 300}
    with stalwart_serve(SHOP, *flags) as (base, _):
        for missing in ("exp", "sub", "iss", "aud"):
            token = jwt.encode({k: v for k, v in claims.items() if k != missing}, SECRET, algorithm="HS256")
            answer = httpx.get(f"{base}/threads/t/interrupts", headers={"Authorization": f"Bearer {token}"})
            assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized")
            assert answer.json()["message"] == (
                f"the bearer token was refused: it has no {missing!r} claim; a token here carries exp, sub, iss, aud"
            )
        token = jwt.encode(claims, SECRET, algorithm="HS256")
        assert httpx.get(f"{base}/threads/t/interrupts", headers={"Authorization": f"Bearer {token}"}).status_code in (
            200,
            404,
        )


# ------------------------------------------------------------------ 17: serve's own messages


def test_a_port_in_use_is_one_line_naming_it_and_the_fix_before_any_banner():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = one_line(serve(str(SHOP), "--storage", "memory://", "--port", str(port)))
    assert said == (
        f"stalwart: port {port} on 127.0.0.1 is in use: stop what holds it, or serve on another port with --port\n"
    )


def test_the_operator_token_is_read_from_stalwart_operator_token(monkeypatch):
    monkeypatch.delenv("QLS_OPERATOR_TOKEN", raising=False)
    monkeypatch.setenv("STALWART_OPERATOR_TOKEN", "op-token-of-the-team")
    with stalwart_serve(SHOP, "--storage", "memory://") as (base, _):
        httpx.post(f"{base}/threads/u-1/messages", json={"text": "charge 40 to order 4411"})
        wrong = httpx.post(f"{base}/threads/u-1/rollback", headers={"Authorization": "Bearer nope"})
        right = httpx.post(f"{base}/threads/u-1/rollback", headers={"Authorization": "Bearer op-token-of-the-team"})
    assert (wrong.status_code, right.status_code) == (403, 200), (wrong.text, right.text)


def test_the_documented_operator_token_name_is_read_first_and_never_printed(monkeypatch):
    monkeypatch.setenv("STALWART_OPERATOR_TOKEN", "second-name")
    monkeypatch.setenv("QLS_OPERATOR_TOKEN", "documented-name")
    with stalwart_serve(SHOP, "--storage", "memory://") as (base, process):
        httpx.post(f"{base}/threads/u-1/messages", json={"text": "charge 40 to order 4411"})
        second = httpx.post(f"{base}/threads/u-1/rollback", headers={"Authorization": "Bearer second-name"})
        right = httpx.post(f"{base}/threads/u-1/rollback", headers={"Authorization": "Bearer documented-name"})
        process.terminate()
        said = process.communicate(timeout=10)[0]
    assert (second.status_code, right.status_code) == (403, 200), right.text
    assert "documented-name" not in said and "second-name" not in said


def test_without_any_operator_token_the_refusal_names_the_variable(monkeypatch):
    for name in ("STALWART_OPERATOR_TOKEN", "QLS_OPERATOR_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with stalwart_serve(SHOP, "--storage", "memory://") as (base, _):
        off = httpx.post(f"{base}/threads/u-1/rollback", headers={"Authorization": "Bearer x"})
    assert off.status_code == 403 and "QLS_OPERATOR_TOKEN" in off.json()["message"]


def test_a_webhook_url_without_its_secret_is_one_line_naming_the_secrets_variable():
    env = {"STALWART_WEBHOOK_URL": "https://ops.example/hooks/stalwart", "STALWART_WEBHOOK_SECRET": ""}
    said = one_line(serve(str(SHOP), "--storage", "memory://", "--port", str(free_port()), env=env))
    assert "set STALWART_WEBHOOK_SECRET to the secret your receiver verifies them with" in said


def test_an_unknown_storage_scheme_lists_every_store_serve_takes():
    said = one_line(serve(str(SHOP), "--storage", "redis://cache:6379"))
    for scheme in ("memory://", "sqlite:///PATH", "postgres://", "postgresql://", "dynamodb://TABLE?region=", "moto"):
        assert scheme in said, scheme


def test_the_banner_names_the_webhook_by_scheme_host_and_port_only(monkeypatch):
    monkeypatch.setenv("STALWART_WEBHOOK_URL", "https://ops.example:8443/hooks/k-capability?sig=s3cret")
    monkeypatch.setenv("STALWART_WEBHOOK_SECRET", "whsec-first-hour")
    with stalwart_serve(SHOP, "--storage", "memory://") as (_, process):
        process.terminate()
        said = process.communicate(timeout=10)[0]
    assert "stalwart serve: new pauses are posted to https://ops.example:8443 (STALWART_WEBHOOK_URL)\n" in said
    assert "k-capability" not in said and "s3cret" not in said and "whsec" not in said


# ------------------------------------------------------------------ 18: the examples without activating anything


def test_the_mcp_examples_serve_command_works_without_the_environment_activated(tmp_path):
    """As the README installs: .venv in the checkout, never activated, so the `python` on PATH lacks the SDK."""
    pytest.importorskip("mcp")
    (command,) = [line for line in readme_commands(ROOT / "examples" / "mcp" / "README.md") if "stalwart serve" in line]
    port = str(free_port())
    argv = command.replace("examples/mcp", str(ROOT / "examples" / "mcp")).replace("8700", port).split()
    (tmp_path / ".venv").symlink_to(sys.prefix)
    venv_bin = os.path.join(sys.prefix, "bin")
    path = os.pathsep.join(part for part in os.environ["PATH"].split(os.pathsep) if part != venv_bin)
    process = subprocess.Popen(
        argv,
        cwd=tmp_path,
        env={**os.environ, "PATH": path},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}")
        read = httpx.post(
            f"http://127.0.0.1:{port}/threads/ana/messages", json={"text": "search the inbox for invoice"}, timeout=60
        )
    finally:
        process.terminate()
        said = process.communicate(timeout=10)[0]
    assert read.status_code == 200, (read.text, said)
    assert read.json()["steps"][0]["result"]["messages"]["m1"]["subject"] == "Invoice 1042"


def readme_commands(readme: Path) -> list[str]:
    return [line for block in re.findall(r"```sh\n(.*?)```", readme.read_text(), re.S) for line in block.splitlines()]


# ------------------------------------------------------------------ 14: the interface's install, as it really works

FRONTEND_README = (ROOT / "frontend" / "README.md").read_text()
SERVICE = "https://agents.example.com"


def test_the_interfaces_readme_installs_nothing_by_name_and_every_bundle_it_loads_is_served(tmp_path):
    for readme in (FRONTEND_README, (ROOT / "README.md").read_text()):
        assert not re.search(r"npm (install|i) @stalwart-agents", readme), "there is no such package on npm"
        assert 'import "@stalwart-agents/agent-ui"' not in readme
    sources = set(re.findall(rf'<script type="module" src="{re.escape(SERVICE)}(/[^"]*)"', FRONTEND_README))
    assert sources == {"/agent-ui.js"}
    site = "https://shop.example"
    with stalwart_serve(SHOP, "--storage", "memory://", "--allowed-origin", site) as (base, _):
        for path in sources:
            loaded = httpx.get(f"{base}{path}", headers={"Origin": site, "Sec-Fetch-Mode": "cors"})
            assert loaded.status_code == 200 and loaded.headers["content-type"].startswith("text/javascript")
            assert loaded.headers["access-control-allow-origin"] == site
            assert loaded.content == (ROOT / "frontend" / "dist" / "agent-ui.js").read_bytes()


def test_building_from_the_checkout_gives_the_file_and_the_package_the_readme_names():
    assert "npm install && npm run build` writes `dist/agent-ui.js`" in FRONTEND_README.replace("\n  ", " ")
    manifest = json.loads((ROOT / "frontend" / "package.json").read_text())
    assert manifest["name"] == "@stalwart-agents/agent-ui"
    assert manifest["exports"]["."]["default"] == "./dist/agent-ui.js" and manifest["scripts"]["build"]
    assert (ROOT / "frontend" / "dist" / "agent-ui.js").is_file()
