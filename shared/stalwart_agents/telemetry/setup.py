"""The tracer and meter providers: the ones already set for the process (AWS's ADOT layer sets them), or the SDK's,
configured here from the standard ``OTEL_*`` variables with the OTLP/HTTP exporter."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opentelemetry import metrics, trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.sampling import Sampler

DEFAULT_SERVICE = "stalwart"


@dataclass(frozen=True)
class Providers:
    """Where spans and figures go; ``owned`` where this process made them, and so must flush them."""

    tracer: TracerProvider
    meter: MeterProvider
    owned: bool


def providers(environ: Mapping[str, str]) -> Providers:
    """The global providers where something set them already, else the SDK's, made global here."""
    tracer, meter = trace.get_tracer_provider(), metrics.get_meter_provider()
    if not _unset(tracer):
        return Providers(tracer, meter, owned=False)
    made = _sdk(environ)
    trace.set_tracer_provider(made.tracer)
    metrics.set_meter_provider(made.meter)
    return made


def _unset(provider: object) -> bool:
    """Whether ``provider`` is the API's stand-in, there until someone sets a real one."""
    return isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


def _sdk(environ: Mapping[str, str]) -> Providers:
    """A TracerProvider batching to OTLP/HTTP and a MeterProvider exporting periodically, each exporter reading its
    endpoint, headers and timeouts from the ``OTEL_EXPORTER_OTLP_*`` variables itself; an exporter set to ``none``
    is left out."""
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: environ.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE})
    tracer = SdkTracerProvider(resource=resource, sampler=_sampler(environ))
    if _exports(environ, "OTEL_TRACES_EXPORTER"):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        tracer.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    readers: list[MetricReader] = []
    if _exports(environ, "OTEL_METRICS_EXPORTER"):
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    return Providers(tracer, SdkMeterProvider(resource=resource, metric_readers=readers), owned=True)


def _exports(environ: Mapping[str, str], variable: str) -> bool:
    return environ.get(variable, "otlp").strip().lower() != "none"


def _sampler(environ: Mapping[str, str]) -> Sampler | None:
    """The team's sampler where ``OTEL_TRACES_SAMPLER`` names one; else every trace, whatever a caller's
    ``traceparent`` says of sampling: the service faces callers it does not trust, and a caller's unsampled flag
    must not hide their own turn, its call or its wait from the team."""
    if environ.get("OTEL_TRACES_SAMPLER"):
        return None
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased

    return ParentBased(root=ALWAYS_ON, remote_parent_not_sampled=ALWAYS_ON)
