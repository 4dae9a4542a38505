"""Parties: who may answer a pause, as keys a store can list it under, so a reader reads only what is theirs.

A pause is listed under its thread's owner (the store adds that party: the owner
may decline, and answers what no rule governs), plus the parties its governing
rules' ``who`` names, and those its deadline's escalation names.  A ``who`` is read,
not run: ``"finance" in who.groups`` names ``group:finance``, ``"x" in who.roles``
``role:x``, ``who.sub == "s"`` ``sub:s``, ``who.email == "e"`` ``email:e``; ``||``
names what each side names; ``&&`` what one of its sides names (whoever satisfies
both satisfies that one); ``who.owner`` names nobody beyond the owner.  Anything
else names ``ANYONE``, which every reader reads.  The parties only narrow what is
read: ``Desk.may_answer`` still decides every pause read, so naming too many costs
reads, never an answer.

An escalation's parties are named when the pause opens, not when the clock
escalates it: a pause's parties never change, so the entries listing it are
written and removed with the pause alone; until the escalation, its readers read
the pause and ``may_answer`` leaves it out.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..engine.pause import Pause
from ..reading import cel
from ..storage.base import ANYONE, owner_party
from .principal import ANONYMOUS, Principal
from .rules import Approvers, listed

Parties = frozenset[str] | None
"""What a ``who`` names: a set of parties (empty: the owner alone), or None where it cannot be read (anyone)."""
_LISTS = {"groups": "group", "roles": "role"}
_FIELDS = {"sub": "sub", "email": "email"}
_SINGLE = (
    *("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary"),
    *("member", "primary", "paren_expr"),
)
"""The nodes that, with one child, are that child."""


def pause_parties(approvers: Approvers, pause: Pause) -> tuple[str, ...]:
    """The parties besides its owner who may answer ``pause`` by ``approvers``' rules and its escalation, sorted."""
    conditions = [rule.who for rule in approvers.governing(pause)] if approvers.rules else []
    deadline = pause.deadline or {}
    if "escalate_to" in deadline:
        conditions.append(deadline["escalate_to"])
    named: set[str] = set()
    for condition in conditions:
        parties = named_by(condition)
        if parties is None:
            return (ANYONE,)
        named |= parties
    return tuple(sorted(named))


def reader_parties(principal: Principal) -> tuple[str, ...]:
    """Every party ``principal`` reads the inbox as: their own key as an owner, their subject, e-mail, groups and
    roles, and ``ANYONE``; the anonymous principal also reads what threads nobody owns hold."""
    claims = principal.claims
    parties = [owner_party(principal.key), f"sub:{principal.subject}", ANYONE]
    if principal == ANONYMOUS:
        parties.append(owner_party(None))
    email = claims.get("email")
    if isinstance(email, str):
        parties.append(f"email:{email}")
    for claim, prefix in _LISTS.items():
        parties += [f"{prefix}:{name}" for name in listed(claims.get(claim)) if isinstance(name, str)]
    return tuple(dict.fromkeys(parties))


@lru_cache(maxsize=1024)
def named_by(condition: str) -> Parties:
    """The parties a ``who`` condition names; None where it cannot be read as naming any (read once a condition)."""
    try:
        tree = cel.parsed(condition)
    except cel.Unparsable:
        return None
    return _named(tree)


def _named(node: Any) -> Parties:
    kind: str | None = getattr(node, "data", None)
    children: list[Any] = getattr(node, "children", [])
    if kind in _SINGLE and len(children) == 1:
        return _named(children[0])
    if kind == "conditionalor" and len(children) == 2:
        left, right = _named(children[0]), _named(children[1])
        return None if left is None or right is None else left | right
    if kind == "conditionaland" and len(children) == 2:
        sides = [side for side in map(_named, children) if side is not None]
        return min(sides, key=len) if sides else None
    if kind == "relation" and len(children) == 2 and len(getattr(children[0], "children", ())) == 1:
        return _relation(children[0].data, children[0].children[0], children[1])
    if _who_field(node) == "owner":
        return frozenset()
    return None


def _relation(relation: str, left: Any, right: Any) -> Parties:
    if relation == "relation_in":
        listed, text = _who_field(right), cel.string_literal(left)
        if listed in _LISTS and text is not None:
            return frozenset({f"{_LISTS[listed]}:{text}"})
    if relation == "relation_eq":
        for one, other in ((left, right), (right, left)):
            field, text = _who_field(one), cel.string_literal(other)
            if field in _FIELDS and text is not None:
                return frozenset({f"{_FIELDS[field]}:{text}"})
    return None


def _who_field(node: Any) -> str | None:
    """The field of ``who`` a node reads (``who.groups``), else None."""
    while getattr(node, "data", None) in _SINGLE and len(node.children) == 1:
        node = node.children[0]
    if getattr(node, "data", None) != "member_dot" or len(node.children) != 2:
        return None
    return str(node.children[1]) if cel.variable_of(node.children[0]) == "who" else None
