"""An MCP server that is slow, killed or gone, over stdio and streamable HTTP: a write in flight asks whether it
happened (an idempotent one is first re-sent with the same key), a read fails clearly, and loading names it."""

import threading

import pytest

from stalwart_agents import ConfigError

from .conftest import present
from .mcp.servers import TOKEN, mail_server

TOOLS = {
    "transfer": {"says": ["transfer {amount:number} to {to}"]},
    "archive": {"says": ["archive {folder}"]},
    "count": {"says": ["count {folder}"]},
    "inbox": {"says": ["inbox {folder}"]},
}


@pytest.fixture(params=["stdio", "http"])
def mail(request, tmp_path):
    with mail_server(request.param, tmp_path) as server:
        yield server


def test_an_idempotent_write_that_times_out_is_sent_again_with_the_same_key(mail, tmp_path):
    mail.entry["timeout"] = 1
    desk = mail.desk(tmp_path, TOOLS)
    desk.send("t", "transfer 5 to ana")
    reply = desk.confirm("t", "approve")
    assert reply.status == "done" and reply.waiting == []
    first, second = mail.calls("transfer")
    assert first["key"] == second["key"] and reply.steps[-1].result == {"transfer": first["key"]}


def test_the_server_killed_mid_write_asks_whether_it_happened(mail, tmp_path):
    desk = mail.desk(tmp_path, TOOLS)
    desk.send("t", "archive work")
    killer = threading.Thread(target=mail.kill_when_called, args=("archive",))
    killer.start()
    reply = desk.confirm("t", "approve")
    killer.join()
    [pause] = reply.waiting
    assert (pause.kind, pause.tool, pause.answers) == ("outcome_unknown", "archive", ["happened", "did_not_happen"])
    assert pause.reasons[0].startswith("outcome_unknown: OutcomeUnknown: the MCP server mail")
    assert len(mail.calls("archive")) == 1


def test_the_server_killed_mid_read_fails_the_read_with_a_clear_error(mail, tmp_path):
    desk = mail.desk(tmp_path, TOOLS)
    killer = threading.Thread(target=mail.kill_when_called, args=("count",))
    killer.start()
    reply = desk.send("t", "count work")
    killer.join()
    assert reply.status == "failed" and reply.waiting == []
    assert reply.steps[-1].error.startswith("ServerDown: the MCP server mail")


def test_a_stdio_server_that_died_is_started_again_for_the_next_call(mail, tmp_path):
    if mail.transport != "stdio":
        pytest.skip("an HTTP server is not the agent's to start")
    desk = mail.desk(tmp_path, TOOLS)
    killer = threading.Thread(target=mail.kill_when_called, args=("count",))
    killer.start()
    desk.send("t1", "count work")
    killer.join()
    assert desk.send("t2", "inbox work").status == "done"
    assert len({call["pid"] for call in mail.calls()}) == 2


def test_a_server_that_cannot_be_reached_at_load_is_a_config_error_naming_it(mail, tmp_path):
    if mail.transport == "http":
        mail.process.kill()
        mail.process.wait()
    else:
        mail.entry["command"] = ["/nonexistent/mail-server"]
    with pytest.raises(ConfigError) as caught:
        mail.desk(tmp_path, TOOLS)
    error = caught.value
    assert present(error.file).endswith("agent.yaml") and error.key == "agents[0].mcp[0]" and error.line == 5
    assert "could not list the server's tools when the agent loaded: the MCP server mail" in str(error)
    assert TOKEN not in str(error)
