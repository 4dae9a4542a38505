"""Who may answer a pause (``approvers:``) and four eyes (``approvals:``): over a Desk on SQLite, between two
processes, and over real uvicorn with people signed in by HS256 tokens."""

import contextlib
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from stalwart_agents import ConfigError, Desk, InterruptStale, NotFound, Pause
from stalwart_agents.approvals.principal import Principal
from stalwart_agents.errors import AlreadyApproved, NotAnApprover
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.reading import cel
from stalwart_agents.serve import make_app

from .conftest import ROOT
from .racing import Act, Racing
from .server import serving

TEAM = "https://team.example"
AUDIENCE = "stalwart-shop"
SECRET = "a-team-secret-of-at-least-32-bytes!"

ALICE = Principal(TEAM, "alice", {"groups": ["sales"], "email": "alice@shop.example"})
FIONA = Principal(TEAM, "fiona", {"groups": ["finance"]})
FRANK = Principal(TEAM, "frank", {"groups": ["finance", "audit"]})
GINA = Principal(TEAM, "gina", {"groups": ["finance"]})
MALLORY = Principal(TEAM, "mallory", {"groups": ["sales"]})

FINANCE_FOR_LARGE = """
    approvers:
      - name: finance-large
        tool: charge_card
        kind: confirm
        when: "args.amount > 1000"
        who: '"finance" in who.groups'
"""
FOUR_EYES = """
    approvals:
      charge_card: 2
    approvers:
      - name: finance
        tool: charge_card
        who: '"finance" in who.groups'
"""


def shop(tmp_path: Path, agent: str) -> Path:
    """An agent.yaml for the shop's tools in ``tmp_path``, its agent given ``agent`` (approvers, approvals)."""
    (tmp_path / "tools.py").write_text((ROOT / "examples" / "shop" / "tools.py").read_text())
    given = textwrap.indent(textwrap.dedent(agent).strip("\n"), "    ")
    (tmp_path / "agent.yaml").write_text(f"agents:\n  - name: shop\n    tools: tools.py\n{given}\n")
    return tmp_path / "agent.yaml"


def opened(tmp_path: Path, agent: str, **options) -> Desk:
    return Desk.from_file(shop(tmp_path, agent), storage=f"sqlite:///{tmp_path / 'runs.db'}", **options)


def charge(desk: Desk, thread: str, amount: int, owner: Principal = ALICE):
    """``owner`` starts the thread with a charge, which waits for a person; its pause.  The thread is ``owner``'s under
    ``thread`` itself, as stored (a thread begun before ids were scoped), so every person here names it alike."""
    desk.storage.own(thread, owner.key)
    [pause] = desk.send(thread, f"charge {amount} to order 4411").waiting
    return pause


def approvals(pause: Pause) -> Any:
    """The approvals ``pause``'s JSON shows: how many it needs, and those given."""
    return pause.to_dict()["approvals"]


def answers(desk: Desk, thread: str) -> list[tuple]:
    return [(r["by"], r["decision"], r["outcome"], r.get("error")) for r in desk.history(thread)]


# --- who may answer -------------------------------------------------------------------------------------------


def test_with_no_rule_governing_a_pause_only_the_threads_owner_answers_it(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        pause = charge(desk, "t", 40)
        assert desk.may_answer(pause, ALICE, ALICE.key) and not desk.may_answer(pause, FIONA, ALICE.key)
        with pytest.raises(NotAnApprover) as refused:
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        assert (refused.value.status, refused.value.code) == (403, "not_an_approver")
        assert desk.waiting("t") == [pause] and ledger("charge") == []

        assert desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=ALICE).status == "done"
        assert answers(desk, "t") == [
            ("fiona", "approve", "refused", "not_an_approver"),
            ("alice", "approve", "taken", None),
        ]
        assert len(ledger("charge")) == 1


