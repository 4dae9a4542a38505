"""``stalwart``: parse flags, build the application, run it.  Nothing else lives here."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .errors import ConfigError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stalwart", description="Agents that stop for a person when a call needs one.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve a file of agents over HTTP, with the interface at /")
    serve.add_argument("config", help="the agent.yaml to serve")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8700, help="the port (default 8700)")
    serve.add_argument("--agent", default=None, help="the agent that answers first (default: the file's first)")
    serve.add_argument(
        "--operator-token", default=None,
        help="what the rollback route must carry as Authorization: Bearer (default: QLS_OPERATOR_TOKEN; with neither, the route answers 403)",
    )
    serve.add_argument(
        "--storage", default=None,
        help="a storage URL to use instead of the file's; 'moto' runs the deployed shape locally: DynamoDB "
        "(moto, on 127.0.0.1) with its stream fanned out to STALWART_WEBHOOK_URL, signed with STALWART_WEBHOOK_SECRET",
    )
    args = parser.parse_args(argv)
    try:
        return _serve(args)
    except (ConfigError, ValueError) as exc:
        print(f"stalwart: {exc}", file=sys.stderr)
        return 2


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .serve import make_app

    operator_token = args.operator_token or os.environ.get("QLS_OPERATOR_TOKEN") or None
    local = _local_aws() if args.storage == "moto" else None
    storage = local.start() if local is not None else args.storage
    try:
        app = make_app(args.config, storage=storage, agent=args.agent, operator_token=operator_token)
        desk = app.state.desk
        if local is not None and os.environ.get("STALWART_WEBHOOK_URL"):
            from .webhook import Webhook

            local.feed(desk.storage, Webhook(os.environ["STALWART_WEBHOOK_URL"], os.environ.get("STALWART_WEBHOOK_SECRET", "")))
        agent = desk.agent(args.agent).name
        print(f"stalwart serve: http://{args.host}:{args.port}/ (agent {agent}, storage {desk.storage.url})", flush=True)
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        if local is not None:
            local.stop()
    return 0


def _local_aws():
    from .aws_local import LocalAws

    return LocalAws()


if __name__ == "__main__":
    sys.exit(main())
