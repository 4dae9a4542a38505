"""The pages behind a signed link: ``GET /links/{link}`` shows what it would answer, ``POST`` answers it.

Mail scanners and chat unfurlers fetch every link they see, so a GET never
acts: it shows the pause's card (``approvals/card.py``, rendered by
``card_page.py``: what the chat shows, in the same words) and one button, the
link's decision, a form with no fields that posts back to the same address.  The POST
answers through the door with the pause's own token, so the pause's claim
decides a race between a link and the chat as it decides any other.

Without authentication, or with ``alone`` (the team's choice, see docs/links.md),
the link is the approval: it answers as a principal of its own, which stands for
the thread's owner.  Otherwise the page asks the person to sign in, and a POST
answers as the bearer of its token.  Every page is plain HTML under the service's
policy, needs no script, and never shows the link, the token or the thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..approvals.admission import Admission
from ..approvals.card import WORDS, Card, card_of, expired_of
from ..approvals.links import PATH, Link, Links
from ..approvals.principal import Principal
from ..approvals.rules import LINK_ISSUER, owner_of
from ..approvals.strings import when
from ..door import Door, seen_by
from ..engine.answer import Answer
from ..engine.pause import Pause, ended_by_clock
from ..errors import LinkExpired, NotALink, NotFound, PauseExpired, StalwartError, Unauthorized
from ..storage.base import PauseRecord
from . import card_page
from .auth import Auth, NoAuth
from .declare import Declare
from .schemas import LINK_PAGES, html_answers

__all__ = ["declare_links", "link_principal"]

USED = ("interrupt_stale", "pause_closed", "already_approved")
"""The codes of an answer refused because the pause was answered already (or this link's approval counted)."""

log = logging.getLogger(__name__)


def link_principal(pause: str, decision: str) -> Principal:
    """Who answers through a link that carries the approval alone: the link itself, for its pause and decision."""
    return Principal(issuer=LINK_ISSUER, subject=f"{pause}:{decision}", claims={"link": True}, verified=False)


def declare_links(route: Declare, door: Door, links: Links, auth: Auth, *, alone: bool = False) -> None:
    """``GET`` and ``POST /links/{link}``, where the ``links`` route is served.

    ``alone`` lets a link answer without signing in where ``auth`` would otherwise ask for it.
    """
    pages = _LinkPages(door, links, auth, signing_in=not alone and not isinstance(auth, NoAuth))

    @route(
        "links",
        "GET",
        f"{PATH}{{link}}",
        response_class=HTMLResponse,
        responses=html_answers(LINK_PAGES),
        summary="What a signed link answers",
    )
    async def show(link: str) -> HTMLResponse:
        return await run_in_threadpool(pages.respond, link, pages.show)

    @route(
        "links",
        "POST",
        f"{PATH}{{link}}",
        named="links_answer",
        response_class=HTMLResponse,
        responses=html_answers(LINK_PAGES),
        summary="Answer by a signed link",
    )
    async def answer(link: str, request: Request) -> HTMLResponse:
        return await run_in_threadpool(pages.respond, link, partial(pages.answer, request=request))


@dataclass(frozen=True)
class _Found:
    """A genuine, unexpired link and the pause it names, whose token is still the one it was minted for."""

    link: Link
    pause: PauseRecord


class _LinkPages:
    def __init__(self, door: Door, links: Links, auth: Auth, *, signing_in: bool) -> None:
        self.door, self.links, self.auth, self.signing_in = door, links, auth, signing_in

    def respond(self, link: str, act: Callable[[_Found], HTMLResponse]) -> HTMLResponse:
        """``act`` on what the link names, or the page that says why not.

        An unexpected failure is logged here, without the request's path, which is the link.
        """
        try:
            return self._respond(link, act)
        except Exception:
            log.exception("unexpected error on a link page")
            return _said("linkNotTaken", card_page.words("linkFailed"), 500)

    def _respond(self, link: str, act: Callable[[_Found], HTMLResponse]) -> HTMLResponse:
        try:
            found = self.found(link)
        except LinkExpired as exc:
            return self.link_expired(exc.pause)
        except StalwartError as exc:
            return self.refused(exc, None)
        try:
            return act(found)
        except StalwartError as exc:
            return self.refused(exc, found.pause.id)

    def show(self, found: _Found) -> HTMLResponse:
        """Never acts: a prefetch by a scanner or an unfurler leaves the pause as it was."""
        if self.ended_by_deadline(found.pause):
            return self.expired(found.pause)
        if not self.is_open(found.pause):
            return self.used(found.pause, "interrupt_stale")
        card = self.card(found.pause, None)
        mine = [a for a in card["answers"] if a["decision"] == found.link.decision]
        if self.signing_in:
            action = card_page._p(card_page.words("linkSignIn")) + self.inbox()
        else:
            action = "".join(card_page.button(a) for a in mine)
        expires = card_page._p(card_page.words("linkExpires", when=when(found.link.expires)), "meta")
        card = {**card, "answers": mine, "waits_for": None}
        return card_page.page(card["title"], card_page.card_html(card, action + expires))

    def answer(self, found: _Found, *, request: Request) -> HTMLResponse:
        decision, pause = found.link.decision, found.pause
        who = self.auth.principal(request) if self.signing_in else link_principal(pause.id, decision)
        admitted = self.admitted(pause, who)
        answer = Answer.of(decision, None, pause.token, "link", admitted)
        reply = seen_by(self.door, self.door.answer(admitted, answer, pause.id), admitted)
        shown = Pause.from_record(pause)
        verdict = self.door.verdict(shown, admitted)
        titles = {**verdict.tools, shown.tool: shown.title}
        still = any(waiting.id == pause.id for waiting in reply.waiting)
        did = card_page.taken(decision, shown.title, reply.steps, titles, still)
        return card_page.page(card_page.say_key("linkTaken"), f"<h1>{card_page.words('linkTaken')}</h1>\n{did}")

    def card(self, pause: PauseRecord, reader: Admission | None) -> Card:
        shown = Pause.from_record(pause)
        return card_of(shown, self.door.verdict(shown, reader), reader, edits=False)

    def admitted(self, pause: PauseRecord, who: Principal) -> Admission:
        """The link let its bearer in: the capability is the admission, judged by the pause's rules as it answers."""
        return Admission(pause.thread, who, owner_of(self.door.storage, pause.thread))

    def found(self, link: str) -> _Found:
        read = self.links.read(link)
        stored = self.door.storage.get_pause(read.pause)
        if stored is None or not read.matches(stored.token) or read.decision not in Pause.from_record(stored).answers:
            raise NotALink("this link names nothing that waits here")
        return _Found(read, stored)

    def is_open(self, pause: PauseRecord) -> bool:
        if pause.status != "open":
            return False
        standing_in = Admission(pause.thread, link_principal(pause.id, ""), owner_of(self.door.storage, pause.thread))
        return any(p.id == pause.id for p in self.door.waiting_for(standing_in))

    def inbox(self) -> str:
        """A way to the inbox, where a signed-in person answers."""
        return f'<a class="go" href="{card_page._e(self.links.base)}/inbox">{card_page.words("inboxTitle")}</a>'

    def refused(self, exc: StalwartError, pause: str | None) -> HTMLResponse:
        """The page for an error: what the person can do about it, in the error's status."""
        stored = self.door.storage.get_pause(pause) if pause is not None and exc.code in USED else None
        if stored is not None:
            return self.used(stored, exc.code)
        expired = self.door.storage.get_pause(pause) if pause is not None and isinstance(exc, PauseExpired) else None
        if expired is not None:
            return self.expired(expired)
        if isinstance(exc, NotALink | NotFound):
            return _said("linkBroken", card_page.words("linkBrokenText"), 404)
        if isinstance(exc, LinkExpired):
            return self.link_expired(exc.pause)
        if isinstance(exc, Unauthorized):
            return _said("linkSignInTitle", card_page.words("linkSignIn") + self.inbox(), 401)
        return _said("linkNotTaken", card_page._e(exc.message), exc.status)

    def link_expired(self, pause: str | None) -> HTMLResponse:
        """410 for a link past its hours: where the pause it names ended at its deadline, that nobody answered in
        time and what the run did instead; otherwise that nothing was done, and where the pause may still wait."""
        named = self.door.storage.get_pause(pause) if pause is not None else None
        if named is not None and self.ended_by_deadline(named):
            return self.expired(named)
        title = card_page.say_key("linkExpired")
        where = card_page.words("linkSignIn") + " " if self.signing_in else ""
        said = [f"<h1>{card_page._e(title)}</h1>", card_page._p(card_page.words("linkNothingDone"))]
        return card_page.page(title, "\n".join([*said, card_page._p(where + self.inbox())]), 410)

    def ended_by_deadline(self, pause: PauseRecord) -> bool:
        """Whether nobody answered ``pause`` in time: the clock ended it, or it is past a deadline that ends it and
        the clock has not ticked yet (the next answer would end it, as the clock would)."""
        if ended_by_clock(pause):
            return True
        return pause.status == "open" and Pause.from_record(pause).overdue(self.door.clock())

    def expired(self, pause: PauseRecord) -> HTMLResponse:
        """410: nobody answered in time; when the pause ended, what the run did instead, and that nothing was
        done with this link."""
        shown = Pause.from_record(pause)
        body = card_page.expired_html(shown.title, expired_of(shown))
        return card_page.page(card_page.say_key("requestExpired"), body, 410)

    def used(self, pause: PauseRecord, code: str) -> HTMLResponse:
        """409: what was decided, by whom and when, where the pause says; a counted approval says it waits for
        someone else's.  One the clock ended at its deadline is 410, as nobody answering in time."""
        if self.ended_by_deadline(pause):
            return self.expired(pause)
        if code == "already_approved":
            return _said("linkUsed", card_page.words("outcomeCounted"), 409)
        answered = pause.answer or {}
        decision, at = answered.get("decision"), answered.get("at")
        if not isinstance(decision, str) or not isinstance(at, int | float):
            return _said("linkUsed", card_page.words("linkUsedAlready"), 409)
        label, moment, who = card_page.say_key(WORDS.get(decision, decision)), when(at), _name(answered)
        what = {"decision": label, "when": moment}
        said = card_page.words("linkUsedBy", who=who, **what) if who else card_page.words("linkUsedWhat", **what)
        return _said("linkUsed", said + " " + card_page.words("linkUsedAlready"), 409)


def _said(title_key: str, escaped: str, status: int) -> HTMLResponse:
    title = card_page.say_key(title_key)
    return card_page.page(title, f"<h1>{card_page._e(title)}</h1>\n{card_page._p(escaped)}", status)


def _name(answered: dict[str, object]) -> str | None:
    """Who gave a kept answer, in words; None for an answer by a link alone, or by nobody the service knew."""
    principal = answered.get("principal")
    if not isinstance(principal, dict) or principal.get("iss") == LINK_ISSUER or not principal.get("verified"):
        return None
    by = answered.get("by")
    return by if isinstance(by, str) and by else None
