"""The service's JSON answers, encoded once, by the encoder the stores write with.

The bytes are those Starlette's ``JSONResponse`` sends (compact, UTF-8, no NaN); it
builds a new encoder for every answer, and a route that returns a plain value has
FastAPI walk it once more before that.  A route hands its value here instead.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from ..storage import text


class JsonAnswer(JSONResponse):
    def render(self, content: Any) -> bytes:
        """``content`` encoded; bytes are taken as already encoded (a reply fitted to the response budget)."""
        return content if isinstance(content, bytes) else text(content).encode("utf-8")
