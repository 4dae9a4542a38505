"""The figures an operator alarms on, as OpenTelemetry instruments, each made on first use."""

from __future__ import annotations

from functools import cached_property

from opentelemetry.metrics import Counter, Histogram, Meter, UpDownCounter

PAUSES_OPEN = "stalwart.pauses.open"
APPROVAL_DURATION = "stalwart.approval.duration"
ANSWERS = "stalwart.answers"
PAUSES_EXPIRED = "stalwart.pauses.expired"
ANSWERS_REFUSED = "stalwart.answers.refused"
DELIVERIES_FAILED = "stalwart.deliveries.failed"
DURATION_BUCKETS = (1.0, 10.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 4 * 3600.0, 24 * 3600.0, 7 * 24 * 3600.0)
"""Seconds: a person answers in seconds to days, not in the milliseconds of the SDK's default buckets."""


class Instruments:
    """One meter's instruments; none is made until something is measured with it."""

    def __init__(self, meter: Meter) -> None:
        self._meter = meter

    @cached_property
    def pauses_open(self) -> UpDownCounter:
        return self._meter.create_up_down_counter(
            PAUSES_OPEN, unit="{pause}", description="Pauses waiting for a person."
        )

    @cached_property
    def approval_duration(self) -> Histogram:
        return self._meter.create_histogram(
            APPROVAL_DURATION,
            unit="s",
            description="From a pause opening to its answer.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )

    @cached_property
    def answers(self) -> Counter:
        return self._meter.create_counter(ANSWERS, unit="{answer}", description="Answers taken, by decision.")

    @cached_property
    def pauses_expired(self) -> Counter:
        return self._meter.create_counter(PAUSES_EXPIRED, unit="{pause}", description="Pauses the clock ended.")

    @cached_property
    def answers_refused(self) -> Counter:
        return self._meter.create_counter(ANSWERS_REFUSED, unit="{answer}", description="Answers refused, by code.")

    @cached_property
    def deliveries_failed(self) -> Counter:
        return self._meter.create_counter(
            DELIVERIES_FAILED, unit="{delivery}", description="Announcements of a pause that failed, by channel."
        )
