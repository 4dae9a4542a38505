"""A team's tools module: imported from a .py file beside agent.yaml or by its dotted name, its tools and steps
collected by name.

It knows both kinds, ``Tool`` and ``StepFunction``, so it stands beside them rather than in either's module.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ..errors import ConfigError
from .python import Tool
from .steps import StepFunction


def load_tools(spec: str, base_dir: Path) -> tuple[dict[str, Tool | StepFunction], str]:
    """Import a tools module (a .py file beside agent.yaml, or a dotted module) and collect its tools and steps.

    Returns them by name, and where they came from, for error messages.
    """
    if spec.endswith(".py"):
        path = (base_dir / spec).resolve()
        module = _import_file(path)
        origin = str(path)
    else:
        module = importlib.import_module(spec)
        origin = getattr(module, "__file__", None) or spec
    found: dict[str, Tool | StepFunction] = {}
    for value in vars(module).values():
        if isinstance(value, (Tool, StepFunction)):
            if value.name in found and found[value.name] is not value:
                raise ConfigError(f"two tools are named {value.name!r}", file=origin, key=value.name)
            found[value.name] = value
    if not found:
        raise ConfigError("declares no @tool functions", file=origin)
    return found, origin


def _import_file(path: Path) -> ModuleType:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"stalwart_tools_{path.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError("cannot be imported as Python", file=str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ConfigError(f"failed to import: {type(exc).__name__}: {exc}", file=str(path)) from exc
    return module
