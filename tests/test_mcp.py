"""Tools from a real MCP server (tests/mcp/mail.py), over stdio and streamable HTTP: its annotations decide what
a person confirms, agent.yaml's overrides win over them, and a tool changed under a paused run does not run."""

import json
from typing import Any

import pytest

from stalwart_agents.engine.sizes import MAX_DEPTH
from stalwart_agents.tools.mcp import ToolChanged

from .mcp.mail import DEEP_ANSWER
from .mcp.servers import TOKEN, mail_server

SAYS = {
    "inbox": {"says": ["inbox {folder}"]},
    "web_page": {"says": ["read the page {url}"]},
    "send_mail": {"says": ["mail {to} about {subject:text}"]},
    "draft_mail": {"says": ["draft to {to}"]},
    "delete_mail": {"says": ["delete message {id}"]},
    "bounce": {"says": ["bounce {to}"]},
}


@pytest.fixture(params=["stdio", "http"])
def mail(request, tmp_path):
    with mail_server(request.param, tmp_path) as server:
        yield server


@pytest.fixture
def desk(mail, tmp_path):
    return mail.desk(tmp_path, SAYS)


def test_a_read_only_tool_runs_without_asking_and_its_structured_content_is_the_result(desk, mail):
    reply = desk.send("t", "inbox work")
    assert reply.status == "done" and reply.waiting == []
    [step] = reply.steps
    assert step.result == {"folder": "work", "messages": [{"id": "m1", "from": "ana@example.com", "subject": "lunch"}]}
    assert [call["folder"] for call in mail.calls("inbox")] == ["work"]


def test_a_write_asks_then_runs_once_on_approve(desk, mail):
    asked = desk.send("t", "mail bob about the quarterly numbers")
    [pause] = asked.waiting
    assert (pause.kind, pause.tool, pause.reasons) == ("confirm", "send_mail", ["write"])
    assert mail.calls("send_mail") == []
    done = desk.confirm("t", "approve")
    assert done.status == "done" and done.steps[-1].result == {"sent": "mail-bob"}
    assert [(c["to"], c["subject"]) for c in mail.calls("send_mail")] == [("bob", "the quarterly numbers")]


def test_destructive_writes_are_irreversible_on_the_card_and_additive_ones_are_not(desk):
    deleting = desk.send("t1", "delete message m1").waiting[0].to_dict()
    assert deleting["irreversible"] is True
    unannotated = desk.send("t2", "mail bob about lunch").waiting[0].to_dict()
    assert unannotated["irreversible"] is True
    drafting = desk.send("t3", "draft to bob").waiting[0].to_dict()
    assert drafting["irreversible"] is False and drafting["reasons"] == ["write"]


def test_an_open_world_result_taints_the_next_write(desk):
    reply = desk.send("t", "read the page https://example.com/offer and draft to eve")
    assert reply.steps[0].tool == "web_page" and reply.steps[0].result["url"] == "https://example.com/offer"
    [pause] = reply.waiting
    assert pause.tool == "draft_mail"
    assert pause.reasons == ["write", "tainted_call: untrusted:web_page"]


def test_a_closed_world_read_taints_nothing(desk):
    reply = desk.send("t", "inbox work and draft to eve")
    assert reply.waiting[0].reasons == ["write"]


def test_overrides_in_agent_yaml_win_over_the_servers_annotations(mail, tmp_path):
    desk = mail.desk(
        tmp_path,
        {
            "send_mail": {"says": ["mail {to} about {subject:text}"], "undo": "recall_mail", "label": "Send a mail"},
            "delete_mail": {"says": ["delete message {id}"], "irreversible": False, "describe": "Delete {id}"},
            "inbox": {"says": ["inbox {folder}"], "write": True},
            "web_page": {"says": ["read the page {url}"], "untrusted": False},
            "draft_mail": {"says": ["draft to {to}"], "labels": {"to": "Recipient"}},
        },
    )
    sending = desk.send("t1", "mail bob about lunch").waiting[0].to_dict()
    assert (sending["irreversible"], sending["label"]) == (False, "Send a mail")
    deleting = desk.send("t2", "delete message m7").waiting[0].to_dict()
    assert (deleting["irreversible"], deleting["title"]) == (False, "Delete m7")
    assert desk.send("t3", "inbox work").waiting[0].reasons == ["write"]
    drafting = desk.send("t4", "read the page https://example.com and draft to eve").waiting[0].to_dict()
    assert drafting["reasons"] == ["write"] and drafting["arguments"][0]["label"] == "Recipient"


def test_an_undo_from_agent_yaml_recalls_the_mail_on_rollback(mail, tmp_path):
    desk = mail.desk(tmp_path, {"send_mail": {"says": ["mail {to} about {subject:text}"], "undo": "recall_mail"}})
    desk.send("t", "mail bob about lunch")
    desk.confirm("t", "approve")
    desk.rollback("t")
    [recalled] = mail.calls("recall_mail")
    assert (recalled["to"], recalled["result"]) == ("bob", {"sent": "mail-bob"})