def test_an_answer_in_process_without_a_principal_speaks_for_the_owner_only_where_no_rule_governs(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        small, large = charge(desk, "small", 40), charge(desk, "large", 2000)
        assert desk.confirm("small", "approve", waiting=small.id).status == "done"
        with pytest.raises(NotAnApprover):
            desk.confirm("large", "approve", waiting=large.id)
        assert len(ledger("charge")) == 1


def test_a_governing_rule_decides_and_the_owner_has_no_right_of_its_own(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        pause = charge(desk, "t", 2000)
        assert not desk.may_answer(pause, ALICE, ALICE.key) and desk.may_answer(pause, FIONA, ALICE.key)
        for someone in (ALICE, MALLORY):
            with pytest.raises(NotAnApprover, match="approver rules"):
                desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=someone)
        with pytest.raises(NotAnApprover):
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token)  # Python's anonymous principal
        assert desk.waiting("t") == [pause] and ledger("charge") == []

        reply = desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        assert reply.status == "done" and [c["amount"] for c in ledger("charge")] == [2000]
        refused = [r for r in desk.history("t") if r["outcome"] == "refused"]
        assert [(r["by"], r["error"], r["tool"], r["principal"]) for r in refused[:2]] == [
            ("alice", "not_an_approver", "charge_card", ALICE.to_dict()),
            ("mallory", "not_an_approver", "charge_card", MALLORY.to_dict()),
        ]
        assert pause.token not in str(desk.history("t"))


def test_a_when_that_cannot_be_evaluated_governs_and_a_who_that_cannot_be_evaluated_allows_nobody(tmp_path, ledger):
    rules = """
        approvers:
          - name: broken-when
            when: "args.amount / 0 > 1"
            who: 'who.email.endsWith("@shop.example")'
    """
    with opened(tmp_path, rules) as desk:
        pause = charge(desk, "t", 40)
        assert not desk.may_answer(pause, FIONA, ALICE.key)  # no email: who errs, so no
        assert desk.may_answer(pause, ALICE, ALICE.key)  # the when erred, so the rule governs, and who holds
        assert not desk.may_answer(pause, Principal(TEAM, "eve", {"email": 7}), ALICE.key)


def test_who_reads_the_person_and_the_call(tmp_path, ledger):
    rules = """
        approvers:
          - name: owner-small-or-audit
            tool: charge_card
            who: >-
              (who.owner && args.amount <= 100 && !who.link)
              || ("audit" in who.groups && who.verified && origins.amount == "typed" && tool == "charge_card"
                  && kind == "confirm" && thread == "t" && who.iss == "https://team.example")
    """
    link = Principal("stalwart:link", "p:approve", {"link": True}, verified=False)
    with opened(tmp_path, rules) as desk:
        small, large = charge(desk, "t", 40), charge(desk, "u", 400)
        assert desk.may_answer(small, ALICE, ALICE.key) and not desk.may_answer(large, ALICE, ALICE.key)
        assert desk.may_answer(small, FRANK, ALICE.key) and not desk.may_answer(large, FRANK, ALICE.key)  # thread u
        assert not desk.may_answer(small, link, ALICE.key) and not desk.may_answer(small, FIONA, ALICE.key)


def test_a_signed_link_stands_for_the_owner_where_no_rule_says_otherwise(tmp_path, ledger):
    link = Principal("stalwart:link", "p:approve", {"link": True}, verified=False)
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        small, large = charge(desk, "t", 40), charge(desk, "u", 2000)
        assert desk.may_answer(small, link, ALICE.key) and not desk.may_answer(large, link, ALICE.key)


