"""``stalwart``: parse flags, build the application, run it.  Nothing else lives here."""

from __future__ import annotations

import argparse
import errno
import logging
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from . import __version__
from .errors import BadRequest, ConfigError, StorageError
from .http.boundary import LOOPBACK_HOSTS

if TYPE_CHECKING:
    from .approvals.announce import Notify
    from .approvals.links import Links
    from .approvals.redeliver import Redeliverer
    from .aws.local import LocalAws
    from .config import Config
    from .desk import Desk
    from .http.auth import Auth
    from .storage import Pruned, Storage

WILDCARD = ("0.0.0.0", "::", "")
SECRET_ENV = "STALWART_JWT_SECRET"
PUBLIC_URL_ENV = "STALWART_PUBLIC_URL"
OPERATOR_TOKEN_ENVS = ("QLS_OPERATOR_TOKEN", "STALWART_OPERATOR_TOKEN")
"""Where serve reads the operator token: the documented name first, then the name every other variable shares."""
WEBHOOK_URL_ENV = "STALWART_WEBHOOK_URL"
WEBHOOK_SECRET_ENV = "STALWART_WEBHOOK_SECRET"
DAY = 86400.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="stalwart", description="Agents that stop for a person when a call needs one."
    )
    parser.add_argument("--version", action="version", version=f"stalwart {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve a file of agents over HTTP, with the interface at /")
    serve.add_argument("config", help="the agent.yaml to serve")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8700, help="the port (default 8700)")
    serve.add_argument("--agent", default=None, help="the agent that answers first (default: the file's first)")
    serve.add_argument(
        "--operator-token",
        default=None,
        help="what the rollback route must carry as Authorization: Bearer "
        f"(default: {' or '.join(OPERATOR_TOKEN_ENVS)}; with none, the route answers 403)",
    )
    serve.add_argument(
        "--storage",
        default=None,
        help="a storage URL to use instead of the file's; 'moto' runs the deployed shape locally: DynamoDB "
        "(moto, on 127.0.0.1) with its stream fanned out to STALWART_WEBHOOK_URL, signed with STALWART_WEBHOOK_SECRET",
    )
    _auth_options(serve)
    _link_options(serve)
    _log_options(serve)
    _prune_options(commands.add_parser("prune", help="remove threads idle for longer than the retention"))
    _audit_options(commands.add_parser("audit", help="export or verify the record of every decision"))
    args = parser.parse_args(argv)
    # The pool's own retries would print before our one line saying what is wrong and how to fix it.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)
    try:
        return COMMANDS.get(args.command, _serve)(args)
    except (ConfigError, StorageError, BadRequest, ValueError) as exc:
        print(f"stalwart: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 2


def _prune_options(prune: argparse.ArgumentParser) -> None:
    prune.description = (
        "Remove every thread idle for longer than the retention that has no run waiting or running, with all it "
        "holds, and shown replies and thumbs older than that. On DynamoDB, TTL removes them; this keeps what "
        "waits from expiring."
    )
    prune.add_argument("config", nargs="?", help="the agent.yaml whose storage and settings.retention_days to use")
    prune.add_argument("--storage", default=None, help="a storage URL to prune instead of the file's")
    prune.add_argument(
        "--retention-days",
        type=_retention_days,
        default=None,
        metavar="N",
        help="days a thread is kept after its last activity (default: the file's settings.retention_days, else 30)",
    )
    prune.add_argument("--dry-run", action="store_true", help="say what would be removed, and remove nothing")


def _audit_options(audit: argparse.ArgumentParser) -> None:
    from .approvals.record import FORMATS

    audit.description = (
        "Every decision on a pause (a person's, a link's, a channel's, the clock's) is kept in an append-only "
        "record, each entry chained to the one before it in its thread. export writes it out; verify checks "
        "that nothing in it was changed, removed or reordered since it was written."
    )
    actions = audit.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export", help="write the record to stdout, oldest first")
    verify = actions.add_parser("verify", help="check every thread's record against its chain")
    for action in (export, verify):
        action.add_argument("config", nargs="?", help="the agent.yaml whose storage to read")
        action.add_argument("--storage", default=None, help="a storage URL to read instead of the file's")
        action.add_argument("--thread", default=None, help="one thread's record alone (its id as stored)")
    export.add_argument(
        "--since", default=None, help="decisions at or after this time: 2026-12-01, 2026-12-01T09:30Z or epoch seconds"
    )
    export.add_argument("--format", choices=FORMATS, default="jsonl", help="JSON lines (exact; default) or CSV")


def _audit(args: argparse.Namespace) -> int:
    from .approvals import record

    store = _opened_store(args, _named_config(args, "read the record of"), "read the record of")
    try:
        if args.action == "export":
            since = record.since_of(args.since, "--since") if args.since else 0.0
            found = record.entries(store, since=since, thread=args.thread)
            for line in record.csv_rows(found) if args.format == "csv" else record.jsonl(found):
                sys.stdout.write(line)
            sys.stdout.flush()
            return 0
        verified = record.verify(store, args.thread)
    finally:
        store.close()
    for where in verified.breaks:
        print(f"stalwart audit: {where}", file=sys.stderr)
    state = "intact" if verified.intact else f"BROKEN in {_count(len(verified.breaks), 'place')}"
    print(
        f"stalwart audit: {_count(verified.entries, 'decision')} in {_count(verified.threads, 'thread')}, {state};"
        f" root {verified.root}",
        flush=True,
    )
    return 0 if verified.intact else 1


def _named_config(args: argparse.Namespace, doing: str) -> Config | None:
    """The agent.yaml a store command names, if it names one rather than ``--storage`` alone."""
    from .config import load_config

    if args.config is None and args.storage is None:
        raise ValueError(f"name the store to {doing}: an agent.yaml, or --storage URL")
    return load_config(args.config) if args.config is not None else None


def _opened_store(args: argparse.Namespace, config: Config | None, doing: str, **options: Any) -> Storage:
    """The store a command names: ``--storage``, else its agent.yaml's; one that does not exist is an error."""
    from .storage import open_storage

    url, base = (args.storage, Path.cwd()) if args.storage or config is None else (config.store_url, config.base_dir)
    _refuse_missing_store(url, base, doing)
    return open_storage(url, base_dir=base, **options)


def _retention_days(text: str) -> float:
    from .config import MAX_RETENTION_DAYS, MIN_RETENTION_DAYS

    try:
        days = float(text)
    except ValueError:
        days = math.nan
    if not MIN_RETENTION_DAYS <= days <= MAX_RETENTION_DAYS:
        raise argparse.ArgumentTypeError(
            f"a number of days from {MIN_RETENTION_DAYS:.3f} (an hour) to {MAX_RETENTION_DAYS}, not {text!r}"
        )
    return days


def _prune(args: argparse.Namespace) -> int:
    from .storage import DEFAULT_RETENTION

    config = _named_config(args, "prune")
    days = args.retention_days or (config.settings.retention_days if config else DEFAULT_RETENTION / DAY)
    store = _opened_store(args, config, "prune", retention=days * DAY)
    try:
        pruned = store.prune(time.time(), dry_run=args.dry_run)
    finally:
        store.close()
    print(f"stalwart prune: {_pruned_sentence(pruned, args.dry_run)} ({store.url}, {days:g} days)", flush=True)
    return 0


def _refuse_missing_store(url: str, base: Path, doing: str) -> None:
    """A store the command would create, or one that lives only in this process, is a mistake in the command."""
    if url.startswith("memory:"):
        raise ValueError(f"a memory:// store lives inside one process; there is nothing to {doing} from here")
    if url.startswith("sqlite:///"):
        from .storage import sqlite_path

        path = sqlite_path(url, base)
        if not path.exists():
            raise ValueError(f"there is no SQLite store at {path}; nothing to {doing}")


def _pruned_sentence(pruned: Pruned, dry_run: bool) -> str:
    removed = "would remove" if dry_run else "removed"
    sentence = f"{removed} {_count(pruned.threads, 'thread')} and {_count(pruned.records, 'old record')}"
    if pruned.kept:
        sentence += f"; {'would keep' if dry_run else 'kept'} {_count(pruned.kept, 'record')} of waiting threads"
        sentence += " from expiring"
    return sentence


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _log_options(serve: argparse.ArgumentParser) -> None:
    from .logs import FORMATS, LEVELS

    said = serve.add_argument_group("what the service logs, to stderr")
    said.add_argument(
        "--log-level",
        choices=LEVELS,
        default="warning",
        help="warning (the default) logs failed tools, failed deliveries and errors; info adds one line per request "
        "and per pause opened; no line holds a token, a secret, a link or a query string",
    )
    said.add_argument(
        "--log-format", choices=FORMATS, default="text", help="text: key=value lines (the default); json: JSON lines"
    )


def _auth_options(serve: argparse.ArgumentParser) -> None:
    who = serve.add_argument_group("who may act")
    who.add_argument(
        "--auth",
        choices=("none", "jwt", "hs256"),
        default="none",
        help="none: one anonymous person, loopback only (default); jwt: bearer JWTs checked against an OpenID Connect "
        f"provider's keys; hs256: bearer JWTs signed with the shared secret in {SECRET_ENV}",
    )
    who.add_argument(
        "--jwt-issuer",
        default=None,
        help="the issuer (iss) tokens must name; with --auth jwt, its discovery document names the keys",
    )
    who.add_argument("--jwt-audience", default=None, help="the audience (aud) tokens must name")
    who.add_argument(
        "--jwt-jwks-url", default=None, help="where the issuer's keys are (default: from its discovery document)"
    )
    who.add_argument(
        "--jwt-algorithms", default="RS256,ES256", help="the algorithms --auth jwt accepts (default RS256,ES256)"
    )
    who.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name clients reach the service by, besides loopback's and --host (repeatable)",
    )
    who.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another site whose pages embed the interface, as https://host[:port] (repeatable); it alone gets CORS",
    )
    who.add_argument(
        "--proxy-authenticates",
        action="store_true",
        help="serve without authentication on a non-loopback address, "
        "because a proxy of yours authenticates every request",
    )


