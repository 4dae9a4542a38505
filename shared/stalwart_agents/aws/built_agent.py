"""agent.yaml as the agent layer's build validated it, so that a function's cold start neither reads YAML nor validates.

The build (agent-layer/Makefile) runs ``python -m stalwart_agents.aws.built_agent agent.yaml``, which validates the
file as ``load_config`` does and writes ``agent.yaml.built.json`` beside it: the values the file set, as the models
hold them, and the line of each key.  A function loads that where it was made from exactly these bytes of agent.yaml
by exactly this package's config.py (a digest of both and of the version), building the models with
``model_construct``; anything else, a file edited since, another version, no built file, is read and validated as
ever.  What that saves a cold start is importing yaml, building the models' validators and running them.

The build writes nothing unless what it wrote loads back equal to the validated file, set fields included.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from .. import __version__, config
from ..config import Config, load_config
from ..errors import ConfigError

__all__ = ["build", "built_path", "load"]

SUFFIX = ".built.json"
FORMAT = b"stalwart-agents built agent 1"
M = TypeVar("M", bound=BaseModel)


def built_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def load(path: Path) -> Config:
    """The agent file at ``path``: from what the build made of it where that was made from exactly these bytes by this
    package, else read and validated by ``load_config``."""
    try:
        agent, built = path.read_bytes(), json.loads(built_path(path).read_bytes())
        made_from_these = isinstance(built, dict) and built.get("digest") == _digest(agent)
    except (OSError, ValueError):  # no agent file, no built file, or no config.py source to compare
        return load_config(path)
    return _config(built, path.resolve()) if made_from_these else load_config(path)


def build(path: Path) -> Path:
    """Validate the agent file at ``path`` and write what ``load`` reads beside it; a file that does not validate
    raises its ConfigError, and nothing is written."""
    validated = load_config(path)
    built = {
        "digest": _digest(path.read_bytes()),
        "config": validated.model_dump(mode="json", exclude_unset=True),
        "lines": [[list(loc), line] for loc, line in validated._lines.items()],
    }
    loaded = _config(json.loads(json.dumps(built)), path.resolve())
    if loaded != validated or loaded.model_dump(exclude_unset=True) != validated.model_dump(exclude_unset=True):
        raise RuntimeError(f"{path} does not load back from JSON as it validated; nothing was written")
    target = built_path(path)
    target.write_text(json.dumps(built, separators=(",", ":")))
    return target


def _digest(agent: bytes) -> str:
    """What a built file must have been made from: this format, this version and config.py, and the agent file."""
    made_by = Path(config.__file__).read_bytes()
    parts = (FORMAT, __version__.encode(), made_by, agent)
    return hashlib.sha256(b"".join(hashlib.sha256(part).digest() for part in parts)).hexdigest()


def _config(built: dict[str, Any], path: Path) -> Config:
    loaded = _constructed(Config, built["config"])
    lines = {tuple(loc): line for loc, line in built["lines"]}
    loaded.model_post_init({"path": path, "base_dir": path.parent, "lines": lines})
    return loaded


def _constructed(model: type[M], values: dict[str, Any]) -> M:
    """``model`` with ``values``, the fields it was validated with, and every other field its default."""
    fields = model.model_fields
    return model.model_construct(**{name: _typed(fields[name].annotation, value) for name, value in values.items()})


def _typed(annotation: Any, value: Any) -> Any:
    """A value as JSON holds it, as the field's type holds it: a model made, a list that is a tuple made one."""
    origin, args = get_origin(annotation), get_args(annotation)
    if value is None:
        return None
    if origin is Annotated:
        return _typed(args[0], value)
    if origin in (Union, UnionType):
        (kind,) = [arg for arg in args if arg is not NoneType]  # config's unions are X | None
        return _typed(kind, value)
    if origin is tuple:
        return tuple(_typed(args[0], item) for item in value)
    if origin is dict:
        return {key: _typed(args[1], item) for key, item in value.items()}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _constructed(annotation, value)
    return value


if __name__ == "__main__":
    try:
        print(f"wrote {build(Path(sys.argv[1]))}")
    except ConfigError as exc:
        raise SystemExit(str(exc)) from None
