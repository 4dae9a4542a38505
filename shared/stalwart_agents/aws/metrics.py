"""What an operator counts: pauses opened, answers taken and refused, time to answer, deliveries failed.

The Desk, the Lambda handlers and the fan-out tell a :class:`Meter`; where nothing
is watched (a laptop, the tests) it is :class:`NoMeter`, which costs nothing.  On
Lambda it is :class:`PowertoolsMeter`: each figure is one CloudWatch embedded-metric
line written to the function's log at once, so nothing is held between invocations
and nothing is lost when one ends without a flush.  Powertools is imported only
when that meter is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["Meter", "NoMeter", "PowertoolsMeter", "meter_from_environ"]


class Meter(Protocol):
    def pause_opened(self, kind: str) -> None:
        """A run stopped for a person; ``kind`` is the pause's (approval, question, ...)."""

    def answer_taken(self, kind: str, seconds: float) -> None:
        """A person's answer was taken, ``seconds`` after its pause was opened."""

    def answer_refused(self, code: str) -> None:
        """An answer was refused; ``code`` is the error's code (interrupt_stale, forbidden, ...)."""

    def delivery_failed(self) -> None:
        """A new pause could not be posted to the webhook."""


class NoMeter:
    """Counts nothing: the meter where no one collects the figures."""

    def pause_opened(self, kind: str) -> None:
        pass

    def answer_taken(self, kind: str, seconds: float) -> None:
        pass

    def answer_refused(self, code: str) -> None:
        pass

    def delivery_failed(self) -> None:
        pass


class PowertoolsMeter:
    """CloudWatch metrics in ``namespace``, dimensioned by ``service`` and, where it says more, the kind or code."""

    def __init__(self, namespace: str, service: str) -> None:
        from aws_lambda_powertools.metrics import MetricUnit, single_metric

        self.namespace, self.service = namespace, service
        self._unit, self._single = MetricUnit, single_metric

    def pause_opened(self, kind: str) -> None:
        self._emit("PausesOpened", self._unit.Count, 1, kind=kind)

    def answer_taken(self, kind: str, seconds: float) -> None:
        self._emit("AnswersTaken", self._unit.Count, 1, kind=kind)
        self._emit("TimeToAnswer", self._unit.Seconds, seconds, kind=kind)

    def answer_refused(self, code: str) -> None:
        self._emit("AnswersRefused", self._unit.Count, 1, code=code)

    def delivery_failed(self) -> None:
        self._emit("DeliveriesFailed", self._unit.Count, 1)

    def _emit(self, name: str, unit: Any, value: float, **dimensions: str) -> None:
        with self._single(
            name=name, unit=unit, value=value, namespace=self.namespace, default_dimensions={"service": self.service}
        ) as metric:
            for dimension, given in dimensions.items():
                metric.add_dimension(name=dimension, value=given)


def meter_from_environ(environ: Mapping[str, str]) -> Meter:
    """Powertools' meter where the stack names a namespace (template.yaml does), none elsewhere."""
    namespace = environ.get("POWERTOOLS_METRICS_NAMESPACE")
    if not namespace:
        return NoMeter()
    return PowertoolsMeter(namespace, environ.get("POWERTOOLS_SERVICE_NAME") or "stalwart")