def test_admit_lets_in_the_owner_and_whoever_may_answer_what_waits_and_nobody_else(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        large, small = charge(desk, "large", 2000), charge(desk, "small", 40)
        for thread in ("large", "small"):
            desk.admit(thread, ALICE)
        desk.admit("large", FIONA)
        for thread, someone in (("small", FIONA), ("large", MALLORY), ("nowhere", FIONA), ("nowhere", ALICE)):
            with pytest.raises(NotFound, match="no such thread"):
                desk.admit(thread, someone)

        desk.confirm("large", "approve", waiting=large.id, token=large.token, principal=FIONA)
        with pytest.raises(NotFound):
            desk.admit("large", FIONA)  # nothing of hers waits there any more
        desk.admit("large", ALICE)
        assert small in desk.waiting("small")


def test_admit_with_a_pause_id_lets_a_late_approver_in_to_be_told_it_was_answered(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause, other = charge(desk, "t", 40), charge(desk, "u", 40)
        desk.confirm("t", "approve", waiting=pause.id, principal=FIONA)
        desk.confirm("t", "approve", waiting=pause.id, principal=FRANK)
        with pytest.raises(NotFound):
            desk.admit("t", GINA)
        desk.admit("t", GINA, pause=pause.id)
        with pytest.raises(InterruptStale):
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=GINA)
        for someone, thread, pause_id in ((MALLORY, "t", pause.id), (GINA, "t", other.id), (GINA, "t", "nothing")):
            with pytest.raises(NotFound, match="no such thread"):
                desk.admit(thread, someone, pause=pause_id)
        assert len(ledger("charge")) == 1


def test_an_ask_is_governed_by_kind(tmp_path, ledger):
    rules = """
        approvers:
          - name: finance-answers-questions
            kind: [ask, outcome_unknown]
            who: '"finance" in who.groups'
    """
    with opened(tmp_path, rules) as desk:
        desk.storage.own("t", ALICE.key)
        [ask] = desk.send("t", "charge order 4411").waiting
        assert ask.kind == "ask"
        with pytest.raises(NotAnApprover):
            desk.confirm("t", "answer", waiting=ask.id, token=ask.token, value="30", principal=ALICE)
        [confirm] = desk.confirm("t", "answer", waiting=ask.id, token=ask.token, value="30", principal=FIONA).waiting
        assert confirm.kind == "confirm" and desk.may_answer(confirm, ALICE, ALICE.key)


def test_the_owner_may_always_decline_a_confirm_nobody_may_approve_but_never_approve_it(tmp_path, ledger):
    rules = """
        approvers:
          - name: by-mail
            tool: charge_card
            who: 'who.email.endsWith("@finance.example")'
    """
    link = Principal("stalwart:link", "p:skip", {"link": True}, verified=False)
    with opened(tmp_path, rules) as desk:
        pause = charge(desk, "t", 40)
        for someone, decision in ((ALICE, "approve"), (MALLORY, "skip"), (link, "skip"), (FIONA, "cancel_all")):
            with pytest.raises(NotAnApprover):
                desk.confirm("t", decision, waiting=pause.id, token=pause.token, principal=someone)
        assert desk.confirm("t", "skip", waiting=pause.id, token=pause.token, principal=ALICE).status == "done"
        assert desk.waiting("t") == []

        pause = charge(desk, "u", 40)
        assert desk.confirm("u", "cancel_all", waiting=pause.id).status == "cancelled"  # the application, for Alice
        assert ledger("charge") == []
        assert [a[1:3] for a in answers(desk, "t")][-1] == ("skip", "taken")


def test_a_when_reading_an_argument_the_pause_lacks_does_not_govern_it(tmp_path, ledger):
    rules = """
        approvers:
          - name: finance-large
            when: "args.amount > 1000"
            who: '"finance" in who.groups'
    """
    with opened(tmp_path, rules) as desk:
        desk.storage.own("t", ALICE.key)
        [receipt] = desk.send("t", "send the receipt for order 4411").waiting
        assert receipt.tool == "send_receipt" and desk.may_answer(receipt, ALICE, ALICE.key)
        assert not desk.may_answer(receipt, FIONA, ALICE.key)
        assert desk.confirm("t", "approve", waiting=receipt.id, principal=ALICE).status == "done"

        desk.storage.own("u", ALICE.key)
        [ask] = desk.send("u", "charge order 4411").waiting
        assert ask.kind == "ask" and desk.may_answer(ask, ALICE, ALICE.key)
        [confirm] = desk.confirm("u", "answer", waiting=ask.id, value="5000", principal=ALICE).waiting
        assert not desk.may_answer(confirm, ALICE, ALICE.key) and desk.may_answer(confirm, FIONA, ALICE.key)


def test_the_inbox_evaluates_each_condition_once_for_pauses_that_differ_only_in_what_it_never_reads(tmp_path, ledger):
    """A person who may answer nothing reads 20 large charges: each ``when`` is evaluated once per amount, and
    ``who`` (which reads only who.groups) once in all; another such person costs no evaluation at all.  The rules
    do arithmetic, so cel-python evaluates them (plain comparisons never reach it)."""
    rules = """
        approvers:
          - name: finance-large
            when: "args.amount * 2 > 2000"
            who: 'size(who.groups.filter(g, g == "finance")) > 0'
    """
    nina = Principal(TEAM, "nina", {"groups": ["sales"]})
    with opened(tmp_path, rules) as desk:
        for n in range(20):
            charge(desk, f"t{n}", 2000 + n)
        cel._outcome.cache_clear()
        assert desk.inbox(MALLORY).waiting == []
        assert cel._outcome.cache_info().misses == 20 + 1
        assert desk.inbox(nina).waiting == []
        assert cel._outcome.cache_info().misses == 20 + 1
        assert len(desk.inbox(FIONA).waiting) == 20


def test_plain_comparisons_never_reach_cel_python(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        for n in range(5):
            charge(desk, f"t{n}", 2000 + n)
        cel._outcome.cache_clear()
        assert desk.inbox(MALLORY).waiting == []
        assert len(desk.inbox(FIONA).waiting) == 5
        assert cel._outcome.cache_info().misses == 0


# --- rules checked at load ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "key", "said"),
    [
        (
            'approvers:\n  - {name: big, tool: charge_card, when: "args.amout > 1000", who: who.owner}',
            "agents[0].approvers[0].when",
            "reads args.amout, but charge_card takes no argument of that name: amount, order_id",
        ),
        (
            "approvers:\n  - {name: big, tool: charge_card, who: 'who.owner || args.amout < 10'}",
            "agents[0].approvers[0].who",
            "reads args.amout, but charge_card takes no argument of that name",
        ),
        (
            "approvers:\n  - {name: big, tool: [charge_card, charge_crad], who: who.owner}",
            "agents[0].approvers[0].tool",
            "names charge_crad, but the agent has no tool of that name",
        ),
        (
            "approvers:\n  - {name: big, who: '\"finance\" in who.grups'}",
            "agents[0].approvers[0].who",
            "reads who.grups, but a person has only iss, sub, verified, owner, link, groups, roles, email, name",
        ),
        (
            "approvers:\n  - {name: big, when: '\"finance\" in who.groups', who: who.owner}",
            "agents[0].approvers[0].when",
            "reads who.groups, but when decides which pauses the rule governs",
        ),
        (
            "approvers:\n  - {name: big, tool: charge_card, kind: delegate, who: who.owner}",
            "agents[0].approvers[0].kind",
            "delegate pauses are about the turn, not a tool",
        ),
        (
            "approvers:\n  - {name: big, kind: confirms, who: who.owner}",
            "agents[0].approvers[0].kind[0]",
            "must be one of confirm, outcome_unknown, saga_stuck, ask, delegate (got 'confirms')",
        ),
        (
            "approvers:\n  - {name: big, who: 'who.owner &&'}",
            "agents[0].approvers[0].who",
            "is not valid CEL",
        ),
        (
            "approvers:\n  - {name: big, who: who.owner}\n  - {name: big, who: who.verified}",
            "agents[0].approvers[1].name",
            "the approver rule name 'big' is already used by approvers[0]",
        ),
        ("approvals:\n  charge_crad: 2", "agents[0].approvals.charge_crad", "names charge_crad, but the agent has no"),
        (
            "approvals:\n  charge_card: 2",
            "agents[0].approvals.charge_card",
            "needs 2 people to approve charge_card, but no approvers: rule without a when covers its confirm pauses",
        ),
        (
            "approvals:\n  charge_card: 2\napprovers:\n"
            "  - {name: large, tool: charge_card, when: 'args.amount > 1000', who: '\"finance\" in who.groups'}",
            "agents[0].approvals.charge_card",
            "those no rule governs are the thread's owner's alone, who is one person",
        ),
        ("approvals:\n  charge_card: 6", "agents[0].approvals.charge_card", "must be 5 or less (got 6)"),
        ("approvals:\n  charge_card: 0", "agents[0].approvals.charge_card", "must be 1 or more (got 0)"),
    ],
    ids=[
        "when-argument",
        "who-argument",
        "tool",
        "who-field",
        "when-reads-who",
        "delegate-tool",
        "kind",
        "cel",
        "repeated-name",
        "approvals-tool",
        "approvals-nobody-else",
        "approvals-only-when",
        "approvals-many",
        "approvals-none",
    ],
)
def test_a_rule_that_could_never_match_is_refused_at_load_with_file_line_and_key(tmp_path, agent, key, said):
    """``args.amout`` would otherwise load silently and, never evaluable, fail closed on every pause it covers."""
    path = shop(tmp_path, agent)
    with pytest.raises(ConfigError) as refused:
        Desk.from_file(path, storage="memory://")
    line = 6 if "[1]" in key else 5
    assert str(refused.value).startswith(f"{path}:{line}: {key}: "), str(refused.value)
    assert said in str(refused.value)


# --- four eyes ------------------------------------------------------------------------------------------------


def test_four_eyes_needs_two_different_allowed_people(tmp_path, ledger):
    now = 1_750_000_000.0
    with opened(tmp_path, FOUR_EYES, clock=lambda: now) as desk:
        pause = charge(desk, "t", 40)
        assert pause.to_dict()["approvals"] == {"needed": 2, "given": []}

        first = desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        assert first.status == "waiting" and ledger("charge") == []
        [still] = first.waiting
        assert (still.id, still.token) == (pause.id, pause.token)
        [given] = approvals(still)["given"]
        assert given == {"by": "fiona", "principal": FIONA.to_dict(), "at": "2025-06-15T15:06:40.000Z", "name": "fiona"}
        assert desk.waiting("t")[0].to_dict()["approvals"] == still.to_dict()["approvals"]

        with pytest.raises(AlreadyApproved) as twice:
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        assert (twice.value.status, twice.value.code) == (409, "already_approved")
        with pytest.raises(NotAnApprover):
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=ALICE)
        assert approvals(desk.waiting("t")[0])["given"] == [given] and ledger("charge") == []

        assert desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FRANK).status == "done"
        assert len(ledger("charge")) == 1
        assert answers(desk, "t") == [
            ("fiona", "approve", "approval", None),
            ("fiona", "approve", "refused", "already_approved"),
            ("alice", "approve", "refused", "not_an_approver"),
            ("frank", "approve", "taken", None),
        ]
        records: list[dict[str, Any]] = desk.history("t")
        counted, *_, taken = records
        assert counted["ran"] == [] and [call["tool"] for call in taken["ran"]] == ["charge_card"]


