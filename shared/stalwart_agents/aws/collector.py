"""The garbage collector around a function's cold start, in Lambda's execution environment.

What a function builds at cold start (the modules, the app, the desk) lives as long as its process. While it is
built, the collector runs every 2,000 allocations and scans what was made so far again and again: about 40 ms of a
route function's cold start on Python 3.13. In Lambda (where the runtime interface client finds
``AWS_LAMBDA_RUNTIME_API``) the build runs with the collector paused, and what it built is then moved where no
collection scans it (``gc.freeze``), as Python's documentation suggests for what a process makes before it serves.
The garbage the build leaves (a few hundred objects for the shop; whatever an agent's tools module leaves at import)
is kept with it.

Elsewhere (tests, ``stalwart serve``, a laptop) nothing changes: a process that builds many handlers would keep the
garbage of every one.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

__all__ = ["built_for_life"]


@contextmanager
def built_for_life(environ: Mapping[str, str]) -> Iterator[None]:
    """What the block builds, built without the collector and frozen, in Lambda; a failed build frozen nowhere."""
    if not environ.get("AWS_LAMBDA_RUNTIME_API") or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        gc.enable()
