from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from stalwart_agents import Desk
from stalwart_agents.config import Config, load_config, parse_config
from stalwart_agents.errors import ConfigError

from .conftest import ROOT, present


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tools.py").write_text("")
    path = tmp_path / "agent.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def fails(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return caught.value


def located(error: ConfigError, line: int, key: str | None) -> str:
    """The error's first sentence, after checking it names the file, the line and the key."""
    where = f"{error.file}:{line}:" + (f" {key}:" if key else "")
    assert present(error.file).endswith("agent.yaml")
    assert (error.line, error.key) == (line, key)
    assert str(error).startswith(where), str(error)
    return str(error).splitlines()[0][len(where) :].strip()


def loaded(tmp_path: Path, rules: str) -> Config:
    head = "agents:\n  - name: shop\n    tools: tools.py\n    check:\n      rules:\n"
    return load_config(write(tmp_path, head + textwrap.indent(textwrap.dedent(rules).lstrip("\n"), " " * 8)))


def test_a_full_file_loads_with_defaults_filled_in(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        storage: memory://
        agents:
          - name: shop
            description: Sells things.
            tools: tools.py
            check:
              rules:
                - name: big-charges
                  tool: charge_card
                  when: "args.amount > 500"
                  then: refuse
                  sentence: Charges over 500 go through the finance desk.
          - name: helpdesk
            tools: shop.tools
            on_unread: refuse
    """,
    )
    config = load_config(path)
    assert config.path == path.resolve() and config.base_dir == tmp_path.resolve()
    assert config.storage == "memory://" and config.selector.language == "en"
    assert (config.settings.lease_seconds, config.settings.undo_retries) == (30.0, 3)
    shop, helpdesk = config.agents
    assert (shop.on_unread, helpdesk.on_unread, helpdesk.tools) == ("ask", "refuse", "shop.tools")
    assert shop.check.confirm_writes and helpdesk.check.rules == ()
    assert shop.check.trusted_origins == ("typed", "reply", "context", "computed", "result", "agent", "edited")
    rule = shop.check.rules[0]
    assert (rule.tool, rule.then, rule.disclose) == (("charge_card",), "refuse", True)
    assert rule.applies_to("charge_card") and not rule.applies_to("refund")


def test_defaults_when_only_agents_are_given() -> None:
    config = parse_config("agents: [{name: shop, tools: shop.tools}]")
    assert config.storage is None and config.path is None
    assert config.store_url.startswith("sqlite:///") and "/stalwart/shop-" in config.store_url
    assert config.base_dir == Path.cwd()


SHOP = "agents:\n  - name: shop\n    tools: tools.py\n"
RULES = SHOP + "    check:\n      rules:\n"
MISTAKES = [
    pytest.param(
        SHOP + "setings:\n  lease_seconds: 10\n",
        4,
        "setings",
        "unknown key 'setings'; did you mean 'settings'?",
        id="unknown-top-level-key",
    ),
    pytest.param(
        SHOP + "    on_unreed: ask\n",
        4,
        "agents[0].on_unreed",
        "unknown key 'on_unreed'; did you mean 'on_unread'?",
        id="unknown-agent-key",
    ),
    pytest.param(
        "settings:\n  lease_seconds: soon\n" + SHOP,
        2,
        "settings.lease_seconds",
        "must be a number (got 'soon')",
        id="wrong-type",
    ),
    pytest.param(
        "settings:\n  undo_retries: yes\n" + SHOP,
        2,
        "settings.undo_retries",
        "must be a whole number (got true)",
        id="boolean-is-not-a-count",
    ),
    pytest.param(
        SHOP + "    on_unread: sometimes\n",
        4,
        "agents[0].on_unread",
        "must be one of ask, model, refuse (got 'sometimes')",
        id="bad-on-unread",
    ),
    pytest.param(
        SHOP + "  - name: shop\n    tools: tools.py\n",
        4,
        "agents[1].name",
        "the agent name 'shop' is already used by agents[0]",
        id="duplicate-agent",
    ),
    pytest.param(
        "agents:\n  - name: Shop\n    tools: tools.py\n",
        2,
        "agents[0].name",
        "'Shop' is not a usable name: start with a lowercase letter, then up to 63 of a-z, 0-9, _ and -",
        id="bad-agent-name",
    ),
    pytest.param(
        "agents:\n  - name: shop\n    description: Sells things.\n",
        2,
        "agents[0].tools",
        "is required but missing",
        id="missing-tools",
    ),
    pytest.param(
        "agents:\n  - name: shop\n    tools: shop_tools.py\n",
        3,
        "agents[0].tools",
        "the tools file {dir}/shop_tools.py does not exist",
        id="tools-file-missing",
    ),
    pytest.param(
        "storage: memory://\nagents: []\n",
        2,
        "agents",
        "must list at least one agent",
        id="no-agents",
    ),
    pytest.param(
        "selector: {language: pt}\n" + SHOP,
        1,
        "selector.language",
        "the Portuguese grammar has not shipped yet; the selector reads English (language: en)",
        id="portuguese",
    ),
    pytest.param(
        "selector:\n  language: fr\n" + SHOP,
        2,
        "selector.language",
        "the selector has no grammar for 'fr'; only en is available",
        id="other-language",
    ),
    pytest.param(
        SHOP + "storage: redis://x\n",
        4,
        "storage",
        "unknown storage scheme 'redis': use memory://, sqlite:///PATH, postgres://USER:PASSWORD@HOST:PORT/DATABASE "
        "(postgresql:// too) or dynamodb://TABLE?region=REGION",
        id="unknown-scheme",
    ),
    pytest.param(
        "storage: postgres://db.internal\n" + SHOP,
        1,
        "storage",
        "a postgres URL is postgres://USER:PASSWORD@HOST:PORT/DATABASE (the port and password are optional)",
        id="postgres-url-without-a-database",
    ),
    pytest.param(
        RULES + '        - name: big-charges\n          when: "args.amount >"\n          then: confirm\n',
        7,
        "agents[0].check.rules[0].when",
        "is not valid CEL (syntax error at column 13):",
        id="cel-syntax",
    ),
    pytest.param(
        RULES + '        - name: big-charges\n          when: "args.amount > 500"\n          then: refuse\n',
        6,
        "agents[0].check.rules[0].sentence",
        "a rule that refuses needs a sentence telling the person why",
        id="refusal-without-sentence",
    ),
    pytest.param(
        RULES
        + '        - {name: big, when: "true", then: confirm}\n        - {name: big, when: "false", then: confirm}\n',
        7,
        "agents[0].check.rules[1].name",
        "the rule name 'big' is already used by rules[0]",
        id="duplicate-rule",
    ),
    pytest.param(
        SHOP + "    check:\n      trusted_origins: [typed, modle]\n",
        5,
        "agents[0].check.trusted_origins[1]",
        "must be one of typed, reply, context, computed, result, model, agent, edited (got 'modle')",
        id="unknown-origin",
    ),
    pytest.param(
        "# nothing yet\n",
        1,
        "agents",
        "the file is empty; it needs an agents: list with at least one agent",
        id="empty-file",
    ),
    pytest.param(
        "- shop\n",
        1,
        None,
        "the top level must be a mapping with keys such as agents: (got a list)",
        id="not-a-mapping",
    ),
    pytest.param(
        "agents:\n  - name: shop\n    tools: [tools.py\n  - name: other\n",
        4,
        None,
        "is not valid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence)",
        id="yaml-syntax",
    ),
    pytest.param(
        SHOP + "    tools: shop.tools\n",
        4,
        "agents[0].tools",
        "is given twice (first on line 3); YAML would keep only this one",
        id="key-twice",
    ),
]


@pytest.mark.parametrize(("text", "line", "key", "sentence"), MISTAKES)
def test_a_mistake_names_file_line_and_key(
    tmp_path: Path, text: str, line: int, key: str | None, sentence: str
) -> None:
    error = fails(tmp_path, text)
    assert located(error, line, key) == sentence.format(dir=tmp_path.resolve())


def test_a_cel_syntax_error_shows_where_it_stops() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            "agents:\n  - {name: shop, tools: shop.tools, check: {rules: [{name: r, when: 'a >', then: confirm}]}}\n"
        )
    assert str(caught.value).splitlines()[1:] == ["      a >", "        ^"]


def test_a_missing_file_names_its_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "agent.yaml")
    assert str(tmp_path / "agent.yaml") in str(caught.value)


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_bytes(b"agents:\n  - name: caf\xe9\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert located(caught.value, 2, None) == "is not UTF-8 text (byte 0xe9); save it as UTF-8"


def test_every_error_is_reported_each_on_its_own_line(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        """
        storage: redis://x
        agents:
          - name: shop
            tools: tools.py
            on_unread: sometimes
          - name: shop
    """,
    )
    assert located(error, 1, "storage").startswith("unknown storage scheme")
    file = error.file
    assert str(error).splitlines()[1:] == [
        f"{file}:5: agents[0].on_unread: must be one of ask, model, refuse (got 'sometimes')",
        f"{file}:6: agents[1].tools: is required but missing",
        f"{file}:6: agents[1].name: the agent name 'shop' is already used by agents[0]",
    ]


def test_parse_config_names_the_file_it_was_given() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("agents:\n  - name: shop\n", file="inline.yaml")
    assert str(caught.value) == "inline.yaml:2: agents[0].tools: is required but missing"


def test_a_rule_holds_or_not(tmp_path: Path) -> None:
    config = loaded(
        tmp_path,
        """
        - name: big-charges
          tool: [charge_card, refund]
          when: "args.amount > 500"
          then: confirm
    """,
    )
    rule = config.agent().check.rules[0]
    assert rule.holds({"args": {"amount": 600}, "tool": "charge_card"})
    assert not rule.holds({"args": {"amount": 20}, "tool": "charge_card"})
    assert rule.tool == ("charge_card", "refund")


def test_a_rule_that_cannot_be_evaluated_holds(tmp_path: Path) -> None:
    config = loaded(
        tmp_path,
        """
        - name: big-charges
          when: "args.amount > 500"
          then: refuse
          sentence: Charges over 500 go through the finance desk.
          disclose: false
    """,
    )
    rule = config.agent().check.rules[0]
    assert rule.applies_to("anything") and not rule.disclose
    assert rule.holds({"args": {"currency": "EUR"}})
    assert rule.holds({"args": {"amount": "a lot"}})
    assert rule.holds({"args": {"amount": object()}})


def test_agent_by_name(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            """
        agents:
          - name: shop
            tools: tools.py
          - name: helpdesk
            tools: tools.py
    """,
        )
    )
    assert config.agent(None).name == "shop" and config.agent("helpdesk").name == "helpdesk"
    with pytest.raises(ConfigError) as caught:
        config.agent("billing")
    assert "no agent named 'billing'; the agents are shop, helpdesk" in str(caught.value)
    assert caught.value.key == "agents" and caught.value.file == str(config.path)


@pytest.mark.parametrize(
    ("rule", "key", "said"),
    [
        (
            '{name: big, tool: charge_card, when: "args.amout > 1000", then: refuse, sentence: Over the limit.}',
            "agents[0].check.rules[1].when",
            "reads args.amout, but charge_card takes no argument of that name: amount, order_id",
        ),
        (
            """{name: big, tool: charge_card, when: 'args["amout"] > 1000', then: refuse, sentence: Over the limit.}""",
            "agents[0].check.rules[1].when",
            "reads args.amout, but charge_card takes no argument of that name",
        ),
        (
            '{name: big, when: "args.total > 1000", then: confirm}',
            "agents[0].check.rules[1].when",
            "reads args.total, but look_up_order, charge_card, refund_charge, send_receipt, read_messages take no",
        ),
        (
            '{name: big, tool: [charge_card, charge_crad], when: "args.amount > 1000",'
            " then: refuse, sentence: Over the limit.}",
            "agents[0].check.rules[1].tool",
            "names charge_crad, but the agent has no tool of that name; its tools: look_up_order, charge_card",
        ),
    ],
)
def test_a_rule_naming_an_argument_or_a_tool_the_agent_lacks_is_refused_at_load_with_file_line_and_key(
    tmp_path: Path, rule: str, key: str, said: str
) -> None:
    """Such a rule would otherwise load silently and, never evaluable, fail closed on every call it applies to."""
    (tmp_path / "tools.py").write_text((ROOT / "examples" / "shop" / "tools.py").read_text())
    good = '{name: fine, tool: charge_card, when: "args.amount > 500 && args.order_id != \\"\\"", then: confirm}'
    (tmp_path / "agent.yaml").write_text(f"{SHOP}    check:\n      rules:\n        - {good}\n        - {rule}\n")
    with pytest.raises(ConfigError) as refused:
        Desk.from_file(tmp_path / "agent.yaml", storage="memory://")
    assert str(refused.value).startswith(f"{tmp_path / 'agent.yaml'}:7: {key}: ") and said in str(refused.value)


def test_a_rule_for_every_tool_may_read_an_argument_only_some_take(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text((ROOT / "examples" / "shop" / "tools.py").read_text())
    rule = '{name: big, when: "has(args.amount) && args.amount > 1000", then: refuse, sentence: Over the limit.}'
    (tmp_path / "agent.yaml").write_text(f"{SHOP}    check:\n      rules:\n        - {rule}\n")
    with Desk.from_file(tmp_path / "agent.yaml", storage="memory://") as desk:
        assert desk.send("t", "charge 2000 to order 4411").refusals[0].rule == "big"
