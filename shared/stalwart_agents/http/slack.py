"""The route Slack posts a click to: ``POST /slack/actions``, answered as the Slack user who clicked.

Slack posts a form (``payload=<JSON>``) from its servers, signed with the app's
signing secret: the route verifies that signature with slack_sdk's verifier over the
raw body before it reads anything, refuses a click signed more than five minutes
ago or taken before (401, and nothing done), and answers 200 at once, since Slack
gives an app three seconds.  The click is then taken in the background:

- who clicked becomes a principal (``Slack.principal``), let in by the door as
  anyone answering a pause is (``Door.admit``);
- the answer goes through the door with the pause's own token, so its claim decides
  a race between two clicks, or a click and the chat, as it decides any other;
- a click the rules refuse, one that comes too late, a second approval by the same
  person: each is told to the clicker alone (``chat.postEphemeral``), and nothing
  changes;
- the message is then settled to how the pause stands (``Slack.settle``), which
  never shows a decided pause open again.

The browser boundary (``boundary.py``) lets this one path through without JSON and
whatever its origin: a browser cannot sign as Slack, and the signature is checked
before anything else.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.background import BackgroundTasks
from starlette.requests import Request
from starlette.responses import Response

from ..approvals.admission import Admission
from ..approvals.card import WORDS
from ..approvals.principal import Principal
from ..approvals.rules import owner_of
from ..approvals.signature import BadSignature
from ..approvals.strings import read, said, when
from ..channels.blocks import LINK_ACTION, named
from ..door import Door
from ..engine.answer import Answer
from ..engine.pause import Pause, ended_by_clock
from ..errors import AlreadyApproved, BadRequest, NotFound, PauseExpired, StalwartError
from .body import raw
from .declare import Declare
from .link_page import link_principal

if TYPE_CHECKING:
    from ..channels.slack import Slack
    from ..storage import PauseRecord

__all__ = ["SLACK_PATH", "Click", "Clicks", "attach", "clicked", "declare_slack"]

SLACK_PATH = "/slack/actions"
MAX_BODY = 512 * 1024
"""A click's payload carries the whole message it was on: far more than a JSON route takes, still bounded."""
NOT_FROM_SLACK = "the request is not signed by Slack, or was signed more than five minutes ago, or was taken before"
USED = ("interrupt_stale", "pause_closed")
"""The codes of an answer refused because the pause was answered, or moved past, already."""
log = logging.getLogger("stalwart_agents.channels")


@dataclass(frozen=True)
class Click:
    """A press of a button that answers: who (a user of the workspace ``team``), on which message, and what."""

    user: str
    team: str
    channel: str
    ts: str
    pause: str
    decision: str


def declare_slack(route: Declare, door: Door, slack: Slack) -> None:
    """``POST /slack/actions`` (the route ``slack``), answering clicks on what ``slack`` posted through ``door``."""
    attach(slack, door)
    clicks = Clicks(door, slack)

    @route(
        "slack",
        "POST",
        SLACK_PATH,
        response_class=Response,
        summary="A click on a button of a Slack message (Slack's interactivity request URL)",
        include_in_schema=False,
    )
    async def actions(request: Request, background: BackgroundTasks) -> Response:
        body = await raw(request, MAX_BODY)
        if not slack.verified(body, request.headers):
            raise BadSignature(
                "the request is not signed by Slack, was signed more than five minutes ago, or was taken"
            )
        click = clicked(body)
        if click is not None:
            background.add_task(clicks.take, click)
        return Response(status_code=200)


def attach(slack: Slack, door: Door) -> None:
    """Let ``slack`` read what it settles from ``door``: a pause's record, to settle a message again at once where
    the pause was decided while it was being updated; an open pause as its approvers see it, with the approvals
    given so far.  ``declare_slack`` does it; a process that settles Slack's messages without serving the click
    route (a function of its own on AWS) does it too."""
    slack.read_pause = door.storage.get_pause
    slack.shown = lambda pause: _as_shown(door, pause)


def _as_shown(door: Door, pause: Pause) -> Pause:
    """``pause`` as it waits: as anyone standing for the thread's owner reads it (a link does), with the approvals
    given so far; as it is where it waits no more."""
    standing_in = Admission(pause.thread, link_principal(pause.id, ""), owner_of(door.storage, pause.thread))
    return next((waiting for waiting in door.waiting_for(standing_in) if waiting.id == pause.id), pause)


