"""``agent.yaml``: what a deployment runs, loaded into frozen, validated models.

Every mistake in the file is reported at once, each naming the file, the line
and the dotted key, so a person can fix the whole file in one pass instead of
meeting its errors one run at a time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import ConfigError
from .reading import cel
from .storage import check_url, default_store
from .vocabulary import OnExpiry, PauseKind

if TYPE_CHECKING:
    import yaml

__all__ = [
    "AgentConfig",
    "ApproverConfig",
    "CheckConfig",
    "Config",
    "DeadlineConfig",
    "EscalateConfig",
    "FromEnv",
    "McpConfig",
    "McpToolConfig",
    "RuleConfig",
    "SelectorConfig",
    "Settings",
    "TimingConfig",
    "duration",
    "load_config",
    "parse_config",
]

NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
PORTUGUESE = "the Portuguese grammar has not shipped yet; the selector reads English (language: en)"

Origin = Literal["typed", "reply", "context", "computed", "result", "model", "agent", "edited"]
ORIGINS: tuple[str, ...] = get_args(Origin)
DEFAULT_TRUSTED: tuple[Origin, ...] = ("typed", "reply", "context", "computed", "result", "agent", "edited")
Loc = tuple[str | int, ...]
MAX_APPROVALS = 5
"""The most people a call may need: beyond a handful, a desk waits on absences, not on judgement."""


def _fail(sentence: str, *at: str | int) -> PydanticCustomError:
    """An error whose sentence is shown as written and whose ``at`` points below the validated value."""
    return PydanticCustomError("config", "{sentence}", {"sentence": sentence, "at": at})


def _repeats(names: Iterable[Any], prefix: Loc, what: str) -> Iterator[tuple[Loc, str]]:
    """Each name used a second time, as (where, sentence): shared by the models and the raw-file pass."""
    first: dict[str, int] = {}
    for index, name in enumerate(names):
        if isinstance(name, str) and name in first:
            yield (
                (*prefix, index, "name"),
                f"the {what} name {name!r} is already used by {_key((prefix[-1], first[name]))}",
            )
        elif isinstance(name, str):
            first[name] = index


def _refuse_repeats(names: Iterable[Any], prefix: Loc, what: str) -> None:
    for at, sentence in _repeats(names, prefix, what):
        raise _fail(sentence, *at)


def _usable_name(value: str) -> str:
    if not NAME.fullmatch(value):
        raise _fail(
            f"{value!r} is not a usable name: start with a lowercase letter, then up to 63 of a-z, 0-9, _ and -"
        )
    return value


def _cel(expression: str) -> str:
    """``expression``, once it parses as CEL; else the parser's own account of where it stopped."""
    try:
        cel.prepare(expression)
    except cel.Unparsable as exc:
        shown = "\n".join(f"      {line}" for line in str(exc).rstrip("\n").splitlines())
        raise _fail(f"is not valid CEL (syntax error at column {exc.column}):\n{shown}") from exc
    return expression


def _as_list(value: Any, what: str) -> Any:
    """A single name as a list of one; an empty list is a slip, since leaving the key out already means every one."""
    if isinstance(value, list) and not value:
        raise _fail(f"names no {what}; name at least one, or leave {what} out to cover every {what}")
    return [value] if isinstance(value, str) else value


class _Model(BaseModel):
    # Built at the first validation, not at import: a function loading its agent as built (aws/built_agent.py) never
    # validates, so its cold start builds none of these validators.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class SelectorConfig(_Model):
    language: Literal["en"] = "en"

    @field_validator("language", mode="before")
    @classmethod
    def _shipped(cls, value: Any) -> Any:
        if value == "pt":
            raise _fail(PORTUGUESE)
        if value != "en":
            raise _fail(f"the selector has no grammar for {value!r}; only en is available")
        return value