def test_the_owner_and_their_signed_link_are_one_person_not_two(tmp_path, ledger):
    rules = """
        approvals:
          charge_card: 2
        approvers:
          - name: owner-or-finance
            tool: charge_card
            who: 'who.owner || "finance" in who.groups'
    """
    link = Principal("stalwart:link", "p:approve", {"link": True}, verified=False)
    with opened(tmp_path, rules) as desk:
        pause = charge(desk, "t", 40)
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=ALICE)
        with pytest.raises(AlreadyApproved):
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=link)
        assert ledger("charge") == []
        assert desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA).status == "done"


def test_an_answer_without_a_principal_is_the_owners_approval_for_four_eyes(tmp_path, ledger):
    rules = """
        approvals:
          charge_card: 2
        approvers:
          - name: anyone-signed-in
            tool: charge_card
            who: "!who.link"
    """
    with opened(tmp_path, rules) as desk:
        pause = charge(desk, "t", 40)
        desk.confirm("t", "approve", waiting=pause.id, principal=ALICE)
        with pytest.raises(AlreadyApproved):
            desk.confirm("t", "approve", waiting=pause.id, by="bob")  # the application, speaking for Alice
        assert ledger("charge") == []
        assert desk.confirm("t", "approve", waiting=pause.id, principal=FIONA).status == "done"


