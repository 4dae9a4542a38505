"""The HTTP service: the chapter's routes over a Desk, as one FastAPI application.

Bodies are read as JSON whatever their Content-Type says, because API Gateway
forwards JSON without one; every error leaves as ``{"error", "message"}`` from
one handler, so a code means the same status on every route.
"""

from __future__ import annotations

import json
import os
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from .desk import Desk
from .errors import BadRequest, RunWaiting, StalwartError

MAX_BODY = 64 * 1024

STATUS = {
    "bad_request": 400,
    "bad_config": 400,
    "not_found": 404,
    "interrupt_stale": 409,
    "run_waiting": 409,
    "run_busy": 409,
    "payload_too_large": 413,
    "storage_unavailable": 503,
}

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><stalwart-chat thread="" base=""></stalwart-chat></body></html>
"""


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=4000)


class Resume(BaseModel):
    model_config = ConfigDict(extra="forbid")
    interrupt_id: str = Field(min_length=1, max_length=200)
    decision: str = Field(min_length=1, max_length=40)
    token: str = Field(min_length=1, max_length=200)
    value: str | int | float | None = None


def make_app(config: str | os.PathLike[str] | Desk, *, storage: str | None = None, agent: str | None = None) -> FastAPI:
    """The service for a file of agents (or a Desk already loaded), ready to mount anywhere."""
    desk = config if isinstance(config, Desk) else Desk.from_file(config, storage)
    agent_name = desk.agent(agent).name
    app = FastAPI(title="stalwart-agents", version="0.1.0")
    app.add_exception_handler(StalwartError, _error_response)

    @app.get("/", response_class=HTMLResponse)
    def interface() -> str:
        return PAGE.format(name=agent_name)

    @app.post("/threads/{thread}/messages")
    async def messages(thread: str, request: Request) -> JSONResponse:
        turn = _body(Turn, await request.body())
        reply = await run_in_threadpool(desk.send, thread, turn.text, agent=agent_name)
        return JSONResponse(reply.to_dict())

    @app.get("/threads/{thread}/interrupts")
    def interrupts(thread: str) -> dict[str, Any]:
        return {"thread": thread, "waiting": [w.to_dict() for w in desk.waiting(thread)]}

    @app.post("/threads/{thread}/resume")
    async def resume(thread: str, request: Request) -> JSONResponse:
        body = _body(Resume, await request.body())
        reply = await run_in_threadpool(
            desk.confirm, thread, body.decision, waiting=body.interrupt_id, value=body.value, token=body.token, channel="http",
        )
        return JSONResponse(reply.to_dict())

    @app.get("/healthz")
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/config.json")
    def config_json(request: Request) -> dict[str, str]:
        return {"agent": agent_name, "base": request.scope.get("root_path", "")}

    app.state.desk = desk
    return app


def _body(model: type[BaseModel], raw: bytes) -> Any:
    if len(raw) > MAX_BODY:
        raise PayloadTooLarge(f"a request body may be at most {MAX_BODY} bytes")
    try:
        data = json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the body is not valid JSON: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
        raise BadRequest(f"the body is not what this route takes: {problems}") from None


class PayloadTooLarge(StalwartError):
    code = "payload_too_large"


def _error_response(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StalwartError)
    body: dict[str, Any] = {"error": exc.code, "message": exc.message}
    if isinstance(exc, RunWaiting):
        body["waiting"] = [w.to_dict() for w in exc.waiting]
    return JSONResponse(body, status_code=STATUS.get(exc.code, 500))
