"""Each route of the chapter as its own Lambda: the service's own handlers, behind Mangum.

Settings are read from the environment once, at cold start, into a frozen
value; nothing below reads the environment again.  Each function sees only the
secrets its route needs: the operator token reaches the rollback function
alone, the resume secret the resume function alone (template.yaml).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Settings:
    config: str
    storage: str
    agent: str | None = None
    operator_token: str | None = None
    resume_secret: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        missing = [name for name in ("STALWART_CONFIG", "STALWART_STORAGE") if not environ.get(name)]
        if missing:
            raise RuntimeError(f"set {' and '.join(missing)} in the function's environment (template.yaml does)")
        return cls(
            config=environ["STALWART_CONFIG"],
            storage=environ["STALWART_STORAGE"],
            agent=environ.get("STALWART_AGENT") or None,
            operator_token=environ.get("QLS_OPERATOR_TOKEN") or None,
            resume_secret=environ.get("STALWART_RESUME_SECRET") or None,
        )


def handler(route: str, environ: Mapping[str, str] = os.environ) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda handler for one route, built once per cold start.

    API Gateway buffers whole responses, so the stream answers what is there,
    with a ``retry:`` hint, and closes; the browser reconnects with its cursor.
    """
    from mangum import Mangum

    from .serve import make_app

    settings = Settings.from_environ(environ)
    app = make_app(
        settings.config, storage=settings.storage, agent=settings.agent, operator_token=settings.operator_token,
        secret=settings.resume_secret, stream_mode="once", routes=(route,),
    )
    return Mangum(app, lifespan="off")