def _link_options(serve: argparse.ArgumentParser) -> None:
    from .approvals.links import DEFAULT_HOURS

    links = serve.add_argument_group("signed links (docs/links.md)")
    links.add_argument(
        "--public-url",
        default=os.environ.get(PUBLIC_URL_ENV) or None,
        metavar="URL",
        help="the https address people reach this service by; with it, each webhook delivery carries one signed "
        f"link per answer the pause takes, opened at URL/links/... (default: {PUBLIC_URL_ENV})",
    )
    links.add_argument(
        "--link-hours",
        type=_link_hours,
        default=DEFAULT_HOURS,
        metavar="N",
        help=f"hours a link stays good, if its pause is not answered first (default {DEFAULT_HOURS:g})",
    )
    links.add_argument(
        "--links-alone",
        action="store_true",
        help="with --auth, a link answers without signing in: whoever holds it approves (a forwarded mail "
        "too), so only where the mailbox or chat it goes to is as safe as a sign-in",
    )


def _link_hours(text: str) -> float:
    from .approvals.links import MAX_HOURS, link_hours

    hours = link_hours(text)
    if hours is None:
        raise argparse.ArgumentTypeError(f"a number of hours above 0 and at most {MAX_HOURS:g}, not {text!r}")
    return hours


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from . import logs
    from .approvals.overdue import Clock
    from .aws.sweep import Sweeper
    from .http.app import MAX_HEADERS, make_app

    logs.configure(args.log_level, args.log_format)
    auth = _auth(args)
    if args.links_alone and not args.public_url:
        raise ValueError(f"--links-alone is about signed links, which need --public-url (or {PUBLIC_URL_ENV})")
    hosts = _hosts(args)
    operator_token = args.operator_token or _operator_token_from_environment()
    _check_storage_option(args.storage)
    webhook = _webhook_target()
    _refuse_a_taken_port(args.host, args.port)
    local = _local_aws() if args.storage == "moto" else None
    storage = local.start() if local is not None else args.storage
    try:
        app = make_app(
            args.config,
            storage=storage,
            agent=args.agent,
            operator_token=operator_token,
            auth=auth,
            allowed_hosts=hosts,
            allowed_origins=args.allowed_origin,
            public_url=args.public_url,
            link_hours=args.link_hours,
            links_alone=args.links_alone,
        )
        desk = app.state.desk
        links: Links | None = getattr(app.state, "links", None)
        redeliverer, notify = _redeliverer(desk, local, links)
        agent = desk.agent(args.agent).name
        print(
            f"stalwart serve: http://{_shown_host(args.host)}:{args.port}/ (agent {agent}, storage {desk.storage.url})",
            flush=True,
        )
        print(f"stalwart serve: {_who_note(args)}; answering for Host {', '.join(hosts)}", flush=True)
        if webhook is not None:
            print(f"stalwart serve: new pauses are posted to {webhook} ({WEBHOOK_URL_ENV})", flush=True)
        if links is not None:
            print(f"stalwart serve: {_links_note(args, links)}", flush=True)
        logs.missing_models(desk.config.agents)
        # The sweep lives as long as the application: uvicorn ends a process it stops by re-raising the signal.
        for repeating in (Sweeper(desk), Clock(desk, notify)):
            app.router.on_startup.append(repeating.start)
            app.router.on_shutdown.append(repeating.stop)
        if redeliverer is not None:
            app.router.on_startup.append(redeliverer.start)
            app.router.on_shutdown.append(redeliverer.stop)
        # uvicorn's access log would write the raw path (a link is a capability) and query (a stream ticket).
        # h11, not httptools: only h11 stops reading headers at a bound (MAX_HEADERS), answering 400 and closing.
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_config=None,
            access_log=False,
            http="h11",
            h11_max_incomplete_event_size=MAX_HEADERS,
        )
    finally:
        if local is not None:
            local.stop()
    return 0


