"""cel-python's parser saved by the layer's build and handed to cel-python at the first compile (cel.py).

What a user relies on: a rule means the same with the saved parser as with the one cel-python builds, and a
saved parser that does not fit (another lark, grammar or Python, or not a parser at all) is never used.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import celpy
import pytest
import yaml
from celpy import celparser
from celpy.adapter import json_to_cel
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from stalwart_agents.reading import cel

from .conftest import present

ROOT = Path(__file__).resolve().parent.parent


def rules_in(path: Path) -> list[str]:
    """Every rule's ``when`` in an agent file."""
    spec = yaml.safe_load(path.read_text())
    return [rule["when"] for agent in spec["agents"] for rule in (agent.get("check") or {}).get("rules", [])]


SHIPPED = sorted(
    {
        when
        for path in [*ROOT.glob("examples/*/agent.yaml"), *ROOT.glob("tests/*/agent.yaml")]
        for when in rules_in(path)
    }
)

EDGE_CASES = [
    "args.amount >= 100",
    r'args.note == "a\"b\n\t\u00e9"',
    r"'single \' quote' + " + '"double"',
    r'r"raw\d+" != "x"',
    'b"bytes" == b"bytes"',
    "'''three\nlines''' != ''",
    'args.to in ["a@example.com", "b@example.com"]',
    '"amount" in args && !("nothing" in args)',
    '{"a": 1, "b": [1, 2]}["b"][1] == 2',
    "[1, 2, 3][0] == 1 && size([]) == 0",
    "args.items.all(i, i.price < 100)",
    'args.items.exists(i, i.sku == "X")',
    'args.items.exists_one(i, i.sku == "Y")',
    "args.items.map(i, i.price).filter(p, p > 60) == [150]",
    "size(args.items) >= 2 && !(args.amount <= 0) || args.amount == 1",
    "-args.amount < -1 && -1.5 < 0.0",
    "--1 == 1 && -(2) == -2",
    "true",
    "false",
    "true != false && !false",
    "args.note != null && null == null",
    'args.amount > 100 ? "big" : "small"',
    "has(args.note) && !has(args.nothing)",
    'args.currency.startsWith("EU") || args.currency.endsWith("R")',
    'args.to.matches("^[a-z]+@")',
    "1u + 2u == 3u && 0x1F == 31 && 1e3 == 1000.0",
    "type(1) == int && int('7') == 7 && string(7) == '7'",
    'args["amount"] % 7 != 3 && args.amount / 3 * 3 <= args.amount',
    "timestamp('2026-01-01T00:00:00Z') < timestamp('2026-06-01T00:00:00Z')",
    "args.amount > 500\n  && args.currency == 'EUR'",
]

CORPUS = [*SHIPPED, *EDGE_CASES]

NOT_CEL = ["args.amount >", "a >", "1 +* 2", "args.(x)", '"unterminated', "f(,)", "args.amount > 500 500", "{1: }"]

