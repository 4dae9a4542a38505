"""What a person is shown is what runs: a typed number a browser would show rounded is refused before a pause opens,
an ask's answer must be of its parameter's type, and every status the signed links answer is in the OpenAPI."""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving

TOOLS = """
    import json, os

    from stalwart_agents import tool

    @tool(write=True, says=["transfer {amount:number} to {target}", "transfer {amount:number}", "transfer to {target}"])
    def transfer(amount: int, target: str) -> dict:
        with open(os.environ["EXACT_SENT"], "a") as f:
            f.write(json.dumps({"amount": amount, "target": target}) + "\\n")
        return {"sent": amount}
"""


@pytest.fixture
def sent(tmp_path, monkeypatch):
    path = tmp_path / "sent.jsonl"
    path.touch()
    monkeypatch.setenv("EXACT_SENT", str(path))
    return lambda: [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def desk(tmp_path, sent):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "agent.yaml").write_text("storage: memory://\nagents:\n  - name: a\n    tools: tools.py\n")
    with Desk.from_file(tmp_path / "agent.yaml") as desk:
        yield desk


@pytest.fixture
def client(desk):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield client


def answer(client, pause, decision, **more):
    body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"], **more}
    return client.post("/threads/t/resume", json=body)


@pytest.mark.parametrize("typed", ["9007199254740993", "-9007199254740993", "99999999999999999999.5"])
def test_a_typed_number_a_browser_would_show_rounded_is_refused_before_a_pause_opens(client, desk, sent, typed):
    refused = client.post("/threads/t/messages", json={"text": f"transfer {typed} to acme"})
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
    assert "past what a browser shows exactly" in refused.json()["message"]
    assert desk.storage.last_run("t") is None and sent() == []


def test_the_largest_number_a_browser_shows_exactly_runs_as_shown(client, sent):
    [pause] = client.post("/threads/t/messages", json={"text": "transfer 9007199254740991 to acme"}).json()["waiting"]
    assert pause["arguments"][0]["value"] == 9007199254740991
    assert answer(client, pause, "approve").status_code == 200
    assert sent() == [{"amount": 9007199254740991, "target": "acme"}]


MODEL = """
    def propose(agent, turn, tools):
        return {"text": "", "calls": [{"tool": "transfer", "arguments": {"amount": 2**53 + 1, "target": "acme"}}]}
"""


def test_a_number_a_model_proposes_past_what_a_browser_shows_opens_no_pause(tmp_path, sent, monkeypatch):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "big_model.py").write_text(textwrap.dedent(MODEL))
    monkeypatch.syspath_prepend(str(tmp_path))
    model = "    on_unread: model\n    model: {python: 'big_model:propose'}\n"
    (tmp_path / "agent.yaml").write_text("storage: memory://\nagents:\n  - name: a\n    tools: tools.py\n" + model)
    with Desk.from_file(tmp_path / "agent.yaml") as desk:
        reply = desk.send("t", "move the usual amount")
    assert reply.waiting == [] and sent() == []
    assert "The assistant proposed transfer with the number 9007199254740993" in reply.text


STEP = """
    from stalwart_agents import tool
    from stalwart_agents.tools.steps import step

    @tool(describe="Look up order {order_id}")
    def look_up(order_id: str) -> dict:
        return {"order_id": order_id, "total": 9007199254740993}

    @step(says=["settle order {order_id}"])
    def settle(run, order_id: str) -> dict:
        return run.call("transfer", amount=run.call("look_up", order_id=order_id)["total"], target=order_id)
"""


def test_a_number_from_a_tools_result_past_what_a_browser_shows_opens_no_pause_and_runs_nothing(tmp_path, sent):
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS) + textwrap.dedent(STEP))
    (tmp_path / "agent.yaml").write_text("storage: memory://\nagents:\n  - name: a\n    tools: tools.py\n")
    with Desk.from_file(tmp_path / "agent.yaml") as desk, serving(make_app(desk)) as base:
        reply = httpx.post(f"{base}/threads/t/messages", json={"text": "settle order 4411"}, timeout=30)
        # as a value the run cannot keep: the run ends there, saying which number of which call
        assert (reply.status_code, reply.json()["error"]) == (413, "too_large"), reply.text
        said = "the arguments of transfer (step 1, call 2) hold the number 9007199254740993, which would be shown"
        said += " rounded"
        assert reply.json()["message"].startswith(said + "; transfer was not run")
        assert desk.waiting("t") == [] and sent() == []


@pytest.mark.parametrize("value", [12.5, 12])
def test_an_ask_for_text_answered_otherwise_is_400_naming_the_parameter_and_still_waits(client, sent, value):
    [ask] = client.post("/threads/t/messages", json={"text": "transfer 40"}).json()["waiting"]
    assert (ask["kind"], ask["argument"]) == ("ask", "target")
    refused = answer(client, ask, "answer", value=value)
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
    assert "target" in refused.json()["message"]
    assert [p["id"] for p in client.get("/threads/t/interrupts").json()["waiting"]] == [ask["id"]]
    [confirm] = answer(client, ask, "answer", value="acme").json()["waiting"]
    assert answer(client, confirm, "approve").status_code == 200
    assert sent() == [{"amount": 40, "target": "acme"}]


def test_the_signed_links_document_every_status_they_answer(tmp_path):
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", public_url="http://127.0.0.1:9")
    paths = app.openapi()["paths"]["/links/{link}"]
    for method in ("get", "post"):
        assert {"200", "401", "404", "409", "410"} <= set(paths[method]["responses"]), method


@pytest.mark.timeout(300)
def test_schemathesis_finds_the_signed_links_within_their_schema(tmp_path):
    command = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("schemathesis")
    if command is None:
        pytest.skip("schemathesis is not installed (it is in the dev extra)")
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", public_url="http://127.0.0.1:9")
    with serving(app) as base:
        done = subprocess.run(
            [
                *(command, "run", f"{base}/openapi.json", "--checks", "all", "--max-examples", "20"),
                *("--include-path-regex", "^/links/", "--no-color"),
            ],
            capture_output=True,
            text=True,
            timeout=280,
        )
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.parametrize("typed", ["9007199254740993", "1e400", "-9007199254740993"])
def test_an_ask_for_a_number_answered_past_what_a_browser_shows_is_400_and_still_waits(client, sent, typed):
    [ask] = client.post("/threads/t/messages", json={"text": "transfer to acme"}).json()["waiting"]
    assert (ask["kind"], ask["argument"]) == ("ask", "amount")
    refused = answer(client, ask, "answer", value=typed)
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
    assert "amount" in refused.json()["message"]
    [confirm] = answer(client, ask, "answer", value="9007199254740991").json()["waiting"]
    assert answer(client, confirm, "approve").status_code == 200
    assert sent() == [{"amount": 9007199254740991, "target": "acme"}]
