"""Rule conditions in CEL (cel-python): compiled once per expression, evaluated once per set of values.

cel-python is imported on first use, not with the package: a Lambda whose route
never reads a rule should not pay for its parser at cold start.  Evaluations are
cached by their values, since a run is replayed on every move and cel-python
takes a good part of a millisecond for each.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any


class Unparsable(ValueError):
    """An expression that is not CEL; ``column`` is where the parser stopped."""

    def __init__(self, message: str, column: int | None) -> None:
        super().__init__(message)
        self.column = column


@lru_cache(maxsize=1024)
def compile(expression: str) -> Any:
    import celpy
    from celpy.celparser import CELParseError

    environment = celpy.Environment()
    try:
        return environment.program(environment.compile(expression))
    except CELParseError as exc:
        raise Unparsable(str(exc), exc.column) from exc


@lru_cache(maxsize=4096)
def holds(expression: str, values: str) -> bool:
    """Whether ``expression`` is true for the JSON ``values``; one that cannot be evaluated holds (fails closed)."""
    from celpy import celtypes
    from celpy.adapter import json_to_cel
    from celpy.evaluation import CELEvalError

    activation = json.loads(values)
    try:
        result = compile(expression).evaluate({key: json_to_cel(value) for key, value in activation.items()})
    except (CELEvalError, ValueError, TypeError):
        return True
    return bool(result) if isinstance(result, celtypes.BoolType) else True
