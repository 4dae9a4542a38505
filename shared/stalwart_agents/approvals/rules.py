"""Who may answer a pause: the ``approvers:`` rules of agent.yaml, and four eyes (``approvals:``).

The rules *governing* a pause are those whose tools and kinds cover it and whose
``when`` holds (a ``when`` that cannot be evaluated governs: a mistake in it must
not hand a large charge back to whoever started the chat).  A pause no rule
governs is its thread owner's to answer, as it always was; a governed one is
answered by whoever some governing rule's ``who`` allows, and a ``who`` that
cannot be evaluated allows nobody.  The owner has no right of its own under a
rule: a team that wants one writes ``who.owner || ...``.

One right stays the owner's under every rule: to decline a confirm pause
(``skip`` or ``cancel_all``, which never run the call), as a requester withdraws
their request; so a rule that nobody satisfies cannot hold a thread for ever.
Approving stays with the rules.

A signed link stands for the thread's owner (``who.owner`` is true for it), so a
rule decides whether a link alone may answer (``who.owner && !who.link``); the
right to decline is the owner's own, not a link's.
"""

from __future__ import annotations

import hmac
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import ApproverConfig
from ..engine.pause import Approval, Pause, iso
from ..reading import cel
from ..reading.check import misnamed as misnamed_call
from ..storage import Storage
from ..tools.python import Tool
from .principal import ANONYMOUS, Principal

LINK_ISSUER = "stalwart:link"
"""The issuer of the principal a signed link answers as."""
WHO = ("iss", "sub", "verified", "owner", "link", "groups", "roles", "email", "name")
"""What a ``who`` condition may read of the person."""
DECLINES = frozenset({"skip", "cancel_all"})
"""The answers that never run the call: the thread's owner may always give them."""
log = logging.getLogger("stalwart_agents")
GOVERNING_KEPT = 10_000
"""How many pauses' governing rules an agent remembers (the least recently read are forgotten first)."""


