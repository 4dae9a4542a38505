"""stalwart-agents: agents that call tools and stop for a person when a call needs one."""

from .desk import Desk
from .errors import (
    BadRequest,
    ConfigError,
    Forbidden,
    InterruptStale,
    NotFound,
    RunBusy,
    RunWaiting,
    StalwartError,
    StorageUnavailable,
)
from .pause import ANSWERS, Pause
from .reply import Refusal, Reply, Step
from .steps import NondeterministicStep, Run, StepFunction, step
from .tools import OutcomeUnknown, Tool, tool
from .signature import BadSignature, verify_signature

__all__ = [
    "ANSWERS",
    "BadRequest",
    "BadSignature",
    "ConfigError",
    "Desk",
    "Forbidden",
    "InterruptStale",
    "NondeterministicStep",
    "NotFound",
    "OutcomeUnknown",
    "Pause",
    "Refusal",
    "Reply",
    "RunBusy",
    "Run",
    "RunWaiting",
    "StalwartError",
    "Step",
    "StepFunction",
    "StorageUnavailable",
    "Tool",
    "Webhook",
    "WebhookError",
    "step",
    "tool",
    "verify_signature",
]


def __getattr__(name: str) -> object:
    """``Webhook`` brings an HTTP client; it is imported when first asked for, not with the package."""
    if name in ("Webhook", "WebhookError"):
        from . import webhook

        return getattr(webhook, name)
    raise AttributeError(f"module 'stalwart_agents' has no attribute {name!r}")
