"""Whether telemetry is on: decided once per process, from the standard ``OTEL_*`` variables."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from .off import Off

OFF = Off()
_current: Off = OFF
_decided = False
_lock = threading.Lock()

EXPORTERS = ("OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER")
ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")


def wanted(environ: Mapping[str, str]) -> bool:
    """Whether the environment asks for telemetry: an OTLP endpoint, or an exporter other than ``none``, and the
    SDK not disabled (``OTEL_SDK_DISABLED=true``)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = [environ.get(name, "").strip().lower() for name in EXPORTERS]
    if any(exporter and exporter != "none" for exporter in exporters):
        return True
    return any(environ.get(name, "").strip() for name in ENDPOINTS) and not all(e == "none" for e in exporters)


def start(environ: Mapping[str, str]) -> Off:
    """The process's telemetry, decided on the first call (a Desk's making calls it): later calls, whatever their
    environment, return the same."""
    global _current, _decided
    with _lock:
        if not _decided:
            _decided = True
            if wanted(environ):
                from .on import On

                _current = On.from_environ(environ)
        return _current


def use(telemetry: Off) -> None:
    """Emit through ``telemetry`` from now on, deciding nothing from the environment: for an application that
    configures OpenTelemetry itself (``On(tracer_provider, meter_provider)``), and for tests (``use(OFF)``)."""
    global _current, _decided
    with _lock:
        _current, _decided = telemetry, True


def current() -> Off:
    """The hooks every traced place calls: ``Off``'s until telemetry is on."""
    return _current