class Approvers:
    """One agent's policy on who answers its pauses, and how many different people a tool's confirm needs."""

    def __init__(self, rules: Sequence[ApproverConfig] = (), approvals: Mapping[str, int] | None = None) -> None:
        self.rules = tuple(rules)
        self.approvals = dict(approvals or {})
        self._governing: OrderedDict[str, tuple[ApproverConfig, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def needed(self, tool: str, kind: str) -> int:
        """How many different people must approve a pause of ``kind`` about ``tool``: only a confirm needs more
        than one, since every other kind states a fact or asks for a value that one person gives."""
        return self.approvals.get(tool, 1) if kind == "confirm" else 1

    def governing(self, pause: Pause) -> tuple[ApproverConfig, ...]:
        """The rules that decide who answers ``pause``; none leaves it to the thread's owner.

        Kept by pause id: ``when`` reads only the pause, which never changes, and an inbox asks of
        the same pauses for every person who reads it.
        """
        with self._lock:
            if pause.id in self._governing:
                self._governing.move_to_end(pause.id)
                return self._governing[pause.id]
        call = about(pause)
        rules = tuple(rule for rule in self.rules if rule.covers(pause.tool, pause.kind) and rule.governs(call))
        for rule in rules:
            if rule.misjudges(call):
                log.error("the approver rule %s: its when could not be evaluated for pause %s", rule.name, pause.id)
        with self._lock:
            self._governing[pause.id] = rules
            if len(self._governing) > GOVERNING_KEPT:
                self._governing.popitem(last=False)
        return rules

    def may_answer(self, pause: Pause, principal: Principal, owner: str | None) -> bool:
        """Whether ``principal`` may answer ``pause`` in a thread ``owner`` (a principal's key) owns."""
        return self.refusal(pause, principal, owner) is None

    def refusal(self, pause: Pause, principal: Principal, owner: str | None, decision: str | None = None) -> str | None:
        """Why ``principal`` may not answer ``pause`` (with ``decision``, where known), as the person is told; None
        where they may.  The owner declining (``DECLINES``) is never refused.  A rule that cannot be evaluated is
        logged for the team and named as such, never as the person's own refusal."""
        if decision is not None and _declines_own(decision, principal, owner):
            return None
        allowed, failed = self.judged(pause, principal, owner)
        if allowed:
            return None
        if failed:
            log.error("the approver rule %s could not be evaluated for pause %s", ", ".join(failed), pause.id)
            return f"the approver rule {failed[0]} could not be checked; the team running this service has been told"
        if not self.governing(pause):
            return "only the person whose conversation this is may answer it"
        return f"the approver rules for this {pause.kind} of {pause.tool or 'the turn'} do not include you"

    def open_to(self, pause: Pause, principal: Principal, owner: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The answers ``principal`` may give ``pause`` (``refusal`` refuses every other), and the governing rules
        that could not be evaluated."""
        allowed, failed = self.judged(pause, principal, owner)
        return tuple(d for d in pause.answers if allowed or _declines_own(d, principal, owner)), failed

    def judged(self, pause: Pause, principal: Principal, owner: str | None) -> tuple[bool, tuple[str, ...]]:
        """Whether ``principal`` may answer ``pause`` (any answer), and the governing rules that could not be
        evaluated (their ``when`` or, for this person, their ``who``)."""
        rules = self.governing(pause) if self.rules else ()
        if not rules:
            return owns(principal, owner) or escalated_to(pause, principal, owner), ()
        call = about(pause)
        values = {**call, "who": person(principal, owner)}
        judged = [(rule, rule.judges(values)) for rule in rules]
        failed = tuple(rule.name for rule, holds in judged if holds is None or rule.misjudges(call))
        return any(holds is True for _, holds in judged) or escalated_to(pause, principal, owner), failed


def escalated_to(pause: Pause, principal: Principal, owner: str | None) -> bool:
    """Whether ``principal`` may answer ``pause`` because its deadline escalated it to them: the escalation's
    ``who`` holds for them (one that cannot be evaluated allows nobody, as a rule's)."""
    deadline = pause.deadline
    if not pause.escalated or deadline is None or "escalate_to" not in deadline:
        return False
    return cel.evaluate(deadline["escalate_to"], {**about(pause), "who": person(principal, owner)}) is True


def _declines_own(decision: str, principal: Principal, owner: str | None) -> bool:
    """The thread's owner declining: never refused, so a rule nobody satisfies cannot hold the thread."""
    return decision in DECLINES and is_owner(principal, owner)


def about(pause: Pause) -> dict[str, Any]:
    """The call as ``when`` and ``who`` read it."""
    return {
        "args": {a["name"]: a["value"] for a in pause.arguments},
        "origins": {a["name"]: a["origin"] for a in pause.arguments},
        "tool": pause.tool,
        "kind": pause.kind,
        "thread": pause.thread,
    }


def person(principal: Principal, owner: str | None) -> dict[str, Any]:
    """The person as ``who`` reads them: a list claim is always a list, so ``"x" in who.groups`` never errs."""
    claims = principal.claims
    shown: dict[str, Any] = {
        "iss": principal.issuer,
        "sub": principal.subject,
        "verified": principal.verified,
        "owner": owns(principal, owner),
        "link": is_link(principal),
        "groups": listed(claims.get("groups")),
        "roles": listed(claims.get("roles")),
    }
    return shown | {name: claims[name] for name in ("email", "name") if name in claims}


def owns(principal: Principal, owner: str | None) -> bool:
    """Whether ``principal`` stands for the thread's owner: it is the owner, or a signed link."""
    return is_link(principal) or is_owner(principal, owner)


def is_owner(principal: Principal, owner: str | None) -> bool:
    """Whether ``principal`` is the thread's owner themself (a signed link is not)."""
    return owner is not None and same_key(owner, principal.key)


def same_key(stored: str, key: str) -> bool:
    """Whether two principals' keys are one, compared in constant time: an owner key is never guessed by timing."""
    return hmac.compare_digest(stored.encode(), key.encode())


def is_link(principal: Principal) -> bool:
    return principal.issuer == LINK_ISSUER and principal.claims.get("link") is True


def owner_of(store: Storage, thread: str) -> str | None:
    """The thread's owner: a thread begun from Python, or before threads had owners, is the anonymous principal's."""
    stored = store.owner(thread)
    if stored is None and store.last_run(thread) is not None:
        return ANONYMOUS.key
    return stored


def approval(by: str | None, principal: Principal, at: float) -> Approval:
    """One person's approval of a four-eyes pause, as the run keeps it and the pause shows it."""
    given: Approval = {"by": by, "principal": principal.to_dict(), "at": iso(at)}
    if principal.called is not None:
        given["name"] = principal.called
    return given


def approved_by(given: Sequence[Approval], principal: Principal, owner: str | None) -> bool:
    """Whether ``principal`` is among those who have already approved.

    A signed link is the owner's: the owner approving in the chat and then by a link is one person, not two.
    So is an answer without a principal (the anonymous one): the application speaking for the owner.
    """
    me = _person_of(principal.issuer, principal.subject, owner)
    return any(_person_of(g["principal"].get("iss"), g["principal"].get("sub"), owner) == me for g in given)


def _person_of(issuer: object, subject: object, owner: str | None) -> str | None:
    """Who an approval is from, for telling people apart: a principal's key; a link's, and an answer's without a
    principal, is the thread owner's."""
    if issuer in (LINK_ISSUER, ANONYMOUS.issuer):
        return owner
    return Principal(str(issuer), str(subject)).key


def misnamed(rule: ApproverConfig, tools: Mapping[str, Tool]) -> tuple[str, str] | None:
    """What in an approver rule could never match: (the key, a sentence), or None where nothing is wrong.

    Besides the tools and arguments a check rule is held to: a ``when`` decides which pauses a
    rule governs before anyone answers, so it cannot read ``who``; a ``who`` reads only what a
    person has; and a delegate pause is about the turn, never a tool.
    """
    problem = misnamed_call(rule.tool, {"when": rule.when, "who": rule.who}, tools)
    if problem is not None:
        return problem
    if rule.kind == ("delegate",) and rule.tool is not None:
        return "kind", "delegate pauses are about the turn, not a tool: leave tool out of a rule for them alone"
    if rule.when is not None and (read := _names_read(rule.when, "who")):
        return "when", f"reads who.{read[0]}, but when decides which pauses the rule governs: only who reads the person"
    unknown = [name for name in _names_read(rule.who, "who") if name not in WHO]
    if unknown:
        return "who", f"reads who.{unknown[0]}, but a person has only {', '.join(WHO)}"
    return None


def unapprovable(tool: str, rules: Sequence[ApproverConfig]) -> bool:
    """Whether some confirm pauses about ``tool`` could fall to its owner alone, who is one person: unless a rule
    without ``when`` covers them, a pause no ``when`` holds for is governed by no rule."""
    return not any(rule.covers(tool, "confirm") and rule.when is None for rule in rules)


def _names_read(condition: str, variable: str) -> list[str]:
    return sorted(cel.fields_of(condition, variable))


def listed(value: Any) -> list[Any]:
    """A claim as a list: a list claim as it is, one value as a list of it, none as empty."""
    if isinstance(value, list):
        return value
    return [] if value is None else [value]