MIN_RETENTION_DAYS = 1 / 24
"""An hour: anything shorter is a slip of the keyboard that would remove every finished thread at once."""
MAX_RETENTION_DAYS = 36500


class Settings(_Model):
    """Timings of the engine.

    ``lease_seconds``: how long a worker's hold on a running run lasts unrenewed;
    past it, the worker is taken for dead and another carries the run on.
    ``undo_retries``: how many more times a failing undo is tried before a
    person is asked (saga_stuck); ``undo_backoff``: seconds before the first
    retry, doubling for each one after.
    ``retention_days``: how long a finished thread is kept after its last
    activity (``stalwart prune``; DynamoDB's TTL); a thread that waits is kept.
    ``max_value_bytes``: the largest a call's arguments, its result or an event
    may be as JSON.  At most 128 KiB: an undo's journal entry keeps its call's
    arguments and result beside its own, and a DynamoDB item holds 400 KB.
    """

    lease_seconds: float = Field(30.0, gt=0, allow_inf_nan=False, strict=True)
    undo_retries: int = Field(3, ge=0, strict=True)
    undo_backoff: float = Field(0.5, ge=0, le=60, allow_inf_nan=False, strict=True)
    retention_days: float = Field(30.0, ge=MIN_RETENTION_DAYS, le=MAX_RETENTION_DAYS, allow_inf_nan=False, strict=True)
    max_value_bytes: int = Field(131072, ge=1024, le=131072, strict=True)