def _redeliverer(desk: Desk, local: LocalAws | None, links: Links | None) -> tuple[Redeliverer | None, Notify | None]:
    """New pauses are announced on the channels agent.yaml names (made with the app: ``desk.on_interrupt``) and, with
    ``STALWART_WEBHOOK_URL`` set, posted to it (through the stream on moto); failed deliveries are retried in the
    background for ``STALWART_REDELIVERY_HOURS`` (24 by default); with ``links``, each delivery carries links
    minted for it.  Also what reminders and escalations are announced with."""
    from .approvals.card import Card, card_of
    from .approvals.redeliver import Backoff, Redeliverer
    from .approvals.webhook import Webhook
    from .channels import Channels, Posted
    from .engine.pause import Pause
    from .logs import logging_deliveries

    url = os.environ.get(WEBHOOK_URL_ENV)
    secret = os.environ.get(WEBHOOK_SECRET_ENV, "")
    channels = desk.on_interrupt if isinstance(desk.on_interrupt, Channels) else None

    def cards(pause: Pause) -> Card:
        return card_of(pause, desk.verdict(pause, None), None)

    def announcing(logged: bool, **webhook: Any) -> Notify | None:
        posted: Notify | None = Webhook(url, secret, links=links, cards=cards, **webhook) if url else None
        if posted is not None and logged:
            posted = logging_deliveries(posted)
        if channels is None:
            return posted
        return channels if posted is None else Channels((Posted("webhook", posted), *channels.channels))

    notify = announcing(logged=False)
    if notify is None:
        return None, None
    if local is not None:
        desk.on_interrupt = None  # the stream announces each new pause, once
        local.feed(desk.storage, announcing(logged=True) or notify)
    else:
        desk.on_interrupt = notify
    hours = float(os.environ.get("STALWART_REDELIVERY_HOURS", "24"))
    again = announcing(logged=True, attempts=1)
    assert again is not None, "what announced a pause can announce it again"
    redeliverer = Redeliverer(desk.storage, again, backoff=Backoff(give_up_after=hours * 3600))
    return redeliverer, notify


