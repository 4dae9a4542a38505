"""agent.yaml's ``mcp:`` entries: a mistake is a ConfigError naming the file, the line and the key, found when the
file loads or, for what only the server's tools can tell, when the agent does; never showing a secret."""

import sys
import textwrap

import pytest

from stalwart_agents import ConfigError, Desk
from stalwart_agents.config import load_config

from .conftest import present
from .mcp.servers import SERVER, TOKEN, mail_server


def config_error(tmp_path, text: str) -> ConfigError:
    path = tmp_path / "agent.yaml"
    path.write_text(textwrap.dedent(text).lstrip())
    with pytest.raises(ConfigError) as caught:
        Desk.from_file(path)
    return caught.value


@pytest.mark.parametrize(
    ("entry", "line", "key", "sentence"),
    [
        ("- name: mail\n", 5, "agents[0].mcp[0]", "either command: [program, arguments...] (stdio) or url:"),
        ("- name: mail\n  command: []\n", 6, "agents[0].mcp[0].command", "names no program"),
        ("- name: mail\n  url: ftp://x\n", 6, "agents[0].mcp[0].url", "must be an http:// or https://"),
        ("- name: mail\n  url: http://h/mcp\n  timeout: 0\n", 7, "agents[0].mcp[0].timeout", "greater than 0"),
        ("- name: mail\n  url: http://h/mcp\n  retries: 2\n", 7, "agents[0].mcp[0].retries", "unknown key"),
        ("- name: Mail\n  url: http://h/mcp\n", 5, "agents[0].mcp[0].name", "is not a usable name"),
        (
            "- name: mail\n  command: [python]\n  headers: {A: {env: A}}\n",
            7,
            "agents[0].mcp[0].headers",
            "headers are sent over HTTP only",
        ),
        (
            "- name: mail\n  url: http://h/mcp\n  tools: {send: {irreversible: maybe}}\n",
            7,
            "agents[0].mcp[0].tools.send.irreversible",
            "must be true or false",
        ),
        (
            "- name: mail\n  url: http://h/mcp\n- name: mail\n  url: http://h/other\n",
            7,
            "agents[0].mcp[1].name",
            "the MCP server name 'mail' is already used by mcp[0]",
        ),
    ],
)
def test_a_bad_mcp_entry_is_a_config_error_naming_file_line_and_key(tmp_path, entry, line, key, sentence):
    listed = textwrap.indent(entry, "      ")
    error = config_error(tmp_path, f"storage: memory://\nagents:\n  - name: desk\n    mcp:\n{listed}")
    assert present(error.file).endswith("agent.yaml") and (error.line, error.key) == (line, key)
    assert sentence in str(error)


def test_a_literal_header_value_is_refused_without_being_repeated(tmp_path):
    error = config_error(
        tmp_path,
        f"""
        agents:
          - name: desk
            mcp:
              - name: mail
                url: http://127.0.0.1:9/mcp
                headers: {{Authorization: "Bearer {TOKEN}"}}
        """,
    )
    assert (error.line, error.key) == (6, "agents[0].mcp[0].headers.Authorization")
    assert "come from the environment: write {env: NAME}" in str(error) and TOKEN not in str(error)


def test_an_agent_needs_a_tools_file_or_an_mcp_server(tmp_path):
    error = config_error(tmp_path, "agents:\n  - name: desk\n")
    assert (error.line, error.key) == (2, "agents[0].tools") and "is required but missing" in str(error)


def test_an_agent_with_a_tools_file_and_no_mcp_loads_as_before(tmp_path):
    (tmp_path / "tools.py").write_text(
        "from stalwart_agents import tool\n\n@tool\ndef look(x: str) -> str:\n    return x\n"
    )
    (tmp_path / "agent.yaml").write_text("agents:\n  - name: desk\n    tools: tools.py\n")
    assert load_config(tmp_path / "agent.yaml").agents[0].mcp == ()


@pytest.fixture
def mail(tmp_path):
    with mail_server("stdio", tmp_path) as server:
        yield server


def server_yaml(mail, tools: str = "", extra: str = "") -> str:
    command = f"[{sys.executable}, {SERVER}]"
    return textwrap.dedent(f"""
        storage: memory://
        agents:
          - name: desk
            {extra}
            mcp:
              - name: mail
                command: {command}
                env: {{MCP_LEDGER: {{env: MCP_LEDGER}}}}
                tools:
                  {tools or "inbox: {says: ['inbox {folder}']}"}
    """)


