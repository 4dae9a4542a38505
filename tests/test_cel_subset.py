"""The plain comparisons decided in Python say what cel-python says, for every expression and values generated."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stalwart_agents.reading import cel, cel_subset

FIELDS = ["args.amount", "args.order_id", "args.flag", "args.none", "args.missing", "who.name", "tool", "nothing"]
LITERALS = ["0", "500", "9223372036854775808", "1.5", "500.0", "'a'", '"b"', "''", "true", "false", "null"]
OPERATORS = ["==", "!=", "<", "<=", ">", ">="]

scalars = st.one_of(
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, 1, 500, 501, 499]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.5, 500.0]),
    st.text(max_size=3),
    st.sampled_from(["a", "b", ""]),
    st.booleans(),
    st.none(),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3))


def operands() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(FIELDS), st.sampled_from(LITERALS))


def comparisons() -> st.SearchStrategy[str]:
    compared = st.tuples(operands(), st.sampled_from(OPERATORS), operands()).map(" ".join)
    listed = st.lists(st.sampled_from(LITERALS), max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
    within = st.tuples(operands(), st.one_of(listed, st.just("who.groups"))).map(lambda pair: f"{pair[0]} in {pair[1]}")
    return st.one_of(compared, within, st.sampled_from(FIELDS))


expressions = st.recursive(
    comparisons(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["&&", "||"]), inner).map(" ".join),
        inner.map(lambda e: f"!({e})"),
        inner.map(lambda e: f"({e})"),
    ),
    max_leaves=4,
)
activations = st.fixed_dictionaries(
    {
        "args": st.fixed_dictionaries({"amount": values, "order_id": values, "flag": values, "none": st.none()}),
        "who": st.fixed_dictionaries({"name": values, "groups": st.lists(scalars, max_size=3)}),
        "tool": values,
    }
)


def cel_python(expression, activation):
    """What cel-python says over what the expression reads of the activation, as the product asks it."""
    return cel._outcome(expression, json.dumps(cel.narrowed(expression, activation), sort_keys=True))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, activations)
def test_what_python_decides_cel_python_says_too(expression, activation):
    decided = cel_subset.decide(cel._subset(expression), activation)
    if decided is not None:
        assert decided == cel_python(expression, activation), expression
        assert cel.evaluate(expression, activation) == decided


@pytest.mark.parametrize(
    ("expression", "activation", "expected"),
    [
        ("args.amount > 500", {"args": {"amount": 600}}, True),
        ("args.amount > 500", {"args": {"amount": 20}}, False),
        ('tool == "send_receipt" && args.amount >= 100', {"tool": "send_receipt", "args": {"amount": 99}}, False),
        ('"finance" in who.groups', {"who": {"groups": ["sales", "finance"]}}, True),
        ('!(who.name == "mallory") || who.verified', {"who": {"name": "mallory", "verified": True}}, True),
        ('kind in ["confirm", "outcome_unknown"]', {"kind": "ask"}, False),
    ],
)
def test_the_rules_teams_write_most_are_decided_without_cel_python(expression, activation, expected):
    assert cel._subset(expression) is not None
    assert cel_subset.decide(cel._subset(expression), activation) is expected


@pytest.mark.parametrize(
    ("expression", "activation"),
    [
        ("args.amount > 500", {"args": {}}),
        ("args.amount > 500", {"args": {"amount": "600"}}),
        ("args.amount == 500", {"args": {"amount": 500.0}}),
        ("args.amount > 500", {"args": {"amount": 2**63}}),
        ("args.order_id in [] && args.amount in who.groups", {"args": {"amount": 2**63, "order_id": 0}, "who": {}}),
        ("args.flag || args.amount > 5", {"args": {"flag": True, "amount": [-(2**63) - 1]}}),
        ("who.verified > false", {"who": {"verified": True}}),
    ],
)
def test_values_whose_meaning_is_in_doubt_are_left_to_cel_python(expression, activation):
    assert cel_subset.decide(cel._subset(expression), activation) is None
    assert cel.evaluate(expression, activation) == cel_python(expression, activation)


def test_expressions_beyond_plain_comparisons_are_left_to_cel_python():
    for expression in (
        "args.amount * 2 > 1000",
        "size(args) > 1",
        'args["amount"] > 5',
        "who.groups.exists(g, g == 'x')",
    ):
        assert cel._subset(expression) is None


@pytest.mark.parametrize("literal", ['"a\rb"', '"a\x00b"', '"\ud800"'])
def test_a_string_python_cannot_spell_is_left_to_cel_python(literal):
    expression = f"args.note == {literal}"
    assert cel._subset(expression) is None
    assert cel.evaluate(expression, {"args": {"note": "plain"}}) is False
