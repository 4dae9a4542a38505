"""Numbers a person is shown exactly as they run.

A browser holds every JSON number as a double, so a whole number past
±(2^53-1) is shown rounded (``9007199254740993`` as ``…992``) while Python
runs it as given: a person would approve one number and another would run.
"""

from __future__ import annotations

import math

SAFE_INTEGER = 2**53 - 1
"""The largest integer a browser holds exactly: a bigger one would be shown rounded, and approved as shown."""


def unshowable(value: object) -> int | float | None:
    """The first number in ``value`` (through lists and objects, without recursion) a browser would not show as it
    runs: past ±``SAFE_INTEGER``, or not finite; None where every number shows exactly."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        elif (
            isinstance(item, int | float)
            and not isinstance(item, bool)
            and (not math.isfinite(item) or abs(item) > SAFE_INTEGER)
        ):
            return item
    return None
