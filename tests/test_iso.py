"""Every time the log and the pauses carry is written as ``datetime`` writes it, to the millisecond: the quick
``iso`` must agree with it everywhere, rounding included, or a stamp could move by a millisecond (or a second)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from stalwart_agents.engine.pause import iso


def reference(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


EDGES = [
    0.0,
    0.0005,
    0.9999995,
    0.9999994,
    1_796_205_124.999_999_5,
    1_796_205_124.999_499_9,
    1_796_205_124.000_000_4,
    951_782_399.999_999_7,
    4_102_444_799.999_999,
    -1.25,
]


@pytest.mark.parametrize("timestamp", EDGES)
def test_an_edge_of_rounding_is_written_as_datetime_writes_it(timestamp):
    assert iso(timestamp) == reference(timestamp)


def test_any_time_is_written_as_datetime_writes_it_whatever_came_before():
    draw = random.Random(31)
    now = 1_796_205_124.0
    for _ in range(50_000):
        timestamp = draw.choice([draw.uniform(0, 4e9), now + draw.random() * 3, round(now + draw.random(), 6) + 5e-7])
        assert iso(timestamp) == reference(timestamp), timestamp
