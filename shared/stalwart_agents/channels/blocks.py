"""A card in Slack's Block Kit: the message a pause is posted as, and the record it becomes once decided.

Every word is the card's (``approvals/card.py``) or the shipped strings', none this
module's own.  A value is shown exactly as it is, as plain text, so no markup in an
argument can hide or restyle what a person approves; the card's own words are
escaped for Slack's mrkdwn, so nothing in them is read as a link, a mention or a
command.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..approvals.card import Answer, Argument, Card
from ..approvals.rules import LINK_ISSUER
from ..approvals.strings import Said, read, said, when
from ..tools.python import shown_value

__all__ = [
    "ACTIONS",
    "LINK_ACTION",
    "Block",
    "action_value",
    "decided_blocks",
    "escaped",
    "named",
    "notice",
    "open_blocks",
    "record_of",
    "woken_blocks",
]

Block = dict[str, Any]
ACTIONS = "stalwart"
"""The ``block_id`` of a message's buttons."""
LINK_ACTION = "link:"
"""What the ``action_id`` of a button that opens a signed link begins with."""
NEEDS_A_VALUE = frozenset({"answer"})
"""Decisions that carry a typed value: a button cannot give one, so the message sends the person to the app."""
SLACK_STYLE = {"primary": "primary", "danger": "danger"}
"""The card's styles as Slack's: ``secondary`` is a button without a style (Slack refuses any other)."""
RECORDS = {
    "approve": "recordApproveBy",
    "skip": "recordSkipBy",
    "cancel_all": "recordCancelAllBy",
    "answer": "recordAnswerBy",
    "happened": "recordHappenedBy",
    "did_not_happen": "recordDidNotHappenBy",
    "retry": "recordRetryBy",
    "done_by_hand": "recordDoneByHandBy",
    "abandon": "recordAbandonBy",
    "decline": "recordDeclineBy",
    "edited": "recordEditedBy",
}
"""The record of each decision, naming who gave it, in the interface's shipped strings."""
ARGUMENTS_PER_SECTION = 5
"""Two fields an argument (its label and origin, its value), and Slack takes ten fields a section."""
HEADER, BUTTON, FIELD, TEXT = 150, 75, 2000, 3000
"""Slack's limits on a header's, a button's, a field's and a section's text."""


def action_value(pause: str, decision: str) -> str:
    """What a button carries back: the pause and the decision, never the pause's token."""
    return f"{decision}:{pause}"


def open_blocks(card: Card, pause: str, links: Mapping[str, str] | None) -> list[Block]:
    """The card while it waits: what it asks and why, then one button per answer it takes.

    With ``links`` (a call answered through its signed link: irreversible, or one the team
    names), each button opens the link for its decision instead of answering on one click;
    where ``links`` is empty there, and for answers that need a typed value, the message
    sends the person to the app instead.
    """
    blocks = card_blocks(card)
    if card["waits_for"] is not None:
        blocks.append(_section(escaped(_say(card["waits_for"]))))
    offered = [a for a in card["answers"] if a["decision"] not in NEEDS_A_VALUE]
    if links is not None:
        buttons = [_link(a, links[a["decision"]]) for a in offered if a["decision"] in links]
    else:
        buttons = [_button(a, pause) for a in offered]
    if buttons:
        blocks.append({"type": "actions", "block_id": ACTIONS, "elements": buttons})
    typed = any(answer["decision"] in NEEDS_A_VALUE for answer in card["answers"])
    if typed or not (buttons or card["waits_for"]):
        blocks.append(_context(_say(said("linkSignIn"))))
    return blocks


def decided_blocks(card: Card, answer: Mapping[str, Any], then: Said | None = None) -> list[Block]:
    """The card once decided: its title, who decided what and when (and, for the clock's answer, what the run did
    instead), then what was asked; no buttons left."""
    [header, *rest] = card_blocks(card, timed=False)
    lines = [f"*{escaped(record_of(card, answer))}*"]
    at = answer.get("at")
    if named(answer) is not None and isinstance(at, int | float):
        lines.append(escaped(when(at)))
    if then is not None:
        lines.append(escaped(_say(then)))
    return [header, _section("\n".join(lines)), *rest]


def woken_blocks(card: Card, escalated: bool) -> tuple[str, list[Block]]:
    """A reminder, or the escalation, as a reply under the message: that it still waits (or who may now answer
    too), for how long; the text Slack notifies with, and the blocks."""
    sentence = _say(card["escalation"] if escalated and card["escalation"] is not None else said("inboxTitle"))
    lines = [f"*{escaped(sentence)}*", escaped(card["title"] or card["question"])]
    blocks = [_section("\n".join(lines))]
    if card["deadline"] is not None:
        blocks.append(_context(_say(card["deadline"])))
    return escaped(f"{sentence} {card['title'] or card['question']}"), blocks


def record_of(card: Card, answer: Mapping[str, Any]) -> str:
    """What was decided, by whom, in the shipped strings: "Fiona approved: Charge 40.00 EUR to order 4411"; the
    clock's answer is that nobody answered in time, and an answer from nobody the service can name says what was
    decided and when."""
    decision, title = str(answer.get("decision")), card["title"] or card["question"]
    if decision == "expired":
        return _say(said("recordExpired", title=title))
    words = next((_say(a["words"]) for a in card["answers"] if a["decision"] == decision), decision)
    who = named(answer)
    if who is None:
        at = answer.get("at")
        return _say(said("linkUsedWhat", decision=words, when=when(at) if isinstance(at, int | float) else ""))
    delegated = card["kind"] == "delegate" and decision == "approve"
    key = "recordDelegateBy" if delegated else RECORDS.get(decision, "recordOtherBy")
    changes = _changes(card, answer.get("edits"))
    if changes and decision == "approve":
        key = "recordApproveEditedBy"
    value = answer.get("value")
    shown = value if isinstance(value, str) else json.dumps(value)
    return _say(said(key, who=who, title=title, decision=words, value=shown, changes=changes))


