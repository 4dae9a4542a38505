"""agent.yaml as the agent layer's build validated it (aws/built_agent.py): loaded as built only where it was made from
exactly this file by this package, equal to the file read and validated; anything else is read and validated."""

import json
import shutil

import pytest

from stalwart_agents import config
from stalwart_agents.aws import built_agent
from stalwart_agents.aws.built_agent import build, built_path, load
from stalwart_agents.config import load_config
from stalwart_agents.errors import ConfigError

from .conftest import ROOT

AGENTS = ("examples/shop", "examples/approvals", "examples/mcp", "tests/bank", "tests/steps", "bench/orders")
"""The repository's agent folders, copied with the layout their relative paths need."""

EVERY_KEY = """
storage: memory://
selector: {language: en}
settings: {lease_seconds: 12, undo_retries: 1, retention_days: 7, max_value_bytes: 65536}
channels:
  slack:
    bot_token: {env: SLACK_BOT_TOKEN}
    signing_secret: {env: SLACK_SIGNING_SECRET}
    channel: C0APPROVALS
    link_only: "args.amount > 100"
    groups: {finance: [U0FIONA]}
    api_url: http://127.0.0.1:9/api
  mail:
    smtp: {host: smtp.shop.example, port: 2525, starttls: false, username: {env: SMTP_USER}, timeout: 5}
    sender: approvals@shop.example
    to: finance@shop.example
agents:
  - name: shop
    description: Every key the file takes.
    tools: tools.py
    on_unread: model
    model: {provider: openai, base_url: "http://127.0.0.1:9/v1", model: m, api_key_env: MODEL_KEY, timeout: 30}
    check:
      confirm_writes: false
      trusted_origins: [typed, reply]
      rules:
        - {name: big, tool: [charge_card, refund], when: "args.amount > 500", then: confirm}
    approvals: {charge_card: 2}
    approvers:
      - name: finance
        tool: charge_card
        kind: [confirm]
        when: "args.amount > 10"
        who: '"finance" in who.groups'
        label: finance
        deadline:
          expires: "args.amount > 1000 ? '8h' : '1h'"
          on_expiry: skip
          escalate: {after: 30m, to: '"admin" in who.groups', label: the duty manager}
    deadlines:
      - {kind: ask, expires: 2d, remind: 1d}
    mcp:
      - name: mail
        url: http://127.0.0.1:9/mcp
        headers: {Authorization: {env: MAIL_TOKEN}}
        timeout: 10
        tools:
          send_mail: {says: "mail {to}", undo: recall_mail, labels: {to: To}, editable: to, write: true}
"""


@pytest.fixture
def agents(tmp_path):
    """Copies of the repository's agent files, and one that sets every key the file takes."""
    for folder in AGENTS:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.db*", "__pycache__"))
    every = tmp_path / "every" / "agent.yaml"
    every.parent.mkdir()
    shutil.copy(ROOT / "examples" / "shop" / "tools.py", every.parent)
    every.write_text(EVERY_KEY)
    return [tmp_path / folder / "agent.yaml" for folder in AGENTS] + [every]


def not_read(*_, **__):
    raise AssertionError("the agent file was read and validated")


def test_an_agent_file_loads_as_built_equal_to_the_file_validated(agents, monkeypatch):
    for path in agents:
        build(path)
        validated = load_config(path)
        with monkeypatch.context() as patched:
            patched.setattr(built_agent, "load_config", not_read)
            loaded = load(path)
        assert loaded == validated, path  # every value, and the lines, file and folder kept privately
        assert loaded.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True), "the keys it set"
        assert (loaded.path, loaded.base_dir, loaded.store_url) == (
            validated.path,
            validated.base_dir,
            validated.store_url,
        )


def test_a_built_agent_places_a_mistake_found_later_on_its_line(agents):
    path = agents[-1]
    build(path)
    refused = load(path).refused("names a tool the agent does not have", "agents", 0, "check", "rules", 0, "tool")
    line = next(n for n, text in enumerate(EVERY_KEY.splitlines(), 1) if "{name: big" in text)
    assert (refused.file, refused.line, refused.key) == (str(path.resolve()), line, "agents[0].check.rules[0].tool")


def test_an_agent_file_changed_since_its_build_is_read_again(agents):
    path = agents[0]
    build(path)
    path.write_text(path.read_text().replace("Looks up orders", "Looks orders up"))
    assert load(path).agents[0].description == "Looks orders up and charges them, with a person's approval."
    path.write_text(path.read_text().replace("on_unread: ask", "on_unread: sometimes"))
    with pytest.raises(ConfigError, match="on_unread"):
        load(path)


def test_a_file_built_by_another_version_or_not_one_at_all_is_not_loaded(agents, monkeypatch):
    path = agents[0]
    build(path)
    built = json.loads(built_path(path).read_text())
    validated = load_config(path)
    monkeypatch.setattr(built_agent, "load_config", {path: validated}.__getitem__)
    for found in (json.dumps(built | {"digest": "0" * 64}), "{", "[]", None):
        if found is None:
            built_path(path).unlink()
        else:
            built_path(path).write_text(found)
        assert load(path) is validated


def test_a_package_without_config_py_source_reads_the_agent_file(agents, monkeypatch):
    """A package shipped as bytecode alone cannot tell which config.py made the built file."""
    path = agents[0]
    build(path)
    validated = load_config(path)
    monkeypatch.setattr(built_agent, "load_config", {path: validated}.__getitem__)
    monkeypatch.setattr(config, "__file__", str(path.parent / "config.pyc"))
    assert load(path) is validated


def test_the_build_refuses_a_file_that_does_not_validate_and_writes_nothing(agents):
    path = agents[0]
    path.write_text(path.read_text().replace("tools: tools.py", "tools: missing.py"))
    with pytest.raises(ConfigError, match=r"missing\.py does not exist"):
        build(path)
    assert not built_path(path).exists()
