"""A person's changes to a call before approving it: judged, applied, and what the log keeps of them.

An ``approve`` may carry new values for the parameters the tool declares editable, and
no others.  Each is checked against the tool's own types; the check runs again on the
changed call, so a change it refuses is refused with nothing answered; and the approval
covers the changed call only where the same person could approve that call alone.
Otherwise the pause is answered ``edited`` and the run asks about the changed call anew
(``replay.py``), of whoever its rules name, so an edit never carries a call past a rule
its author does not satisfy, and under four eyes the approvals given so far are void.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..errors import BadRequest
from ..tools.python import Tool
from ..vocabulary import JSON
from .answer import Decision
from .arguments import Argument, ArgumentDict, from_dicts, keywords, shown
from .pause import Pause, canonical

MAX_EDITS = 50
"""The most arguments one approval may change: more than any tool a person reads takes."""
MAX_CHANGES = 10
"""How many times a call may be changed and asked again: past that it is approved or declined as it is, so nobody
can grow a run's pauses (and the walk a replay takes through them) without end."""
EDITED = "edited"
"""The reason a changed call is asked again, whatever the check now says of it."""


Fit = Callable[[str, JSON, JSON], JSON]
"""A door's check of one change: ``(name, value, asked)`` to the value the call takes, or ValueError saying why."""


@dataclass(frozen=True)
class Edit:
    """An approval's changes, judged: the pause as asked, as it would ask with the changes (``changed``), the new
    values, who wrote them, the changed call's arguments (each changed one of origin ``edited:<who>``), and how a
    value of each reads (``shown``: in its unit, where the tool gives one)."""

    asked: Pause
    changed: Pause
    changes: dict[str, JSON]
    editor: str | None
    arguments: tuple[Argument, ...]
    shown: Callable[[str, JSON], str]

    def stored(self) -> dict[str, object]:
        """What the pause keeps of the changes besides its answer: the new values, and who wrote them."""
        return {"edits": self.changes, "editor": self.editor}

    def audited(self) -> dict[str, object]:
        """What the log keeps: each change as asked and as approved, in a person's words too, and the changed call."""
        asked = {a["name"]: a["value"] for a in self.asked.arguments}
        lines = [
            {
                "name": name,
                "label": self.asked.labels.get(name, name),
                "asked": asked.get(name),
                "value": value,
                "from": self.shown(name, asked[name]) if name in asked else None,
                "to": self.shown(name, value),
            }
            for name, value in sorted(self.changes.items())
        ]
        return {"edits": lines, "changed_to": {"title": self.changed.title, "arguments": self.changed.arguments}}


def changes_of(pause: Pause, editable: Sequence[str], fit: Fit, edits: Mapping[str, JSON]) -> dict[str, JSON]:
    """The changes ``edits`` makes to ``pause``'s call, each to an argument of ``editable`` and as ``fit`` takes it;
    a value the same as asked is no change.  BadRequest names the first that is not, for either door."""
    if pause.kind != "confirm":
        raise BadRequest(f"edits: a {pause.kind} pause asks no call a person may change; send no edits")
    if len(edits) > MAX_EDITS:
        raise BadRequest(f"edits: at most {MAX_EDITS} arguments may be changed at once")
    asked = {a["name"]: a["value"] for a in pause.arguments}
    changes: dict[str, JSON] = {}
    for name, value in edits.items():
        if name not in editable:
            may = f"only {', '.join(editable)}" if editable else "none of its arguments"
            raise BadRequest(f"edits.{name}: a person may change {may} before approving {pause.label}")
        try:
            fitted = fit(name, value, asked.get(name))
        except ValueError as exc:
            raise BadRequest(f"edits.{name}: {exc}") from None
        if name not in asked or not _same(asked[name], fitted):
            changes[name] = fitted
    return changes


def edit_of(
    pause: Pause,
    changes: dict[str, JSON],
    editor: str | None,
    *,
    title: Callable[[Mapping[str, JSON]], str],
    shown: Callable[[str, JSON], str],
) -> Edit:
    """``changes`` made by ``editor`` to ``pause``'s call; ``title`` describes a call, ``shown`` reads a value."""
    arguments = Decision("approve", edits=changes, editor=editor).applied(from_dicts(pause.arguments))
    return Edit(pause, _changed(pause, title(keywords(arguments)), arguments), changes, editor, tuple(arguments), shown)


def judged(
    pause: Pause, tool: Tool, edits: Mapping[str, JSON], editor: str | None, *, asked_again: int = 0
) -> Edit | None:
    """The changes ``edits`` makes to the call of ``pause``, a pause of ``tool``: to what both the pause (as shown)
    and the tool (now) let a person change, each of the type the tool takes; None where none changes anything.
    ``asked_again`` is how often the call was changed and asked again already (at most ``MAX_CHANGES``)."""
    if asked_again >= MAX_CHANGES:
        raise BadRequest(f"edits: this call was changed {asked_again} times already; approve or decline it as it is")
    editable = [name for name in pause.editable or () if name in tool.editable]
    changes = changes_of(pause, editable, tool.edited, edits)
    return edit_of(pause, changes, editor, title=tool.title, shown=tool.shown) if changes else None


def tainted_by(pause: Pause) -> list[str]:
    """The untrusted calls whose results had reached the run when ``pause`` was asked, as its reasons name them."""
    return [r.split("untrusted:", 1)[1] for r in pause.reasons if r.startswith("tainted_call:") and "untrusted:" in r]


def _changed(pause: Pause, title: str, arguments: list[Argument]) -> Pause:
    """The pause as the changed call would ask it, for the approver rules to judge: an id of its own (their
    judgement is kept by id), its new title, no approvals (they were given to the call as asked) and no deadline:
    an escalation that widened who may answer the call as asked never widens who may approve it changed."""
    listed: list[ArgumentDict] = shown(arguments)
    digest = hashlib.sha256(canonical(listed).encode()).hexdigest()[:16]
    return replace(
        pause,
        id=f"{pause.id}~{digest}",
        arguments=listed,
        title=title,
        approvals=None,
        deadline=None,
        woken=0,
    )


def _same(asked: JSON, value: JSON) -> bool:
    """Whether a value is the one asked: ``150.0`` for ``150`` changes nothing; ``True`` for ``1`` does."""
    return asked == value and isinstance(asked, bool) == isinstance(value, bool)