def test_a_skip_or_cancel_all_from_an_allowed_person_ends_four_eyes_at_once(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = charge(desk, "t", 40)
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        with pytest.raises(NotAnApprover):
            desk.confirm("t", "skip", waiting=pause.id, token=pause.token, principal=MALLORY)
        assert desk.confirm("t", "skip", waiting=pause.id, token=pause.token, principal=FRANK).status == "done"
        assert desk.waiting("t") == [] and ledger("charge") == []

        pause = charge(desk, "u", 40)
        assert (
            desk.confirm("u", "cancel_all", waiting=pause.id, token=pause.token, principal=FIONA).status == "cancelled"
        )
        assert ledger("charge") == []


def test_an_approval_counts_once_the_pause_is_answered_and_not_after(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = charge(desk, "t", 40)
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=FRANK)
        with pytest.raises(InterruptStale):
            desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=GINA)
        assert len(ledger("charge")) == 1


def approver(path, url, principal) -> Act:
    """A process's own Desk on ``url``, signed in as ``principal``; each round it approves the pause it is sent."""
    desk = Desk.from_file(path, storage=url)

    def approve(thread, pause_id, token):
        try:
            return principal.subject, desk.confirm(
                thread, "approve", waiting=pause_id, token=token, principal=principal
            ).status
        except InterruptStale:
            return principal.subject, "stale"

    return approve


