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
        module = _import_dotted(spec)
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


class MissingModule(Exception):
    """A dotted tools module that is not there to import; agent.yaml's loader places it at the agent's ``tools:``."""


def _import_dotted(spec: str) -> ModuleType:
    """The module ``spec`` names.  Only its own absence is ours to explain: a module it imports that is missing is
    its own error, with its traceback."""
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (spec == exc.name or spec.startswith(f"{exc.name}.")):
            raise
        file = f"{spec.rpartition('.')[2]}.py"
        raise MissingModule(
            f"cannot import {spec} (no module named {exc.name!r}); install the package that holds it into this "
            f"Python, or put its folder on PYTHONPATH, or name a file beside agent.yaml instead (tools: {file})"
        ) from None


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