def _operator_token_from_environment() -> str | None:
    """The first of ``OPERATOR_TOKEN_ENVS`` that is set: a team that named it as the rest of serve's variables
    (``STALWART_*``) is not left with the rollback route silently off."""
    return next((token for name in OPERATOR_TOKEN_ENVS if (token := os.environ.get(name))), None)


def _check_storage_option(storage: str | None) -> None:
    """``--storage``'s URL, checked before anything starts: an unknown kind lists every one serve takes."""
    from .storage import SCHEMES, STORAGE_URLS, check_url

    if storage is None or storage == "moto":
        return
    if urlsplit(storage).scheme not in SCHEMES:
        raise ValueError(f"--storage {storage!r} is no store serve knows: use {STORAGE_URLS}, or moto")
    check_url(storage)


def _webhook_target() -> str | None:
    """Where STALWART_WEBHOOK_URL posts, as it may be shown (scheme, host and port: a path or query can be a
    capability); a URL without the secret that signs its deliveries is refused, naming what to set."""
    from .approvals.webhook import target_of

    url = os.environ.get(WEBHOOK_URL_ENV)
    if not url:
        return None
    try:
        target = target_of(url)
    except ValueError as exc:
        raise ValueError(f"{WEBHOOK_URL_ENV}: {exc}") from None
    if not os.environ.get(WEBHOOK_SECRET_ENV):
        raise ValueError(
            f"{WEBHOOK_URL_ENV} is set, so deliveries are signed: set {WEBHOOK_SECRET_ENV} to the secret your "
            "receiver verifies them with (openssl rand -hex 32)"
        )
    return target


