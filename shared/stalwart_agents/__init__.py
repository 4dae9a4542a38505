"""stalwart-agents: agents that call tools and stop for a person when a call needs one.

Only the errors and the signature check are imported with the package: a webhook
receiver that wants ``verify_signature`` pays for nothing else.  Every other name
is imported the first time it is asked for, and is visible to type checkers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import (
    AlreadyApproved,
    BadRequest,
    ConfigError,
    Forbidden,
    InterruptStale,
    NotAnApprover,
    NotFound,
    RunBusy,
    RunWaiting,
    StalwartError,
    StorageUnavailable,
    ValueTooLarge,
)
from .signature import BadSignature, verify_signature

if TYPE_CHECKING:
    from .auth import Principal
    from .desk import Desk
    from .inbox import Inbox
    from .pause import ANSWERS, Pause
    from .reply import CallOutcome, Refusal, Reply
    from .steps import NondeterministicStep, Run, StepFunction, step
    from .tools import OutcomeUnknown, Tool, tool
    from .webhook import Webhook, WebhookError

_LAZY = {
    "ANSWERS": "pause",
    "CallOutcome": "reply",
    "Desk": "desk",
    "Inbox": "inbox",
    "Principal": "auth",
    "NondeterministicStep": "steps",
    "OutcomeUnknown": "tools",
    "Pause": "pause",
    "Refusal": "reply",
    "Reply": "reply",
    "Run": "steps",
    "StepFunction": "steps",
    "Tool": "tools",
    "Webhook": "webhook",
    "WebhookError": "webhook",
    "step": "steps",
    "tool": "tools",
}

__all__ = [
    "ANSWERS",
    "AlreadyApproved",
    "BadRequest",
    "BadSignature",
    "CallOutcome",
    "ConfigError",
    "Desk",
    "Forbidden",
    "Inbox",
    "InterruptStale",
    "NondeterministicStep",
    "NotAnApprover",
    "NotFound",
    "OutcomeUnknown",
    "Pause",
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