def racing(path, url, *people) -> Racing:
    """A process of its own for each person, kept for the test: each round, all approve a pause at the same moment."""
    return Racing(approver, *((path, url, who) for who in people))


@pytest.mark.timeout(180)
def test_two_final_approvals_racing_from_two_processes_run_the_call_once(tmp_path, ledger):
    path, url = shop(tmp_path, FOUR_EYES), f"sqlite:///{tmp_path / 'runs.db'}"
    rounds = 4
    with Desk.from_file(path, storage=url) as desk, racing(path, url, FRANK, GINA) as frank_and_gina:
        for n in range(rounds):
            pause = charge(desk, f"final-{n}", 40)
            desk.confirm(f"final-{n}", "approve", waiting=pause.id, token=pause.token, principal=FIONA)
            got = dict(frank_and_gina.round(f"final-{n}", pause.id, pause.token))
            assert sorted(got.values()) == ["done", "stale"], got
        assert len(ledger("charge")) == rounds
        for n in range(rounds):
            outcomes = [r["outcome"] for r in desk.history(f"final-{n}")]
            assert outcomes.count("taken") == 1 and outcomes.count("approval") == 1


@pytest.mark.timeout(180)
def test_two_first_approvals_racing_from_two_processes_count_one_and_take_the_other(tmp_path, ledger):
    path, url = shop(tmp_path, FOUR_EYES), f"sqlite:///{tmp_path / 'runs.db'}"
    with Desk.from_file(path, storage=url) as desk, racing(path, url, FRANK, GINA) as frank_and_gina:
        for n in range(3):
            pause = charge(desk, f"first-{n}", 40)
            got = dict(frank_and_gina.round(f"first-{n}", pause.id, pause.token))
            assert sorted(got.values()) == ["done", "waiting"], got
            records: list[dict[str, Any]] = desk.history(f"first-{n}")
            assert sorted(r["outcome"] for r in records) == ["approval", "taken"]
        assert len(ledger("charge")) == 3


# --- over HTTP ------------------------------------------------------------------------------------------------


def token(who: Principal) -> dict:
    claims = {"iss": TEAM, "aud": AUDIENCE, "sub": who.subject, "exp": int(time.time()) + 300, **who.claims}
    return {"Authorization": f"Bearer {jwt.encode(claims, SECRET, algorithm='HS256')}"}


@contextlib.contextmanager
def over_http(tmp_path: Path, agent: str) -> Iterator[tuple[httpx.Client, Desk]]:
    """The shop with ``agent``'s rules under uvicorn, people signed in by HS256 tokens: a client on it, and its desk."""
    with (
        opened(tmp_path, agent) as desk,
        serving(make_app(desk, auth=SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE))) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        yield client, desk