def named(answer: Mapping[str, Any]) -> str | None:
    """Who gave a kept answer, in words; None for a signed link alone, or anyone the service did not verify."""
    principal = answer.get("principal")
    if not isinstance(principal, Mapping) or not principal.get("verified") or principal.get("iss") == LINK_ISSUER:
        return None
    by = answer.get("name") or answer.get("by")
    return by if isinstance(by, str) and by else None


def notice(card: Card) -> str:
    """The message's text, for notifications and screen readers: the warning first where there is one."""
    words = card["question"] or card["title"]
    return escaped(f"{_say(said('irreversible'))} {words}" if card["irreversible"] else words)


def card_blocks(card: Card, *, timed: bool = True) -> list[Block]:
    """What the message says of the pause, open or decided: every word the card's.  ``timed`` adds its deadline and
    escalation, which a decided pause no longer has."""
    blocks: list[Block] = [{"type": "header", "text": _plain(card["title"] or card["question"], HEADER)}]
    if card["irreversible"]:
        blocks.append(_section(f":warning: *{escaped(_say(said('irreversible')))}*"))
    if card["question"] and card["question"].rstrip("?") != card["title"]:
        blocks.append({"type": "section", "text": _plain(card["question"], TEXT)})
    arguments = card["arguments"]
    for start in range(0, len(arguments), ARGUMENTS_PER_SECTION):
        shown = arguments[start : start + ARGUMENTS_PER_SECTION]
        section: Block = {"type": "section", "fields": [f for argument in shown for f in _fields(argument)]}
        if start == 0:
            section["text"] = _mrkdwn(f"*{escaped(_say(said('argumentsTitle')))}*")
        blocks.append(section)
    if card["reasons"]:
        reasons = "".join(f"\n• {escaped(_say(reason))}" for reason in card["reasons"])
        blocks.append(_section(f"*{escaped(_say(said('reasonsTitle')))}*{reasons}"))
    who = [card["deciders"], card["asked"]] if card["deciders"] is not None else [card["asked"]]
    if timed:
        who += [words for words in (card["deadline"], card["escalation"]) if words is not None]
    blocks.append({"type": "context", "elements": [_mrkdwn(escaped(_say(words))) for words in who]})
    return blocks


def escaped(text: str) -> str:
    """Text for Slack's mrkdwn: what it would read as a link, a mention or a command (``<...>``) shown as written."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _fields(argument: Argument) -> list[Block]:
    """An argument as a row of two fields: its label over where its value came from; the value, exactly as it is
    (plain text, on one line, as the link page shows it), so no markup in it can hide or restyle what it says."""
    origin = _say(argument["origin"])
    if "source" in argument:
        origin += " · " + _say(said("origin_from", tool=argument["source"]["title"]))
    value = " ".join(argument["shown"].split()) or json.dumps(argument["shown"])
    return [_mrkdwn(f"*{escaped(argument['label'])}*\n_{escaped(origin)}_", FIELD), _plain(value, FIELD)]


def _changes(card: Card, edits: object) -> str:
    """A person's changes before approving, as the chat's record says them: "120.00 EUR (asked 150.00 EUR)"."""
    if not isinstance(edits, Mapping) or not edits:
        return ""
    shown = {argument["name"]: argument for argument in card["arguments"]}
    said_ = []
    for name, value in edits.items():
        argument = shown.get(name)
        unit = argument.get("unit") if argument is not None else None
        asked = argument.get("asked", argument) if argument is not None else None
        before = asked["shown"] if asked is not None else ""
        said_.append(_say(said("editChange", to=shown_value(value, unit), **{"from": before})))
    return ", ".join(said_)


def _button(answer: Answer, pause: str) -> Block:
    """A button that answers: it carries the pause and the decision back to the click route."""
    return _styled(answer, {"action_id": answer["decision"], "value": action_value(pause, answer["decision"])})


def _link(answer: Answer, url: str) -> Block:
    """A button that opens the signed link of its decision: the page there shows the call once more and acts only
    when the person confirms.  Slack still reports the click, which the click route takes as nothing."""
    return _styled(answer, {"action_id": f"{LINK_ACTION}{answer['decision']}", "url": url})


def _styled(answer: Answer, button: Block) -> Block:
    styled: Block = {"type": "button", "text": _plain(_say(answer["words"]), BUTTON), **button}
    if answer["style"] in SLACK_STYLE:
        styled["style"] = SLACK_STYLE[answer["style"]]
    return styled


def _say(words: Said) -> str:
    return read(words)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(text: str, limit: int) -> Block:
    return {"type": "plain_text", "text": _cut(text, limit) or " ", "emoji": False}


def _mrkdwn(text: str, limit: int = TEXT) -> Block:
    return {"type": "mrkdwn", "text": _cut(text, limit)}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(text)}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_mrkdwn(escaped(text))]}