@pytest.mark.parametrize(
    ("tools", "key", "sentence"),
    [
        ("sned_mail: {says: ['mail {to}']}", "tools.sned_mail", "offers no tool named 'sned_mail'; its tools:"),
        ("send_mail: {says: ['mail {too}']}", "tools.send_mail.says", "send_mail() takes no parameter 'too'"),
        ("send_mail: {undo: unsend}", "tools.send_mail.undo", "undo names 'unsend', which is not a tool"),
        ("send_mail: {undo: draft_mail}", "tools.send_mail.undo", "draft_mail() undoes send_mail, so it must take"),
        ("send_mail: {describe: 'Mail {cc}'}", "tools.send_mail.describe", "names 'cc', which is not a parameter"),
        ("send_mail: {labels: {cc: Copy}}", "tools.send_mail.labels", "names 'cc', which is not a parameter"),
    ],
)
def test_an_override_the_servers_tools_contradict_is_placed_at_its_key(mail, tmp_path, tools, key, sentence):
    error = config_error(tmp_path, server_yaml(mail, tools))
    assert present(error.file).endswith("agent.yaml") and error.line == 10 and error.key == f"agents[0].mcp[0].{key}"
    assert sentence in str(error)


def test_a_tool_name_both_the_tools_file_and_a_server_give_is_refused_naming_both(mail, tmp_path):
    source = "from stalwart_agents import tool\n\n@tool\ndef inbox(folder: str) -> str:\n    return ''\n"
    (tmp_path / "tools.py").write_text(source)
    error = config_error(tmp_path, server_yaml(mail, extra="tools: tools.py"))
    assert (error.line, error.key) == (6, "agents[0].mcp[0]")
    assert f"the MCP server mail offers a tool named 'inbox', and so does the tools file {tmp_path / 'tools.py'}" in (
        str(error)
    )


def test_a_tool_name_two_servers_give_is_refused_naming_both(mail, tmp_path):
    command = f"[{sys.executable}, {SERVER}]"
    error = config_error(
        tmp_path,
        f"""
        agents:
          - name: desk
            mcp:
              - name: mail
                command: {command}
                env: {{MCP_LEDGER: {{env: MCP_LEDGER}}}}
              - name: backup
                command: {command}
                env: {{MCP_LEDGER: {{env: MCP_LEDGER}}}}
        """,
    )
    assert (error.line, error.key) == (7, "agents[0].mcp[1]")
    assert "the MCP server backup offers a tool named 'archive', and so does the MCP server mail" in str(error)


def test_a_variable_the_entry_reads_that_is_not_set_is_named(mail, tmp_path, monkeypatch):
    monkeypatch.delenv("MCP_LEDGER")
    error = config_error(tmp_path, server_yaml(mail))
    assert (error.line, error.key) == (8, "agents[0].mcp[0].env.MCP_LEDGER")
    assert "the environment variable MCP_LEDGER is not set" in str(error)


def test_a_header_value_with_a_line_end_is_refused_naming_its_variable_not_its_value(tmp_path, monkeypatch):
    """A secret read from an env file often ends in a newline; an HTTP library would quote it in its error."""
    monkeypatch.setenv("CRM_TOKEN", "Bearer sk-SECRET-HEADER\n")
    error = config_error(
        tmp_path,
        """
        agents:
          - name: desk
            mcp:
              - name: crm
                url: http://127.0.0.1:9/mcp
                headers: {Authorization: {env: CRM_TOKEN}}
        """,
    )
    assert error.key == "agents[0].mcp[0].headers.Authorization"
    assert "CRM_TOKEN holds a control character" in str(error) and "sk-SECRET" not in str(error)


def test_a_failure_that_quotes_a_value_from_the_environment_shows_it_hidden():
    from stalwart_agents.tools.mcp_servers import _failure

    refused = ValueError("Illegal header value b'Bearer sk-SECRET\\n'")
    said = _failure(refused, ["Bearer sk-SECRET\n"])
    assert "sk-SECRET" not in said and "[hidden]" in said
