"""stalwart-agents: agents that call tools and stop for a person when a call needs one.

Only the errors and the signature check are imported with the package: a webhook
receiver that wants ``verify_signature`` pays for nothing else.  Every other name
is imported the first time it is asked for, and is visible to type checkers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .approvals.signature import BadSignature, verify_signature
from .errors import (
    AlreadyApproved,
    BadRequest,
    ConfigError,
    EditRefused,
    Forbidden,
    InterruptStale,
    NotAnApprover,
    NotFound,
    PauseExpired,
    RunBusy,
    RunWaiting,
    StalwartError,
    StorageUnavailable,
    ValueTooLarge,
)

if TYPE_CHECKING:
    from .approvals.batch import BatchAnswer, BatchOutcome
    from .approvals.inbox import Inbox
    from .approvals.principal import Principal
    from .approvals.webhook import Webhook, WebhookError
    from .desk import Desk
    from .engine.pause import ANSWERS, Pause
    from .engine.reply import CallOutcome, Refusal, Reply
    from .tools.python import OutcomeUnknown, Tool, tool
    from .tools.steps import NondeterministicStep, Run, StepFunction, step

__version__ = "0.2.0"
"""This release; CHANGELOG.md says what changed in it for a team, and what to do about it."""

_LAZY = {
    "ANSWERS": "engine.pause",
    "CallOutcome": "engine.reply",
    "Desk": "desk",
    "BatchAnswer": "approvals.batch",
    "BatchOutcome": "approvals.batch",
    "Inbox": "approvals.inbox",
    "Principal": "approvals.principal",
    "NondeterministicStep": "tools.steps",
    "OutcomeUnknown": "tools.python",
    "Pause": "engine.pause",
    "Refusal": "engine.reply",
    "Reply": "engine.reply",
    "Run": "tools.steps",
    "StepFunction": "tools.steps",
    "Tool": "tools.python",
    "Webhook": "approvals.webhook",
    "WebhookError": "approvals.webhook",
    "step": "tools.steps",
    "tool": "tools.python",
}

__all__ = [
    "ANSWERS",
    "AlreadyApproved",
    "BadRequest",
    "BadSignature",
    "BatchAnswer",
    "BatchOutcome",
    "CallOutcome",
    "ConfigError",
    "Desk",
    "EditRefused",
    "Forbidden",
    "Inbox",
    "InterruptStale",
    "NondeterministicStep",
    "NotAnApprover",
    "NotFound",
    "OutcomeUnknown",
    "Pause",
    "PauseExpired",
    "Principal",
    "Refusal",
    "Reply",
    "Run",
    "RunBusy",
    "RunWaiting",
    "StalwartError",
    "StepFunction",
    "StorageUnavailable",
    "Tool",
    "ValueTooLarge",
    "Webhook",
    "WebhookError",
    "step",
    "tool",
    "verify_signature",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'stalwart_agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