def clicked(body: bytes) -> Click | None:
    """The click a verified body reports; None for one that answers nothing here (a button that opens a signed link,
    which the page there answers); BadRequest for anything that is not a click on one of our buttons."""
    try:
        [payload] = parse_qs(body.decode("utf-8"), strict_parsing=True)["payload"]
        data = json.loads(payload)
        if data["type"] != "block_actions":
            raise ValueError(data["type"])
        [action] = data["actions"]
        if str(action.get("action_id", "")).startswith(LINK_ACTION):
            return None
        user = data["user"]
        decision, _, pause = _text(action, "value").partition(":")
        message = data.get("container") or {}
        click = Click(
            user=_text(user, "id"),
            team=str(user.get("team_id") or _text(data["team"], "id")),
            channel=_text(data["channel"], "id"),
            ts=str(message.get("message_ts") or _text(data["message"], "ts")),
            pause=pause,
            decision=decision,
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise BadRequest("not a click on one of our buttons") from None
    if not (click.pause and click.decision and click.team and click.ts):
        raise BadRequest("not a click on one of our buttons")
    return click


class Clicks:
    """Takes clicks, each in the background of the request that brought it (or, on AWS, in an invocation of its
    own: aws/slack.py)."""

    def __init__(self, door: Door, slack: Slack) -> None:
        self.door, self.slack = door, slack

    def take(self, click: Click) -> None:
        """Answer ``click``; whatever fails is logged, and the clicker told that their answer was not taken."""
        try:
            self._take(click)
        except StalwartError as exc:  # Slack could not say who clicked, or the store could not be read
            log.warning("a click in Slack on pause %s was not taken: %s", click.pause, exc.message)
            self._tell(click, self._refused(exc))
        except Exception:
            log.exception("a click in Slack on pause %s was not taken", click.pause)
            self._tell(click, _say("linkNotTaken"))

    def _tell(self, click: Click, sentence: str) -> None:
        try:
            self.slack.tell(click.channel, click.user, sentence)
        except StalwartError as exc:
            log.warning("the clicker of pause %s could not be told: %s", click.pause, exc.message)

    def _take(self, click: Click) -> None:
        stored = self.door.storage.get_pause(click.pause)
        if stored is None or click.decision not in Pause.from_record(stored).answers:
            self.slack.tell(click.channel, click.user, f"{_say('linkNotTaken')}: no such pause")
            return
        pause, who = Pause.from_record(stored), self.slack.principal(click.user, click.team)
        try:
            admitted = self.door.admit(stored.thread, who, pause=pause.id)
        except NotFound:
            self.slack.tell(click.channel, click.user, f"{_say('linkNotTaken')}: {self._not_yours(pause)}")
            return
        if self.slack.link_only(pause):  # a message posted before the team named it so: its buttons act no more
            self.slack.tell(click.channel, click.user, _say("linkSignIn"))
        else:
            self._answer(click, stored, admitted, who)
        self._settle(click)

    def _answer(self, click: Click, stored: PauseRecord, admitted: Admission, who: Principal) -> None:
        answer = Answer.of(click.decision, None, stored.token, "slack", admitted, by=who.called)
        try:
            reply = self.door.answer(admitted, answer, stored.id)
        except AlreadyApproved:
            self.slack.tell(click.channel, click.user, _say("outcomeCounted"))
        except PauseExpired:
            self.slack.tell(click.channel, click.user, self._used(stored.id))
        except StalwartError as exc:
            used = exc.code in USED
            self.slack.tell(click.channel, click.user, self._used(stored.id) if used else self._refused(exc))
        else:
            if any(waiting.id == stored.id for waiting in reply.waiting):
                self.slack.tell(click.channel, click.user, _say("outcomeCounted"))

    def _settle(self, click: Click) -> None:
        """The message as the pause stands now, where the door's own settling of its channels did not already make
        it so (``Slack.settle`` leaves a message that already says it alone)."""
        stored = self.door.storage.get_pause(click.pause)
        if stored is None:
            return
        try:
            self.slack.settle(Pause.from_record(stored), stored.answer, {"channel": click.channel, "ts": click.ts})
        except StalwartError as exc:
            log.warning("the Slack message of pause %s was not settled: %s", stored.id, exc.message)

    def _not_yours(self, pause: Pause) -> str:
        """Why a person the door did not let in may not answer ``pause``, as the approver rules say it."""
        if self.door.verdict(pause, None).deciders:
            return f"the approver rules for this {pause.kind} of {pause.tool or 'the turn'} do not include you"
        return "only the person whose conversation this is may answer it"

    def _used(self, pause: str) -> str:
        """What became of a pause answered before this click: who decided what and when, or that nobody answered
        in time."""
        stored = self.door.storage.get_pause(pause)
        if stored is None:
            return _say("linkUsed")
        shown = Pause.from_record(stored)
        if ended_by_clock(stored) or (stored.status == "open" and shown.overdue(self.door.clock())):
            return read(said("recordExpired", title=shown.title or shown.question))
        answered: dict[str, Any] = stored.answer or {}
        decision, at = answered.get("decision"), answered.get("at")
        if not isinstance(decision, str) or not isinstance(at, int | float):
            return f"{_say('linkUsed')}: {shown.title or shown.question}"
        what = {"decision": _say(WORDS.get(decision, decision)), "when": when(at)}
        who = named(answered)
        return read(said("linkUsedBy", who=who, **what)) if who else read(said("linkUsedWhat", **what))

    def _refused(self, exc: StalwartError) -> str:
        return f"{_say('linkNotTaken')}: {exc.message}"


def _text(mapping: Any, key: str) -> str:
    value = mapping[key]
    if not isinstance(value, str):
        raise TypeError(key)
    return value


def _say(key: str) -> str:
    return read(said(key))
