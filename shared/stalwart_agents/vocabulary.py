"""The closed sets of words the engine, its stores and its JSON share, each a Literal type, in one place.

mypy then refuses a status or a choice spelled wrong, wherever it is compared
or stored.  The run store keeps the same sets as tuples (``RUN_STATUSES``,
``PAUSE_STATUSES``, ``JOURNAL_STATUSES``), and a test holds the two to each other.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypeAliasType

JSON = TypeAliasType("JSON", "str | int | float | bool | list[JSON] | dict[str, JSON] | None")
"""A value as JSON holds it: what arguments, results and stored state are made of (named, so schemas can recurse)."""

CONTROL_CHARACTERS = r"\x00-\x1f\x7f-\x9f"
"""C0, DEL and C1: never in a thread id, a tool name or a cursor a store is asked for (a NUL alone broke Postgres)."""

RunStatus = Literal["running", "waiting", "done", "cancelled", "failed"]
PauseStatus = Literal["open", "answered", "closed"]
"""``closed``: the run moved past it (it finished, or was rolled back) before anyone answered it."""
JournalStatus = Literal["started", "done", "failed", "unknown"]
CallStatus = Literal[JournalStatus, "skipped", "cancelled", "expired"]
"""What became of one call, as a reply reports it: the journal's word, skipped or cancelled by a person, or expired:
nobody answered before its deadline."""

PauseKind = Literal["confirm", "outcome_unknown", "saga_stuck", "ask", "delegate"]
Choice = Literal[
    "approve",
    "skip",
    "cancel_all",
    "happened",
    "did_not_happen",
    "retry",
    "done_by_hand",
    "abandon",
    "answer",
    "decline",
]
"""Every answer some kind of pause takes (``pause.ANSWERS`` says which kind takes which)."""
Decided = Literal[Choice, "expired", "edited"]
"""What a run reads of an answered pause: a person's choice; ``expired``, the clock's, which no person gives; or
``edited``, an approval whose changes this person could not approve alone, so the changed call is asked again."""
OnExpiry = Literal["skip", "cancel_all"]
"""What a run does with a pause that expired: goes on without the call, or cancels and undoes the whole run."""

SagaReason = Literal["cancel_all", "failed", "operator"]
"""Why a run undoes what it did: a person cancelled, a call failed for certain, or an operator rolled it back."""