def _refuse_a_taken_port(host: str, port: int) -> None:
    """One line naming the port and the fix, before the banner, rather than uvicorn's bind error after it."""
    import socket

    try:
        families = {info[0] for info in socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)}
    except socket.gaierror:
        raise ValueError(f"--host {host} is not an address this machine has") from None
    for family in families:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            try:
                probe.bind((host, port))
            except OSError as exc:
                raise ValueError(_unbound(host, port, exc)) from None


def _unbound(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is in use: stop what holds it, or serve on another port with --port"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"--host {host} is not an address of this machine; give one it has, or 127.0.0.1"
    return f"cannot listen on port {port} on {host} ({exc.strerror}): serve on another port with --port"


def _auth(args: argparse.Namespace) -> Auth:
    from .http.auth import Jwt, NoAuth, SharedSecret

    if args.auth == "none":
        if args.host not in LOOPBACK_HOSTS and not args.proxy_authenticates:
            raise ValueError(
                f"--host {args.host} would let anyone who reaches it act as anyone. Set --auth jwt --jwt-issuer URL "
                f"--jwt-audience NAME (or --auth hs256 with the secret in {SECRET_ENV}), or pass --proxy-authenticates "
                "if a proxy of yours authenticates every request"
            )
        return NoAuth()
    if not args.jwt_issuer or not args.jwt_audience:
        raise ValueError(f"--auth {args.auth} needs --jwt-issuer and --jwt-audience")
    if args.auth == "hs256":
        secret = os.environ.get(SECRET_ENV, "")
        if not secret:
            raise ValueError(f"--auth hs256 takes its secret from {SECRET_ENV}; set it (openssl rand -hex 32)")
        return SharedSecret(secret, issuer=args.jwt_issuer, audience=args.jwt_audience)
    algorithms = [a.strip() for a in args.jwt_algorithms.split(",") if a.strip()]
    return Jwt(args.jwt_issuer, args.jwt_audience, jwks_url=args.jwt_jwks_url, algorithms=algorithms)


def _hosts(args: argparse.Namespace) -> list[str]:
    own = [] if args.host in WILDCARD else [args.host]
    public = [urlsplit(args.public_url).hostname or ""] if args.public_url else []
    return list(dict.fromkeys([*LOOPBACK_HOSTS, *own, *public, *args.allowed_host]))


def _links_note(args: argparse.Namespace, links: Links) -> str:
    note = f"deliveries carry signed links to {links.base}/links/, good for {links.hours:g} h"
    if not os.environ.get(WEBHOOK_URL_ENV):
        note += " (none is sent: STALWART_WEBHOOK_URL is not set)"
    if args.auth != "none":
        alone = "answers without signing in (--links-alone)" if args.links_alone else "asks the person to sign in"
        note += f"; a link {alone}"
    return note


def _who_note(args: argparse.Namespace) -> str:
    if args.auth != "none":
        return f"callers sign in with bearer JWTs ({args.auth})"
    if args.proxy_authenticates:
        return (
            "no authentication here: a proxy in front of this address must authenticate every request "
            "(--proxy-authenticates)"
        )
    return "no authentication (loopback only): anyone on this machine acts as one anonymous person"


def _shown_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _local_aws() -> LocalAws:
    """moto's DynamoDB, or one line naming the extra that brings it."""
    from .storage import missing_extra

    try:
        import boto3  # noqa: F401  (the store's client)
        import moto.server  # noqa: F401  (the server start_moto runs)
    except ImportError as exc:
        raise ValueError(f"{missing_extra('moto', '--storage moto')} ({exc})") from exc
    from .aws.local import LocalAws

    return LocalAws()


COMMANDS = {"prune": _prune, "audit": _audit}
"""Each command but ``serve``, by name."""


if __name__ == "__main__":
    sys.exit(main())