@pytest.fixture
def served(tmp_path, ledger, request):
    with over_http(tmp_path, request.param) as served:
        yield served


def started(client: httpx.Client, thread: str, text: str) -> dict:
    reply = client.post(f"/threads/{thread}/messages", json={"text": text}, headers=token(ALICE))
    assert reply.status_code == 200, reply.text
    [pause] = reply.json()["waiting"]
    return pause


def resume(client: httpx.Client, thread: str, pause: dict, who: Principal, decision: str = "approve") -> httpx.Response:
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": decision}
    return client.post(f"/threads/{thread}/resume", json=body, headers=token(who))


@pytest.mark.parametrize("served", [FINANCE_FOR_LARGE], indirect=True)
def test_over_http_an_approver_rule_refuses_the_owner_and_lets_finance_answer(served, ledger):
    client, desk = served
    pause = started(client, "t", "charge 2000 to order 4411")
    refused = resume(client, "t", pause, ALICE)
    assert (refused.status_code, refused.json()["error"]) == (403, "not_an_approver")
    assert client.get("/threads/t/interrupts", headers=token(ALICE)).json()["waiting"][0]["id"] == pause["id"]
    assert ledger("charge") == []

    assert resume(client, pause["thread"], pause, MALLORY).status_code == 404  # nothing there is hers: no such thread
    listed = client.get(f"/threads/{pause['thread']}/interrupts", headers=token(FIONA))
    assert listed.status_code == 200 and listed.json()["waiting"][0]["id"] == pause["id"]
    taken = resume(client, pause["thread"], pause, FIONA)
    assert taken.status_code == 200 and taken.json()["waiting"] == [], taken.text
    assert [c["amount"] for c in ledger("charge")] == [2000]
    assert [(r["by"], r["outcome"], r.get("error")) for r in desk.history(pause["thread"])] == [
        ("alice", "refused", "not_an_approver"),
        ("fiona", "taken", None),
    ]


@pytest.mark.parametrize("served", [FOUR_EYES], indirect=True)
def test_over_http_four_eyes_takes_two_people_and_the_same_one_twice_is_refused(served, ledger):
    client, _ = served
    pause = started(client, "t", "charge 40 to order 4411")
    assert pause["approvals"] == {"needed": 2, "given": []}

    first = resume(client, pause["thread"], pause, FIONA)
    assert first.status_code == 200, first.text
    [still] = first.json()["waiting"]
    assert (still["id"], still["token"]) == (pause["id"], pause["token"])
    assert [g["principal"]["sub"] for g in still["approvals"]["given"]] == ["fiona"]

    again = resume(client, pause["thread"], pause, FIONA)
    assert (again.status_code, again.json()["error"]) == (409, "already_approved")
    assert ledger("charge") == []

    shown = client.get(f"/threads/{pause['thread']}/interrupts", headers=token(FRANK)).json()["waiting"][0]
    assert [g["by"] for g in shown["approvals"]["given"]] == ["fiona"]
    second = resume(client, pause["thread"], pause, FRANK)
    assert second.status_code == 200 and second.json()["waiting"] == [], second.text
    assert [(s["tool"], s["status"]) for s in second.json()["steps"]] == [("charge_card", "done")]
    assert len(ledger("charge")) == 1


@pytest.mark.parametrize("served", [FOUR_EYES], indirect=True)
def test_over_http_a_skip_from_an_allowed_person_ends_four_eyes(served, ledger):
    client, _ = served
    pause = started(client, "t", "charge 40 to order 4411")
    assert len(resume(client, pause["thread"], pause, FIONA).json()["waiting"]) == 1
    skipped = resume(client, pause["thread"], pause, FRANK, "skip")
    assert skipped.status_code == 200 and skipped.json()["waiting"] == [], skipped.text
    assert [(s["tool"], s["status"]) for s in skipped.json()["steps"]] == [("charge_card", "skipped")]
    assert client.get("/threads/t/interrupts", headers=token(ALICE)).json()["waiting"] == []
    assert ledger("charge") == []
