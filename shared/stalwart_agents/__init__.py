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
from .tools import OutcomeUnknown, Tool, tool
from .webhook import BadSignature, Webhook, WebhookError, verify_signature

__all__ = [
    "ANSWERS",
    "BadRequest",
    "BadSignature",
    "ConfigError",
    "Desk",
    "Forbidden",
    "InterruptStale",
    "NotFound",
    "OutcomeUnknown",
    "Pause",
    "Refusal",
    "Reply",
    "RunBusy",
    "RunWaiting",
    "StalwartError",
    "Step",
    "StorageUnavailable",
    "Tool",
    "Webhook",
    "WebhookError",
    "tool",
    "verify_signature",
]
