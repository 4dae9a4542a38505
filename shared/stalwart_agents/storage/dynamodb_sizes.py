"""DynamoDB's limits on what one request may write, measured by its documented rules before anything is sent.

An item is at most 400 KB and a transaction's items together at most 4 MB, where
an item's size is the sum, over its attributes, of the name's UTF-8 length and
the value's size: a string's UTF-8 length, a number's 1 byte per two significant
digits plus 1, a binary's length, 1 byte for a boolean or null, and for a list or
map 3 bytes plus 1 byte per element plus its elements (a map's keys counted as
names).  DynamoDB answers an item over the limit with a ValidationException,
which reaches nobody as a clear sentence; measured here, it is refused as
``ValueTooLarge`` naming the record and its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ValueTooLarge

ITEM_LIMIT = 400 * 1024
TRANSACTION_LIMIT = 4 * 1024 * 1024
NUMBER_LIMIT = 21
"""The most DynamoDB says a number takes."""


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """The bytes DynamoDB counts for an item (or for the attributes an update sets), names included."""
    return sum(_text(name) + value_size(value) for name, value in item.items())


def value_size(value: Mapping[str, Any]) -> int:
    """The bytes of one attribute value in DynamoDB's JSON form (``{"S": ...}``, ``{"N": ...}``, ...)."""
    (kind, content), *_ = value.items()
    if kind == "S":
        return _text(content)
    if kind == "N":
        return number_size(content)
    if kind == "B":
        return len(content)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        single = kind[0]
        return sum(value_size({single: element}) for element in content)
    if kind == "L":
        return 3 + sum(1 + value_size(element) for element in content)
    if kind == "M":
        return 3 + sum(1 + _text(name) + value_size(element) for name, element in content.items())
    raise ValueError(f"{kind!r} is not a DynamoDB attribute type")


def number_size(text: str) -> int:
    """1 byte per two significant digits, leading and trailing zeros trimmed, plus 1."""
    mantissa = text.lower().partition("e")[0]
    significant = len("".join(filter(str.isdigit, mantissa)).strip("0")) or 1
    return min((significant + 1) // 2 + 1, NUMBER_LIMIT)


def check_item(what: str, size: int) -> None:
    """Refuse an item over DynamoDB's 400 KB; ``what`` names the record, as a person would."""
    if size > ITEM_LIMIT:
        raise ValueTooLarge(
            f"{what} would take {size:,} bytes as a DynamoDB item, over DynamoDB's limit of {ITEM_LIMIT:,} (400 KB)"
        )


def check_transaction(sizes: list[tuple[str, int]]) -> None:
    """Refuse a transaction whose items together are over DynamoDB's 4 MB, naming the largest of them."""
    total = sum(size for _, size in sizes)
    if total > TRANSACTION_LIMIT:
        what, size = max(sizes, key=lambda named: named[1])
        raise ValueTooLarge(
            f"a commit of {len(sizes)} items would take {total:,} bytes, over DynamoDB's limit of"
            f" {TRANSACTION_LIMIT:,} (4 MB) for one transaction; the largest is {what}, {size:,} bytes"
        )


def _text(text: str) -> int:
    return len(text.encode("utf-8"))
