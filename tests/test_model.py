"""The model behind delegate: an OpenAI-compatible server on 127.0.0.1 that answers with tool calls, or a callable."""

import asyncio
import json
import textwrap

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from stalwart_agents import Desk

from .conftest import ROOT
from .server import serving

SHOP_TOOLS = ROOT / "examples" / "shop" / "tools.py"
TURN = "please put forty on the order four four one one"


@pytest.fixture
def model_server():
    """A chat-completions server: it proposes charging order 4411, or sleeps past the client's timeout when told."""
    seen, app, behaviour = [], FastAPI(), {"slow": False}

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        body = await request.json()
        seen.append((request.headers.get("authorization"), body))
        if behaviour["slow"]:
            await asyncio.sleep(1.5)
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "charge_card", "arguments": json.dumps({"order_id": "4411", "amount": 40})},
        }
        message = {"role": "assistant", "content": "I'll charge order 4411.", "tool_calls": [call]}
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            }
        )

    with serving(app) as url:
        yield f"{url}/v1", seen, behaviour


def agent_file(tmp_path, model, on_unread="ask"):
    (tmp_path / "agent.yaml").write_text(
        textwrap.dedent(f"""
        storage: memory://
        agents:
          - name: shop
            tools: {SHOP_TOOLS}
            on_unread: {on_unread}
            model: {model}
    """)
    )
    return tmp_path / "agent.yaml"


@pytest.fixture
def desk(tmp_path, model_server, monkeypatch, ledger):
    url, _, _ = model_server
    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    model = f"{{provider: openai, base_url: '{url}', model: tiny, api_key_env: TEST_MODEL_KEY, timeout: 0.5}}"
    with Desk.from_file(agent_file(tmp_path, model)) as desk:
        yield desk


def test_delegate_approve_gives_the_turn_to_the_model_and_its_write_asks_with_argument_origin(
    desk, model_server, ledger
):
    _, seen, _ = model_server
    [delegate] = desk.send("u-17", TURN).waiting
    assert delegate.kind == "delegate" and seen == []

    reply = desk.confirm("u-17", "approve")
    [pause] = reply.waiting
    assert (pause.kind, pause.tool) == ("confirm", "charge_card")
    assert pause.reasons == ["write", "argument_origin: amount", "argument_origin: order_id"]
    assert {"name": "amount", "value": 40, "origin": "model"} in pause.arguments
    assert "I'll charge order 4411." in reply.text and ledger("charge") == []

    authorization, body = seen[0]
    assert authorization == "Bearer sk-test" and body["messages"][-1]["content"] == TURN
    charge = next(t["function"] for t in body["tools"] if t["function"]["name"] == "charge_card")
    assert charge["parameters"]["properties"]["amount"]["type"] == "number"
    assert charge["parameters"]["required"] == ["order_id", "amount"]

    assert desk.confirm("u-17", "approve").status == "done" and len(ledger("charge")) == 1
    assert len(seen) == 1


def test_a_model_that_times_out_gives_a_clear_reply_and_the_run_can_try_again(desk, model_server, ledger):
    _, _, behaviour = model_server
    behaviour["slow"] = True
    desk.send("u-17", TURN)
    reply = desk.confirm("u-17", "approve")

    assert "The assistant could not answer: the model did not answer within 0.5 s." in reply.text
    [again] = reply.waiting
    assert again.kind == "delegate" and reply.status == "waiting" and ledger() == []

    behaviour["slow"] = False
    [pause] = desk.confirm("u-17", "approve").waiting
    assert pause.tool == "charge_card"


def test_on_unread_model_skips_the_question(tmp_path, model_server, monkeypatch):
    url, seen, _ = model_server
    model = f"{{provider: openai, base_url: '{url}', model: tiny}}"
    with Desk.from_file(agent_file(tmp_path, model, on_unread="model")) as desk:
        [pause] = desk.send("u-17", TURN).waiting
    assert pause.kind == "confirm" and seen[0][0] is None


def test_a_python_callable_can_be_the_model(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "model"))
    with Desk.from_file(agent_file(tmp_path, "{python: 'models:propose'}", on_unread="model")) as desk:
        reply = desk.send("u-17", TURN)
    result = reply.steps[0].result
    assert reply.status == "done" and isinstance(result, dict) and result["order_id"] == "4412"
    assert "shop saw 5 tools." in reply.text


def test_on_unread_refuse_says_no(tmp_path):
    with Desk.from_file(agent_file(tmp_path, "{python: 'models:propose'}", on_unread="refuse")) as desk:
        reply = desk.send("u-17", TURN)
    assert reply.waiting == [] and "I can only do what my tools say they do." in reply.text


def test_a_missing_api_key_is_a_clear_error_at_load(tmp_path, model_server):
    from stalwart_agents import ConfigError

    url, _, _ = model_server
    with pytest.raises(ConfigError, match="NOT_SET_ANYWHERE"):
        Desk.from_file(
            agent_file(tmp_path, f"{{provider: openai, base_url: '{url}', model: m, api_key_env: NOT_SET_ANYWHERE}}")
        )
