"""A person's answer to a pause: as given, as the run reads it, and as the audit keeps it.

``Answer`` is what arrives (with its token, channel and who gave it);
``Decision`` is all a run reads of an answered pause; ``audited`` is what the
thread's log keeps, which is never the token itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..approvals.admission import Admission
from ..approvals.principal import ANONYMOUS, Principal
from ..approvals.rules import owner_of
from ..errors import BadRequest
from ..storage import Storage
from ..storage.keys import approver_reference
from ..tools.python import Parameter
from ..vocabulary import JSON, Decided, OnExpiry
from .arguments import Argument, by_name
from .exact import SAFE_INTEGER, unshowable
from .pause import ANSWERS, CLOCK_CHANNEL, Pause

CLOCK = {"iss": "stalwart:clock", "sub": "deadline"}
"""Who the audit names as having ended a pause at its deadline."""


@dataclass(frozen=True)
class Answer:
    """A person's decision, with who gave it and through which channel (kept on the pause).

    ``who`` is the principal the approver rules judge (the anonymous one where None); only
    ``principal``, its issuer and subject, is kept.  ``edits`` are new values an ``approve``
    gives to parameters its tool lets a person change (``edit.py`` judges them).
    """

    decision: str
    value: JSON = None
    token: str | None = None
    channel: str = "python"
    by: str | None = None
    principal: dict[str, JSON] | None = None
    who: Principal | None = field(default=None, repr=False)
    admitted: Admission | None = field(default=None, repr=False)
    edits: Mapping[str, JSON] | None = None

    @classmethod
    def of(
        cls,
        decision: str,
        value: JSON,
        token: str | None,
        channel: str,
        admitted: Admission,
        by: str | None = None,
        edits: Mapping[str, JSON] | None = None,
    ) -> Answer:
        """An answer from the person a door admitted: judged, kept and audited as them."""
        who = admitted.principal
        return cls(decision, value, token, channel, by or who.subject, who.to_dict(), who, admitted, edits or None)

    def owner_of(self, store: Storage, thread: str) -> str | None:
        """The thread's owner: as the door admitted the answer, or read where it came in another way."""
        return self.admitted.owner if self.admitted is not None else owner_of(store, thread)

    def reference(self, store: Storage) -> str | None:
        """Who answered, as telemetry names them: a verified person, by a reference only ``store`` can make
        (``storage.keys.approver_reference``); None for anyone the service did not verify."""
        who = self.who
        return approver_reference(store, who.issuer, who.subject) if who is not None and who.verified else None

    @classmethod
    def expiry(cls) -> Answer:
        """The clock's answer to a pause at its deadline: taken through the same claim as a person's."""
        return cls("expired", None, None, CLOCK_CHANNEL, CLOCK_CHANNEL, dict(CLOCK))

    @property
    def expires(self) -> bool:
        return self.decision == "expired" and self.channel == CLOCK_CHANNEL and self.who is None

    @property
    def person(self) -> Principal:
        """Who answers, as the approver rules see them."""
        return self.who or ANONYMOUS

    @property
    def editor(self) -> str | None:
        """What a changed argument's origin calls the person who changed it: a verified person's name, the caller's
        word in-process, and nobody for the anonymous principal of a service without sign-in."""
        return self.who.called if self.who is not None else self.by

    def stored(self, value: JSON, at: float, then: OnExpiry | None = None) -> dict[str, object]:
        """What the pause keeps of the answer that claimed it; ``value`` as the run will read it, for an expiry what
        the run then does (``then``), and a verified person's name, which a channel's message says decided."""
        stored: dict[str, object] = {
            "decision": self.decision,
            "value": value,
            "channel": self.channel,
            "by": self.by,
            "principal": self.principal,
            "at": at,
        }
        name = self.who.called if self.who is not None else None
        return stored | ({"then": then} if then is not None else {}) | ({"name": name} if name else {})

    def audited(self, pause: Pause | None) -> dict[str, object]:
        """What the log keeps of this answer: never the token itself, only enough of its digest to match it."""
        carried = hashlib.sha256(self.token.encode()).hexdigest()[:16] if self.token is not None else None
        shown = {"kind": pause.kind, "tool": pause.tool, "arguments": pause.arguments} if pause else {}
        verified = bool(self.principal and self.principal.get("verified"))
        audited: dict[str, object] = {
            **shown,
            "decision": self.decision,
            "value": self.value,
            "token": carried,
            "channel": self.channel,
            "by": self.by,
            "principal": self.principal,
            "verified": verified,
        }
        if self.admitted is not None:
            # What a record of it says to each reader: "You approved" to the thread's owner only, else their name.
            audited |= {"by_owner": self.admitted.is_owner, "name": self.admitted.principal.called}
        return audited

    def checked(self, pause: Pause, fills: Parameter | None = None) -> JSON:
        """The value the run will read, once the decision is one the pause takes; BadRequest otherwise.

        An ask needs a value; where ``fills`` names the parameter it fills, the value is
        made the number that parameter is annotated as.  Every other kind reads None.
        """
        taken = ANSWERS[pause.kind]
        if self.decision not in taken:
            raise BadRequest(f"a {pause.kind} pause takes {', '.join(taken)}, not {self.decision!r}")
        if pause.kind != "ask":
            return None
        value = self.value
        if not isinstance(value, (str, int, float)) or isinstance(value, bool) or str(value).strip() == "":
            raise BadRequest("an ask is answered with a value: the text that answers its question")
        return _coerced(value, fills) if fills is not None else value


@dataclass(frozen=True, slots=True)
class Decision:
    """What a run reads of an answered pause: the choice, and for an ask the value it was answered with; for a
    pause that expired, what the run does then (``on_expiry``); for an approval with changes (``approve``, or
    ``edited`` where the changed call is asked again), the new values and who wrote them."""

    choice: Decided
    value: JSON = None
    then: OnExpiry = "skip"
    edits: Mapping[str, JSON] = field(default_factory=dict)
    editor: str | None = None

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Decision:
        """The decision of an answer as a pause keeps it (``Answer.stored``)."""
        edits = stored.get("edits") or {}
        return cls(stored["decision"], stored.get("value"), stored.get("then", "skip"), edits, stored.get("editor"))

    def applied(self, arguments: Sequence[Argument]) -> list[Argument]:
        """The call's arguments with this decision's changes, each changed one of origin ``edited:<who>``."""
        origin = f"edited:{self.editor}" if self.editor else "edited"
        kept = [a for a in arguments if a.name not in self.edits]
        return by_name([*kept, *(Argument(name, value, origin) for name, value in self.edits.items())])


NUMBERS = (int, float, "int", "float")


def _coerced(value: str | int | float, parameter: Parameter) -> JSON:
    if parameter.annotation in NUMBERS and isinstance(value, str):
        text = value.strip().lstrip("$€£")
        try:
            number = float(text)
        except ValueError:
            raise BadRequest(f"{parameter.name} must be a number, not {value!r}") from None
        if unshowable(number) is not None:
            raise BadRequest(
                f"{parameter.name}: {value!r} is past what a browser shows exactly (at most {SAFE_INTEGER} either way)"
            )
        return int(number) if number.is_integer() and "." not in text else number
    return value.strip() if isinstance(value, str) else value
