"""The plainest CEL conditions, evaluated in Python: comparisons of a field with a literal, joined by ``&&``, ``||``
and ``!``.

Most rules are of that kind (``args.amount > 500``, ``tool == "send_receipt"``, ``"finance" in who.groups``), and
cel-python takes a good part of a millisecond to walk its tree for each; every order id is new, so a cache of its
results rarely hits.  Here such an expression becomes a few Python closures.  They decide only where CEL's meaning
is beyond doubt: values of one type (two ints, two doubles, two strings, two booleans, two nulls), read from fields
that are there.  Anything else (a missing field, ``1 == 1.0``, an int past 64 bits, a list where a scalar was
expected) is left to cel-python, which says what CEL says, errors included; tests/test_cel_subset.py holds the two
to agreement over generated expressions and values.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

Values = Mapping[str, Any]
Evaluation = Callable[[Values], Any]


class Undecided(Exception):
    """The values are outside what this subset decides: cel-python must."""


class NotInSubset(Exception):
    """The expression uses more of CEL than this subset: cel-python evaluates it."""


COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "relation_eq": operator.eq,
    "relation_ne": operator.ne,
    "relation_lt": operator.lt,
    "relation_le": operator.le,
    "relation_gt": operator.gt,
    "relation_ge": operator.ge,
}
ORDERED = (int, float, str)
"""The types CEL orders that this subset orders too (CEL orders booleans as well; those are left to it)."""
INT64 = 2**63
LEAVES = frozenset({str, bool, float, type(None)})
"""The values an activation holds most, which cel-python always takes in: told apart by type alone."""


def decide(evaluation: Evaluation | None, values: Values) -> bool | None:
    """What a ``compiled`` expression evaluates to over ``values``, where this subset decides; else None."""
    if evaluation is None:
        return None
    try:
        result = evaluation(values)
    except Undecided:
        return None
    return result if type(result) is bool else None


def compiled(tree: Any) -> Evaluation | None:
    """The expression as Python closures, or None where it is not in the subset."""
    try:
        return _node(tree)
    except NotInSubset:
        return None


def _node(node: Any) -> Evaluation:
    kind: str | None = getattr(node, "data", None)
    children: list[Any] = getattr(node, "children", [])
    if kind in ("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary"):
        return _operation(kind, children)
    if kind in ("member", "primary") and len(children) == 1:
        return _node(children[0])
    if kind == "paren_expr" and len(children) == 1:
        return _node(children[0])
    if kind == "member_dot" and len(children) == 2:
        return _field(children[0], str(children[1]))
    if kind == "ident" and len(children) == 1:
        return _variable(str(children[0]))
    if kind == "literal" and len(children) == 1:
        literal = _literal(children[0])
        return lambda values: literal
    if kind == "list_lit":
        return _list(children)
    raise NotInSubset(kind)


def _operation(kind: str, children: list[Any]) -> Evaluation:
    if len(children) == 1:
        return _node(children[0])
    if kind == "conditionalor" and len(children) == 2:
        return _either(_node(children[0]), _node(children[1]))
    if kind == "conditionaland" and len(children) == 2:
        return _both(_node(children[0]), _node(children[1]))
    if kind == "unary" and len(children) == 2 and getattr(children[0], "data", None) == "unary_not":
        return _not(_node(children[1]))
    if kind == "relation" and len(children) == 2 and len(getattr(children[0], "children", ())) == 1:
        relation = children[0].data
        left, right = _node(children[0].children[0]), _node(children[1])
        if relation == "relation_in":
            return _within(left, right)
        if relation in COMPARISONS:
            return _compare(COMPARISONS[relation], relation in ("relation_eq", "relation_ne"), left, right)
    raise NotInSubset(kind)


def _either(left: Evaluation, right: Evaluation) -> Evaluation:
    def evaluation(values: Values) -> bool:
        if _boolean(left(values)):
            return _unread(values, True)
        return _boolean(right(values))

    return evaluation


def _both(left: Evaluation, right: Evaluation) -> Evaluation:
    def evaluation(values: Values) -> bool:
        if not _boolean(left(values)):
            return _unread(values, False)
        return _boolean(right(values))

    return evaluation


def _unread(values: Values, result: bool) -> bool:
    """``result``, decided without reading the other side: where cel-python takes ``values`` in at all.  It refuses
    a whole activation that holds an int past 64 bits, read or not; what a condition reads is refused by
    ``_scalar`` already."""
    if not _representable(values):
        raise Undecided
    return result


def _not(operand: Evaluation) -> Evaluation:
    return lambda values: not _boolean(operand(values))


def _compare(compare: Callable[[Any, Any], bool], equality: bool, left: Evaluation, right: Evaluation) -> Evaluation:
    def evaluation(values: Values) -> bool:
        a, b = _scalar(left(values)), _scalar(right(values))
        if type(a) is not type(b) or (not equality and type(a) not in ORDERED):
            raise Undecided
        return compare(a, b)

    return evaluation


def _within(item: Evaluation, items: Evaluation) -> Evaluation:
    def evaluation(values: Values) -> bool:
        wanted, listed = _scalar(item(values)), items(values)
        if not isinstance(listed, list) or any(type(_scalar(each)) is not type(wanted) for each in listed):
            raise Undecided
        return wanted in listed

    return evaluation


def _field(of: Any, name: str) -> Evaluation:
    holder = _node(of)

    def evaluation(values: Values) -> Any:
        value = holder(values)
        if not isinstance(value, Mapping) or name not in value:
            raise Undecided
        return value[name]

    return evaluation


def _variable(name: str) -> Evaluation:
    def evaluation(values: Values) -> Any:
        if name not in values:
            raise Undecided
        return values[name]

    return evaluation


def _list(children: list[Any]) -> Evaluation:
    if not children:
        return lambda values: []
    [items] = children
    if getattr(items, "data", None) != "exprlist":
        raise NotInSubset("list")
    parts = [_node(child) for child in items.children]
    return lambda values: [part(values) for part in parts]


def _literal(token: Any) -> Any:
    kind, text = getattr(token, "type", ""), str(token)
    if kind == "INT_LIT" and text.isdigit():
        return int(text)
    if kind == "FLOAT_LIT":
        return float(text)
    if kind == "BOOL_LIT":
        return text == "true"
    if kind == "NULL_LIT":
        return None
    if kind == "STRING_LIT" and text[:1] in "'\"" and len(text) >= 2 and "\\" not in text and text[1:2] != text[0]:
        try:
            return ast.literal_eval(text)
        except (SyntaxError, ValueError, UnicodeError):  # what CEL's strings hold and Python's cannot: a raw line end
            raise NotInSubset(kind) from None
    raise NotInSubset(kind)


def _scalar(value: Any) -> Any:
    """``value`` where this subset compares it as CEL would; Undecided for anything else."""
    if value is None or type(value) in (bool, str):
        return value
    if type(value) is int and -INT64 <= value < INT64:
        return value
    if type(value) is float and math.isfinite(value):
        return value
    raise Undecided


def _representable(value: Any) -> bool:
    """Whether ``value`` holds no int past 64 bits, however deep."""
    kind = type(value)
    if kind is int:
        return bool(-INT64 <= value < INT64)
    if kind in LEAVES:
        return True
    if isinstance(value, Mapping):
        return all(map(_representable, value.values()))
    if isinstance(value, list | tuple):
        return all(map(_representable, value))
    return True


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise Undecided
    return value
