"""Who acts: a principal is an issuer and a subject, plus the few claims a rule reads.

Where it comes from (a verified token, API Gateway's authorizer, nobody on loopback)
is the HTTP edge's business (``http/auth.py``); what it may do is the rules'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

CLAIMS = ("groups", "roles", "email", "name")
"""The claims a principal keeps besides issuer and subject: what approval policies read (Cognito's
``cognito:groups`` is kept as ``groups``)."""


@dataclass(frozen=True)
class Principal:
    """Who acts.  ``verified`` is false for the anonymous principal of a service without authentication."""

    issuer: str
    subject: str
    claims: Mapping[str, Any] = field(default_factory=dict)
    verified: bool = True

    @cached_property
    def key(self) -> str:
        """What the store keeps as a thread's owner: issuer and subject, unambiguously joined (read on every move
        and every request, so made once per principal)."""
        return json.dumps([self.issuer, self.subject], separators=(",", ":"))

    @property
    def called(self) -> str | None:
        """What a card calls them: their name, else their e-mail, else their subject; None for the anonymous."""
        if not self.verified:
            return None
        named = self.claims.get("name") or self.claims.get("email")
        return named if isinstance(named, str) and named else self.subject

    def to_dict(self) -> dict[str, Any]:
        return {"iss": self.issuer, "sub": self.subject, "verified": self.verified}


ANONYMOUS = Principal(issuer="stalwart:none", subject="anonymous", verified=False)