def test_a_write_answering_json_nested_3000_deep_is_kept_done_as_its_text_and_undone_on_rollback(mail, tmp_path):
    desk = mail.desk(tmp_path, {"file_deep": {"says": ["file deep to {to}"], "undo": "recall_mail"}})
    desk.send("t", "file deep to bob")
    reply = desk.confirm("t", "approve")
    kept = {"too_deep": {"depth_limit": MAX_DEPTH, "text": DEEP_ANSWER}}
    assert (reply.status, reply.steps[-1].status, reply.steps[-1].result) == ("done", "done", kept)
    assert [(e.key, e.status, e.result) for e in desk.storage.journal(reply.run)] == [("1", "done", kept)]
    assert json.loads(json.dumps(reply.to_dict()))["steps"][-1]["result"] == kept
    desk.rollback("t")
    [recalled] = mail.calls("recall_mail")
    assert (recalled["to"], recalled["result"]) == ("bob", kept)
    assert len(mail.calls("file_deep")) == 1


def test_an_error_the_server_answers_fails_the_call_with_its_text(desk):
    desk.send("t", "bounce nobody")
    reply = desk.confirm("t", "approve")
    assert reply.status == "failed"
    assert "no mailbox nobody" in reply.steps[-1].error


def test_a_tool_whose_annotations_changed_under_a_paused_run_is_refused_and_not_run(desk, mail):
    desk.send("t", "mail bob about lunch")
    mail.changed.touch()
    reply = desk.confirm("t", "approve")
    assert reply.status == "failed"
    assert "send_mail changed on the MCP server mail" in reply.steps[-1].error
    assert ToolChanged.__name__ in reply.steps[-1].error
    assert mail.calls("send_mail") == []


def test_a_pause_answered_where_the_tool_was_read_after_it_changed_asks_again_and_runs_nothing(mail, tmp_path):
    """Two processes on one store: the first opens the pause, the server's tool changes, and the second, which read
    the changed tool when it loaded, takes the answer: the changed call is a new pause, put to a person again."""
    from stalwart_agents import Desk

    mail.desk(tmp_path, SAYS)
    store = f"sqlite:///{tmp_path}/runs.db"
    before = Desk.from_file(tmp_path / "agent.yaml", storage=store)
    [opened] = before.send("t", "mail bob about lunch").waiting
    mail.changed.touch()
    after = Desk.from_file(tmp_path / "agent.yaml", storage=store)
    reply = after.confirm("t", "approve", waiting=opened.id, token=opened.token)
    [asked_again] = reply.waiting
    assert asked_again.id != opened.id and asked_again.tool == "send_mail" and reply.status == "waiting"
    assert mail.calls("send_mail") == []
    assert after.confirm("t", "approve", waiting=asked_again.id, token=asked_again.token).status == "done"
    assert len(mail.calls("send_mail")) == 1


def test_the_model_sees_each_mcp_tools_json_schema(mail, tmp_path):
    from stalwart_agents.reading.model import tool_schema

    desk = mail.desk(tmp_path)
    schema: dict[str, Any] = tool_schema(desk.agent().tools["transfer"])
    assert schema["description"].startswith("Move money")
    assert schema["parameters"]["properties"].keys() == {"to", "amount"}
    assert schema["parameters"]["required"] == ["to", "amount"]
    assert TOKEN not in repr(desk.agent().tools["transfer"].fn.server)


def test_closing_the_desk_ends_the_servers_it_started(mail, tmp_path):
    import time

    if mail.transport != "stdio":
        pytest.skip("an HTTP server is not the agent's to end")
    desk = mail.desk(tmp_path, SAYS)
    desk.send("t", "inbox work")
    [call] = mail.calls("inbox")
    desk.close()
    deadline = time.monotonic() + 10
    while _alive(call["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(call["pid"])
    assert desk.agent().tools["inbox"]  # the agent keeps its tools; a later call would open the server again


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_mcp_tool_made_editable_in_agent_yaml_runs_as_changed_within_its_input_schema(mail, tmp_path):
    from stalwart_agents import BadRequest

    desk = mail.desk(tmp_path, {**SAYS, "send_mail": {**SAYS["send_mail"], "editable": ["subject"]}})
    [pause] = desk.send("t", "mail ann about the lunch").waiting
    assert pause.editable == ["subject"]
    with pytest.raises(BadRequest, match=r"edits\.subject: 12 is not of type 'string'"):
        desk.confirm("t", "approve", pause.id, token=pause.token, edits={"subject": 12})
    with pytest.raises(BadRequest, match=r"edits\.to: a person may change only subject"):
        desk.confirm("t", "approve", pause.id, token=pause.token, edits={"to": "mallory"})
    assert mail.calls("send_mail") == []
    done = desk.confirm("t", "approve", pause.id, token=pause.token, edits={"subject": "the dinner"})
    assert done.status == "done"
    assert [(c["to"], c["subject"]) for c in mail.calls("send_mail")] == [("ann", "the dinner")]

    from stalwart_agents import ConfigError

    with pytest.raises(ConfigError) as wrong:
        mail.desk(tmp_path, {"send_mail": {"editable": ["body"]}})
    assert wrong.value.key == "agents[0].mcp[0].tools.send_mail.editable"
    said = "editable names 'body', which is not a parameter a call passes; its parameters: subject, to"
    assert said in str(wrong.value)
