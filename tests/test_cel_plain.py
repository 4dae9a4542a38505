"""The plain reader (cel_plain) makes, of every expression it reads, the tree cel-python's parser makes; and it reads
nothing that parser refuses, so a rule means what it meant, and a mistake is still reported by cel-python."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stalwart_agents.reading import cel, cel_plain

from .test_cel_parser import CORPUS, NOT_CEL
from .test_cel_subset import expressions


def shape(node: Any) -> Any:
    """A tree as its rules, token types and texts: what both parsers' trees are compared by."""
    if hasattr(node, "data"):
        return (node.data, [shape(child) for child in node.children])
    return (node.type, str(node))


def lark(expression: str) -> Any:
    try:
        return cel._lark_tree(expression)
    except cel.Unparsable:
        return None


def same_as_lark(expression: str) -> None:
    plain = cel_plain.tree(expression)
    if plain is None:
        return
    parsed = lark(expression)
    assert parsed is not None, f"read {expression!r}, which cel-python refuses"
    assert shape(plain) == shape(parsed)
    assert [node.data for node in plain.iter_subtrees()] == [node.data for node in parsed.iter_subtrees()]
    assert [shape(token) for token in plain.scan_values(lambda t: True)] == [
        shape(token) for token in parsed.scan_values(lambda t: True)
    ]


PLAIN = [
    "args.amount > 500",
    '"finance" in who.groups',
    "tool == 'send_receipt' || !(args.amount <= 20)",
    "a < b < c && !!x && x in [] && y in [1, 'a', null, true]",
    "args.amount > 500\n  && args.currency == 'EUR'",
    "(a).b.c != false",
]


@pytest.mark.parametrize("expression", PLAIN)
def test_plain_expressions_are_read_without_lark(expression):
    assert cel_plain.tree(expression) is not None
    same_as_lark(expression)


@pytest.mark.parametrize("expression", CORPUS)
def test_what_it_reads_of_the_corpus_is_cel_pythons_tree(expression):
    same_as_lark(expression)


@pytest.mark.parametrize(
    "expression",
    [
        *NOT_CEL,
        "",
        "a.true",
        "a.in",
        "if",
        "a // note",
        "-1 < a",
        "1.5 > a",
        "1u == a",
        'r"x" == a',
        '"" == a',
        '"a""b" == a',
        "a[1] == 1",
        "f(a)",
        "a.size()",
        "a ? b : c",
        "a + 1 > 2",
        "[1, 2,]",
    ],
)
def test_it_leaves_the_rest_to_cel_python(expression):
    assert cel_plain.tree(expression) is None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_generated_rules_read_as_cel_python_reads_them(expression):
    same_as_lark(expression)


VOCABULARY = [
    "a", "b", "args", ".", "amount", "true", "false", "null", "in", "if", "0", "500", "1.5", "-", "!", "!=", "==",
    "<", "<=", ">", ">=", "&&", "||", "(", ")", "[", "]", ",", "'x'", '"y"', '""', "r", "u", "?", ":", "/", "\n", " ",
]  # fmt: skip


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(VOCABULARY), max_size=9), st.lists(st.sampled_from(["", " ", "\t"]), max_size=9))
def test_token_soup_is_read_only_where_cel_python_reads_it_the_same(words, spaces):
    expression = "".join(word + (spaces[i] if i < len(spaces) else "") for i, word in enumerate(words))
    same_as_lark(expression)


def test_a_plain_rule_loads_no_lark():
    """In a fresh interpreter (lark is loaded in this one): an agent's plain rule costs no parser at all."""
    script = (
        "import sys; from stalwart_agents.reading import cel; cel.prepare('args.amount > 500');"
        " print(cel.evaluate('args.amount > 500', {'args': {'amount': 501}}), 'lark' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]