ACTIVATION = {
    "args": {
        "amount": 600,
        "note": 'a"b\n\té',
        "to": "a@example.com",
        "currency": "EUR",
        "items": [{"price": 50, "sku": "X"}, {"price": 150, "sku": "Y"}],
    }
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The parser saved as shared/Makefile saves it, where google-re2 cannot be imported (as on an x86 machine
    building the layer's aarch64 wheels): the build must not import celpy's package, which needs it."""
    folder = tmp_path_factory.mktemp("build")
    (folder / "re2.py").write_text("raise ImportError('google-re2 built for another machine')\n")
    without_re2 = os.environ | {"PYTHONPATH": str(folder)}
    refused = subprocess.run([sys.executable, "-c", "import celpy"], env=without_re2, capture_output=True)
    assert refused.returncode != 0, "the stand-in re2 should keep celpy's package from importing"
    path = folder / "cel_parser.pickle"
    subprocess.run([sys.executable, "-m", "stalwart_agents.reading.cel", str(path)], env=without_re2, check=True)
    return path


@pytest.fixture(scope="module")
def parsers(saved: Path) -> tuple[Lark, Lark]:
    """The saved parser and the one cel-python builds itself, side by side."""
    loaded = cel.load_parser(saved, celparser)
    assert loaded is not None
    kept = celparser.CELParser.CEL_PARSER
    celparser.CELParser.CEL_PARSER = None
    try:
        celparser.CELParser()
        built = celparser.CELParser.CEL_PARSER
    finally:
        celparser.CELParser.CEL_PARSER = kept
    assert built is not None and built is not loaded
    return loaded, built


def positions(tree: Tree) -> list[tuple[Any, ...]]:
    """Every node's rule and where it is in the source: what cel-python's error messages point at."""
    return [(node.data, node.meta.line, node.meta.column, node.meta.end_column) for node in tree.iter_subtrees()]


@pytest.mark.parametrize("expression", CORPUS)
def test_the_saved_parser_reads_every_expression_as_cel_pythons_own(parsers, expression):
    loaded, built = parsers
    tree = loaded.parse(expression)
    assert tree == built.parse(expression)  # Tree and Token equality compare rules, token types and text
    assert positions(tree) == positions(built.parse(expression))


def test_the_saved_parser_keeps_cel_pythons_token_callback_for_true_and_false(parsers):
    loaded, _ = parsers
    literals = [token for token in loaded.parse("true && !false && truthy").scan_values(lambda t: isinstance(t, Token))]
    assert [(token.type, str(token)) for token in literals] == [
        ("BOOL_LIT", "true"),
        ("BOOL_LIT", "false"),
        ("IDENT", "truthy"),
    ]


@pytest.mark.parametrize("expression", CORPUS)
def test_rules_evaluate_the_same_with_the_saved_parser(parsers, expression):
    def outcome(parser: Lark) -> str:
        environment = celpy.Environment()
        activation = {key: json_to_cel(value) for key, value in ACTIVATION.items()}
        return repr(environment.program(parser.parse(expression)).evaluate(activation))

    loaded, built = parsers
    assert outcome(loaded) == outcome(built)


@pytest.mark.parametrize("expression", NOT_CEL)
def test_the_saved_parser_refuses_what_cel_python_refuses_at_the_same_place(parsers, expression):
    loaded, built = parsers
    with pytest.raises(UnexpectedInput) as from_loaded:
        loaded.parse(expression)
    with pytest.raises(UnexpectedInput) as from_built:
        built.parse(expression)
    assert type(from_loaded.value) is type(from_built.value)
    assert (from_loaded.value.line, from_loaded.value.column) == (from_built.value.line, from_built.value.column)


def with_header(saved: Path, into: Path, **changes: str) -> Path:
    header, pickle = saved.read_bytes().split(b"\n", 1)
    into.write_bytes(json.dumps(json.loads(header) | changes).encode() + b"\n" + pickle)
    return into


@pytest.mark.parametrize(
    "changes", [{"lark": "1.0.0"}, {"python": "3.12"}, {"cel-python": "0" * 64}], ids=["lark", "python", "grammar"]
)
def test_a_parser_saved_from_anything_else_is_not_used(saved, tmp_path, changes):
    stale = with_header(saved, tmp_path / "cel_parser.pickle", **changes)
    assert cel.load_parser(stale, celparser) is None
    assert cel.load_parser(with_header(saved, tmp_path / "same.pickle"), celparser) is not None


@pytest.mark.parametrize(
    "content",
    [b"", b"\x80\x05\x95 not json at all", b'{"a": 1}\n', b"[]\n" + b"\x80" * 20],
    ids=["empty", "binary", "other json", "truncated"],
)
def test_a_file_that_is_not_a_saved_parser_is_not_used(tmp_path, content):
    (tmp_path / "cel_parser.pickle").write_bytes(content)
    assert cel.load_parser(tmp_path / "cel_parser.pickle", celparser) is None


def test_a_truncated_saved_parser_is_not_used(saved, tmp_path):
    cut = tmp_path / "cel_parser.pickle"
    cut.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    assert cel.load_parser(cut, celparser) is None


def test_without_a_saved_parser_cel_python_builds_its_own(monkeypatch):
    assert not cel.PREBUILT_PARSER.exists()  # a checkout has none; only the layer's build makes it
    monkeypatch.setattr(celparser.CELParser, "CEL_PARSER", None)
    program = cel.compile.__wrapped__("args.amount > 500")
    assert program.evaluate({"args": json_to_cel({"amount": 501})})
    assert present(celparser.CELParser.CEL_PARSER).source_path != "<deserialized>"


def test_the_package_hands_its_saved_parser_to_cel_python(saved, tmp_path):
    """As in the layer: the saved parser beside cel.py, used by the first compile, rules read as before."""
    shutil.copytree(
        ROOT / "shared" / "stalwart_agents", tmp_path / "stalwart_agents", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(saved, tmp_path / "stalwart_agents" / "reading" / "cel_parser.pickle")
    script = (
        "from celpy.celparser import CELParser; from stalwart_agents.reading import cel;"
        " print(cel.__file__, cel.evaluate('args.amount * 2 > 1000', {'args': {'amount': 600}}),"
        " cel.evaluate('args.amount * 2 > 1000', {'args': {'amount': 6}}), CELParser.CEL_PARSER.source_path)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=os.environ | {"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == [
        str(tmp_path / "stalwart_agents" / "reading" / "cel.py"),
        "True",
        "False",
        "<deserialized>",
    ]