class RuleConfig(_Model):
    """A check rule: when its CEL ``when`` holds for a call to one of its tools, refuse or confirm."""

    name: str
    tool: tuple[str, ...] | None = None
    when: str
    then: Literal["refuse", "confirm"]
    sentence: str | None = None
    disclose: bool = Field(True, strict=True)

    @field_validator("tool", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return _as_list(value, "tool")

    @field_validator("when")
    @classmethod
    def _parses(cls, value: str) -> str:
        return _cel(value)

    @model_validator(mode="after")
    def _refusal_says_why(self) -> RuleConfig:
        if self.then == "refuse" and not self.sentence:
            raise _fail("a rule that refuses needs a sentence telling the person why", "sentence")
        return self

    def applies_to(self, tool: str) -> bool:
        return self.tool is None or tool in self.tool

    def holds(self, activation: dict[str, Any]) -> bool:
        """Whether ``when`` is true for these values.

        A rule that cannot be evaluated (a missing key, a type mismatch, a value
        that is not JSON, a result that is not a boolean) holds: it fails closed,
        so an unevaluable refuse rule refuses and an unevaluable confirm rule asks.
        """
        return cel.evaluate(self.when, activation) is not False


DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?")
UNITS = (86400.0, 3600.0, 60.0, 1.0)
MAX_WAIT_DAYS = 366
"""The longest a deadline may be: a year and a day; a longer one is a slip that leaves a pause waiting for ever."""


def duration(text: str) -> float | None:
    """Seconds a person's duration says (``90s``, ``15m``, ``4h``, ``2d``, ``1h30m``); None for anything else, or
    for one that is not above 0 and at most ``MAX_WAIT_DAYS``."""
    matched = DURATION.fullmatch(text.strip()) if isinstance(text, str) else None
    if matched is None or not any(matched.groups()):
        return None
    seconds = sum(float(part) * unit for part, unit in zip(matched.groups(), UNITS, strict=True) if part)
    return seconds if 0 < seconds <= MAX_WAIT_DAYS * 86400 else None


def _duration(value: Any) -> str:
    if not isinstance(value, str) or duration(value) is None:
        raise _fail(f"{value!r} is not a duration: write it as 90s, 15m, 4h, 2d or 1h30m, at most {MAX_WAIT_DAYS}d")
    return value


class EscalateConfig(_Model):
    """Who else may answer once a pause has waited ``after``: a ``who`` condition over the person, as an approver
    rule's, and its ``label`` in a person's words ("the duty manager")."""

    after: str
    to: str
    label: str | None = None

    @field_validator("after", mode="before")
    @classmethod
    def _a_duration(cls, value: Any) -> Any:
        return _duration(value)

    @field_validator("to")
    @classmethod
    def _parses(cls, value: str) -> str:
        return _cel(value)


class TimingConfig(_Model):
    """How long a pause waits, and what happens meanwhile and after.

    ``expires``: a duration (``4h``), or a CEL expression over the call that gives one
    (``args.amount > 1000 ? '8h' : '1h'``).  At the deadline a confirm, an ask or a delegate
    ends ``expired``, which the run takes as ``on_expiry`` says; an outcome_unknown or a
    saga_stuck never decides by itself: it escalates.  ``remind``: durations after which the
    pause is announced again; ``escalate``: who else may answer, and after how long.
    """

    expires: str | None = None
    on_expiry: OnExpiry = "skip"
    remind: tuple[str, ...] = ()
    escalate: EscalateConfig | None = None

    @field_validator("expires", mode="before")
    @classmethod
    def _duration_or_cel(cls, value: Any) -> Any:
        if isinstance(value, str) and duration(value) is None and not value.strip()[:1].isdigit():
            return _cel(value)
        return _duration(value)

    @field_validator("remind", mode="before")
    @classmethod
    def _durations(cls, value: Any) -> Any:
        listed = [value] if isinstance(value, str) else value
        return [_duration(item) for item in listed] if isinstance(listed, list) else listed


class DeadlineConfig(TimingConfig):
    """The timing of the pauses of its tools and kinds (every one's, where it names none): the first entry of
    ``deadlines:`` that covers a pause sets it, unless an approver rule governing the pause sets its own."""

    tool: tuple[str, ...] | None = None
    kind: tuple[PauseKind, ...] | None = None

    @field_validator("tool", "kind", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any, info: ValidationInfo) -> Any:
        return _as_list(value, str(info.field_name))

    def covers(self, tool: str, kind: str) -> bool:
        return (self.tool is None or tool in self.tool) and (self.kind is None or kind in self.kind)


class ApproverConfig(_Model):
    """Who may answer the pauses a rule governs: those of its tools and kinds for which ``when`` holds.

    ``who`` reads the person (``who``) and the call; a pause no rule governs is its thread owner's to answer.
    """

    name: str
    tool: tuple[str, ...] | None = None
    kind: tuple[PauseKind, ...] | None = None
    when: str | None = None
    who: str
    label: str | None = None
    """Who the rule lets answer, in a person's words ("finance"): what a card says must decide."""
    deadline: TimingConfig | None = None
    """The timing of the pauses this rule governs, over what ``deadlines:`` says of them."""

    @field_validator("tool", "kind", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any, info: ValidationInfo) -> Any:
        return _as_list(value, str(info.field_name))

    @field_validator("when", "who")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        return None if value is None else _cel(value)

    def covers(self, tool: str, kind: str) -> bool:
        return (self.tool is None or tool in self.tool) and (self.kind is None or kind in self.kind)

    def governs(self, call: dict[str, Any]) -> bool:
        """Whether this rule decides who answers a pause about ``call``.

        A ``when`` reading an argument the pause does not carry is about other pauses (another tool's, or an ask
        that has not got the value yet): it does not govern this one.  A ``when`` that cannot be evaluated for any
        other reason governs, so a mistake in it hands the pause to ``who`` rather than to the thread's owner.
        """
        if self.when is None:
            return True
        if not cel.fields_of(self.when, "args") <= call["args"].keys():
            return False
        return cel.evaluate(self.when, call) is not False

    def misjudges(self, call: dict[str, Any]) -> bool:
        """Whether ``when`` reads what the call has and still cannot be evaluated (a string compared with a number):
        the rule then governs, and the team must be told its rule failed."""
        if self.when is None or not cel.fields_of(self.when, "args") <= call["args"].keys():
            return False
        return cel.evaluate(self.when, call) is None

    def allows(self, call_and_person: dict[str, Any]) -> bool:
        """Whether ``who`` holds; one that cannot be evaluated allows nobody."""
        return self.judges(call_and_person) is True

    def judges(self, call_and_person: dict[str, Any]) -> bool | None:
        """Whether ``who`` holds; None where it cannot be evaluated (a value of another type than it compares)."""
        return cel.evaluate(self.who, call_and_person)

    @property
    def deciders(self) -> str:
        """Who the rule lets answer, in words: its ``label``, else its name."""
        return self.label or self.name


class CheckConfig(_Model):
    confirm_writes: bool = Field(True, strict=True)
    trusted_origins: tuple[Origin, ...] = DEFAULT_TRUSTED
    rules: tuple[RuleConfig, ...] = ()

    @field_validator("rules", mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any) -> Any:
        return () if value is None else value

    @model_validator(mode="after")
    def _unique_rules(self) -> CheckConfig:
        _refuse_repeats((rule.name for rule in self.rules), ("rules",), "rule")
        return self


class ModelConfig(_Model):
    """The model behind delegate: an OpenAI-compatible server (``provider: openai``), or ``python: module:function``."""

    provider: Literal["openai"] | None = None
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout: float = Field(20.0, gt=0, le=600, allow_inf_nan=False)
    python: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ModelConfig:
        if self.python is not None:
            if self.provider is not None or self.base_url is not None or self.model is not None:
                raise _fail(
                    "a model is either python: module:function or provider: openai with base_url and model, not both"
                )
            if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", self.python):
                raise _fail(f"python must be module:function (got {self.python!r})", "python")
            return self
        missing = [name for name in ("provider", "base_url", "model") if getattr(self, name) is None]
        if missing:
            raise _fail(
                f"an OpenAI-compatible model needs {', '.join(missing)} (or give python: module:function instead)"
            )
        return self


class FromEnv(_Model):
    """A value read from the environment when the agent loads (``{env: NAME}``): a secret is never in the file."""

    env: str

    @field_validator("env")
    @classmethod
    def _variable(cls, value: str) -> str:
        if not ENV_NAME.fullmatch(value):
            raise _fail(f"{value!r} is not the name of an environment variable")
        return value


class McpToolConfig(_Model):
    """What agent.yaml says of one MCP tool: each key given wins over what the server's annotations say."""

    says: tuple[str, ...] = ()
    write: bool | None = Field(None, strict=True)
    irreversible: bool | None = Field(None, strict=True)
    undo: str | None = None
    idempotent: bool | None = Field(None, strict=True)
    untrusted: bool | None = Field(None, strict=True)
    question: str | None = None
    label: str | None = None
    describe: str = ""
    labels: dict[str, str] = {}
    units: dict[str, str] = {}
    editable: tuple[str, ...] = ()

    @field_validator("says", "editable", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class McpConfig(_Model):
    """One MCP server of an agent: a ``command`` started for stdio, or a ``url`` for streamable HTTP.

    ``headers`` (HTTP) and ``env`` (the child's environment) take their values from the
    environment only; ``timeout`` bounds each request in seconds; ``tools`` overrides what the
    server's annotations say of a tool, by the tool's name.
    """

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    headers: dict[str, FromEnv] = {}
    env: dict[str, FromEnv] = {}
    timeout: float = Field(30.0, gt=0, le=3600, allow_inf_nan=False)
    tools: dict[str, McpToolConfig] = {}
    _at: Loc = PrivateAttr(default=())
    _lines: dict[Loc, int] = PrivateAttr(default_factory=dict)
    _path: Path | None = PrivateAttr(default=None)

    @field_validator("name")
    @classmethod
    def _usable_name(cls, value: str) -> str:
        return _usable_name(value)

    @field_validator("command", mode="before")
    @classmethod
    def _program_and_arguments(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and not value:
            raise _fail("names no program; give the command as a list such as [python, server.py]")
        return value

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not re.match(r"https?://[^/]", value):
            raise _fail("must be an http:// or https:// address of the server's MCP endpoint")
        return value

    @field_validator("headers", "env", mode="before")
    @classmethod
    def _from_environment(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, dict):
            return value
        for key, given in value.items():
            if not isinstance(given, dict):
                raise _fail(
                    f"{info.field_name} values come from the environment: write {{env: NAME}}; "
                    "a secret is never written in agent.yaml",
                    key,
                )
        return value

    @field_validator("tools", mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @model_validator(mode="after")
    def _one_transport(self) -> McpConfig:
        if (self.command is None) == (self.url is None):
            raise _fail("an MCP server is either command: [program, arguments...] (stdio) or url: (HTTP), one of them")
        if self.headers and self.url is None:
            raise _fail("headers are sent over HTTP only; a stdio server takes env:", "headers")
        if self.env and self.command is None:
            raise _fail("env is the environment of a server the agent starts; an HTTP server takes headers:", "env")
        return self

    def refused(self, sentence: str, *loc: str | int) -> ConfigError:
        """A mistake found when the server's tools are read, placed at ``loc`` under this entry of the file."""
        return _located(sentence, (*self._at, *loc), self._lines, self._path)


class AgentConfig(_Model):
    name: str
    description: str | None = None
    tools: str | None = None
    on_unread: Literal["ask", "model", "refuse"] = "ask"
    model: ModelConfig | None = None
    check: CheckConfig = Field(default_factory=CheckConfig.model_construct)
    approvals: dict[str, Annotated[int, Field(ge=1, le=MAX_APPROVALS, strict=True)]] = {}
    approvers: tuple[ApproverConfig, ...] = ()
    deadlines: tuple[DeadlineConfig, ...] = ()
    mcp: tuple[McpConfig, ...] = ()

    @model_validator(mode="after")
    def _some_tools(self) -> AgentConfig:
        """``tools:`` may be left out only where ``mcp:`` gives the agent its tools."""
        if self.tools is None and not self.mcp:
            raise _fail(PLAIN["missing"], "tools")
        _refuse_repeats((server.name for server in self.mcp), ("mcp",), "MCP server")
        return self

    @model_validator(mode="after")
    def _model_for_unread(self) -> AgentConfig:
        if self.on_unread == "model" and self.model is None:
            raise _fail("on_unread: model needs a model: section saying which model", "on_unread")
        return self

    @field_validator("name")
    @classmethod
    def _usable_name(cls, value: str) -> str:
        return _usable_name(value)

    @field_validator("tools")
    @classmethod
    def _findable(cls, value: str, info: ValidationInfo) -> str:
        if value.endswith(".py"):
            path = _base_dir(info.context) / value
            if not path.is_file():
                raise _fail(f"the tools file {path} does not exist")
        elif not MODULE.fullmatch(value):
            raise _fail(f"must be a .py file or a dotted module name such as shop.tools (got {value!r})")
        return value

    @field_validator("check", "approvals", mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("approvers", "deadlines", "mcp", mode="before")
    @classmethod
    def _no_rules_is_none(cls, value: Any) -> Any:
        return () if value is None else value

    @model_validator(mode="after")
    def _unique_approvers(self) -> AgentConfig:
        _refuse_repeats((rule.name for rule in self.approvers), ("approvers",), "approver rule")
        return self


class SlackConfig(_Model):
    """Slack as a channel: each new pause posted as its card to ``channel`` (or the channel ``channel_for``, CEL over
    the pause, gives), each click answered as the Slack user who clicked.  ``link_only`` (CEL over the pause) names
    the calls answered through the signed link rather than one click; an irreversible call always is.  ``groups``
    puts Slack users (by id or e-mail) in the team's groups, which approver rules read as ``who.groups``."""

    bot_token: FromEnv
    signing_secret: FromEnv
    channel: str = Field(min_length=1)
    channel_for: str | None = None
    link_only: str | None = None
    groups: dict[str, tuple[str, ...]] = {}
    api_url: str = "https://slack.com/api/"

    @field_validator("channel_for", "link_only")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        return None if value is None else _cel(value)

    @field_validator("api_url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not re.match(r"https?://[^/]", value):
            raise _fail("must be an http:// or https:// URL")
        return value if value.endswith("/") else value + "/"


class SmtpConfig(_Model):
    """Where mail is sent: an SMTP server, with STARTTLS unless told otherwise, credentials from the environment."""

    host: str = Field(min_length=1)
    port: int = Field(587, ge=1, le=65535)
    starttls: bool = Field(True, strict=True)
    username: FromEnv | None = None
    password: FromEnv | None = None
    timeout: float = Field(30.0, gt=0, le=300, allow_inf_nan=False)


class MailConfig(_Model):
    """Mail as a channel: each new pause, and each reminder, sent ``to`` these addresses as its card with the
    signed links, from ``sender``."""

    smtp: SmtpConfig
    sender: str = Field(min_length=3)
    to: tuple[str, ...] = Field(min_length=1)

    @field_validator("to", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class ChannelsConfig(_Model):
    """Where people are asked besides the chat and the webhook: Slack and mail."""

    slack: SlackConfig | None = None
    mail: MailConfig | None = None


class Config(_Model):
    storage: str | None = None
    selector: SelectorConfig = Field(default_factory=SelectorConfig.model_construct)
    settings: Settings = Field(default_factory=Settings.model_construct)
    channels: ChannelsConfig = Field(default_factory=ChannelsConfig.model_construct)
    agents: tuple[AgentConfig, ...]
    _path: Path | None = PrivateAttr(default=None)
    _base_dir: Path | None = PrivateAttr(default=None)
    _lines: dict[Loc, int] = PrivateAttr(default_factory=dict)

    @field_validator("storage")
    @classmethod
    def _known_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            check_url(value)
        except ValueError as exc:
            raise _fail(str(exc)) from exc
        return value

    @field_validator("selector", "settings", "channels", mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("agents")
    @classmethod
    def _at_least_one(cls, value: tuple[AgentConfig, ...]) -> tuple[AgentConfig, ...]:
        if not value:
            raise _fail("must list at least one agent")
        return value

    @model_validator(mode="after")
    def _unique_agents(self) -> Config:
        _refuse_repeats((agent.name for agent in self.agents), ("agents",), "agent")
        return self

    def model_post_init(self, context: Any, /) -> None:
        self._path = _given(context).get("path")
        self._base_dir = _given(context).get("base_dir")
        self._lines = _given(context).get("lines", {})
        for i, agent in enumerate(self.agents):
            for j, server in enumerate(agent.mcp):
                server._at, server._lines, server._path = ("agents", i, "mcp", j), self._lines, self._path

    def refused(self, sentence: str, *loc: str | int) -> ConfigError:
        """A mistake found after loading (against the tools, say), placed as the loader places its own."""
        return _located(sentence, loc, self._lines, self._path)

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def base_dir(self) -> Path:
        """Where relative paths in the file (tools, a SQLite store) are taken from."""
        return self._base_dir or (self._path.parent if self._path else Path.cwd())

    @property
    def store_url(self) -> str:
        """The store ``storage:`` names, or where none is named a SQLite file in the person's state folder
        (``default_store``): never beside agent.yaml, whose folder the stack ships as a layer."""
        if self.storage is not None:
            return self.storage
        return f"sqlite:///{default_store(self.agents[0].name, self._path or self.base_dir)}"

    def agent(self, name: str | None = None) -> AgentConfig:
        if name is None:
            return self.agents[0]
        for agent in self.agents:
            if agent.name == name:
                return agent
        names = ", ".join(agent.name for agent in self.agents)
        raise ConfigError(
            f"no agent named {name!r}; the agents are {names}",
            file=str(self._path) if self._path else None,
            key="agents",
        )


def _located(sentence: str, loc: Loc, lines: dict[Loc, int], path: Path | None) -> ConfigError:
    """A ConfigError at ``loc``, on the line of the nearest key the file has."""
    known = next((loc[:end] for end in range(len(loc), -1, -1) if loc[:end] in lines), None)
    line = lines[known] if known is not None else None
    return ConfigError(sentence, file=str(path) if path is not None else None, line=line, key=_key(loc))


def _given(context: Any) -> dict[str, Any]:
    """The validation context the loader passes; models built by hand have none."""
    return context if isinstance(context, dict) else {}


def _base_dir(context: Any) -> Path:
    return _given(context).get("base_dir") or Path.cwd()


class _Problem(NamedTuple):
    line: int
    key: str
    sentence: str


def load_config(path: str | os.PathLike[str]) -> Config:
    file = Path(path)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"there is no config file at {file.resolve()}", file=str(file)) from None
    except IsADirectoryError:
        raise ConfigError(f"{file.resolve()} is a folder; give the path of agent.yaml", file=str(file)) from None
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(file)) from None
    text = _decode(raw, str(file))
    return _parse(text, str(file), file.resolve().parent, file.resolve())


def parse_config(text: str, *, file: str = "<string>", base_dir: Path | None = None) -> Config:
    return _parse(text, file, base_dir or Path.cwd(), None)


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"is not UTF-8 text (byte 0x{raw[exc.start]:02x}); save it as UTF-8", file=file, line=line
        ) from None


def _parse(text: str, file: str, base_dir: Path, path: Path | None) -> Config:
    node, data = _compose(text, file)
    lines: dict[Loc, int] = {(): node.start_mark.line + 1}
    problems = list(_walk(node, (), lines))
    try:
        config = Config.model_validate(data, context={"base_dir": base_dir, "path": path, "lines": lines})
    except ValidationError as exc:
        problems += [_from_pydantic(error, lines) for error in exc.errors(include_url=False)]
    problems += [_problem(loc, sentence, lines) for loc, sentence in _raw_repeats(data)]
    if problems:
        _raise(problems, file)
    return config


def _compose(text: str, file: str) -> tuple[yaml.Node, Any]:
    """The node tree (for line numbers) and the plain data it stands for."""
    import yaml  # here, not at import: a function loading its agent as built reads no YAML

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" ({exc.context})" if exc.context else ""
        raise ConfigError(
            f"is not valid YAML: {exc.problem}{where}", file=file, line=mark.line + 1 if mark else None
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"is not valid YAML: {exc}", file=file) from None
    finally:
        loader.dispose()
    if node is None:
        raise ConfigError(
            "the file is empty; it needs an agents: list with at least one agent", file=file, line=1, key="agents"
        )
    if not isinstance(data, dict):
        sentence = f"the top level must be a mapping with keys such as agents: (got {_shown(data)})"
        raise ConfigError(sentence, file=file, line=node.start_mark.line + 1)
    return node, data


def _walk(node: yaml.Node, path: Loc, lines: dict[Loc, int]) -> Iterator[_Problem]:
    """Record the line of every key and list item; a key given twice is a problem, since YAML keeps only the last."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        children = [((*path, key.value), key, value) for key, value in node.value]
    elif isinstance(node, yaml.SequenceNode):
        children = [((*path, index), item, item) for index, item in enumerate(node.value)]
    else:
        return
    for child, marked, value in children:
        line = marked.start_mark.line + 1
        if child in lines:
            yield _Problem(
                line, _key(child), f"is given twice (first on line {lines[child]}); YAML would keep only this one"
            )
        lines.setdefault(child, line)
        yield from _walk(value, child, lines)


def _raw_repeats(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Repeated names found in the file itself, so they are reported even when other errors stop the models."""
    agents = _items(data.get("agents"))
    yield from _repeats(_names(agents), ("agents",), "agent")
    for index, agent in enumerate(agents):
        check = agent.get("check") if isinstance(agent, dict) else None
        rules = _items(check.get("rules") if isinstance(check, dict) else None)
        yield from _repeats(_names(rules), ("agents", index, "check", "rules"), "rule")
        approvers = _items(agent.get("approvers") if isinstance(agent, dict) else None)
        yield from _repeats(_names(approvers), ("agents", index, "approvers"), "approver rule")
        servers = _items(agent.get("mcp") if isinstance(agent, dict) else None)
        yield from _repeats(_names(servers), ("agents", index, "mcp"), "MCP server")


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _names(items: list[Any]) -> list[Any]:
    return [item.get("name") if isinstance(item, dict) else None for item in items]


def _from_pydantic(error: Any, lines: dict[Loc, int]) -> _Problem:
    loc = (*error["loc"], *error.get("ctx", {}).get("at", ()))
    return _problem(loc, _sentence(error, loc), lines)


def _problem(loc: Loc, sentence: str, lines: dict[Loc, int]) -> _Problem:
    """Place a problem at the nearest key the file has: a missing key is reported at the mapping that lacks it."""
    known = next(loc[:end] for end in range(len(loc), -1, -1) if loc[:end] in lines)
    return _Problem(lines[known], _key(loc), sentence)


def _raise(problems: list[_Problem], file: str) -> None:
    first, *rest = sorted(dict.fromkeys(problems), key=lambda problem: problem.line)
    others = [str(ConfigError(p.sentence, file=file, line=p.line, key=p.key or None)) for p in rest]
    raise ConfigError("\n".join([first.sentence, *others]), file=file, line=first.line, key=first.key or None)


def _key(loc: Loc) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


PLAIN = {
    "missing": "is required but missing",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "finite_number": "must be a finite number",
    "model_type": "must be a mapping of keys",
    "model_attributes_type": "must be a mapping of keys",
    "dict_type": "must be a mapping of keys",
    "tuple_type": "must be a list",
    "list_type": "must be a list",
    "greater_than": "must be greater than {gt}",
    "greater_than_equal": "must be {ge} or more",
    "less_than_equal": "must be {le} or less",
}


def _sentence(error: Any, loc: Loc) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "config":
        return str(error["msg"])
    if kind == "missing":
        return PLAIN[kind]
    if kind == "extra_forbidden":
        return _unknown_key(loc)
    if kind == "literal_error":
        choices = ", ".join(re.findall(r"'([^']*)'", ctx["expected"]))
        return f"must be one of {choices} (got {_shown(error['input'])})"
    plain = PLAIN[kind].format(**ctx) if kind in PLAIN else error["msg"]
    return f"{plain} (got {_shown(error['input'])})"


def _unknown_key(loc: Loc) -> str:
    model = _model_at(loc[:-1])
    valid = list(model.model_fields) if model else []
    import difflib  # only a message about a mistake needs it, so loading a good file does not import it

    near = difflib.get_close_matches(str(loc[-1]), valid, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else f"; the keys here are {', '.join(valid)}" if valid else ""
    return f"unknown key {loc[-1]!r}{hint}"


def _model_at(loc: Loc) -> type[BaseModel] | None:
    """The model that validates the mapping at ``loc``, for naming the keys it takes."""
    model: type[BaseModel] | None = Config
    for part in loc:
        if isinstance(part, str):
            field = model.model_fields.get(part) if model else None
            model = _model_in(field.annotation) if field else None
    return model


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if get_origin(annotation) is None and isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((model for arg in get_args(annotation) if (model := _model_in(arg))), None)


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
