"""Rule conditions in CEL (cel-python): compiled once per expression, evaluated once per set of values.

Plain comparisons (``args.amount > 500``) are decided in Python by cel_subset, and
only what they cannot decide reaches cel-python.

A plain expression is read without lark (cel_plain); any other needs only cel-python's
parser module (and lark), loaded on its own, without cel-python's package, whose
evaluator brings google-re2, pendulum and its types (about 60 ms of a cold start).
That package is imported only where an expression is outside the subset (when it is
compiled) or where the subset leaves values undecided (at that evaluation).
Evaluations are cached by their values, since a run is replayed on every move and
cel-python takes a good part of a millisecond for each.

cel-python builds its Lark parser from the grammar once per process, about 110 ms
of a cold start, where loading a saved one takes about 10.  The layer's build
(shared/Makefile) saves it beside this module with ``python -m stalwart_agents.reading.cel
PATH``; the first compile hands it to cel-python when it was made from the same
grammar, by the same lark and Python, and cel-python builds its own otherwise.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, BinaryIO

from . import cel_plain, cel_subset

if TYPE_CHECKING:
    from lark import Lark

PREBUILT_PARSER = Path(__file__).with_name("cel_parser.pickle")
"""cel-python's parser as the layer's build saved it: a line of JSON saying what it was made from, then Lark.save's
pickle.  Absent outside a built layer."""


RECURSION_LIMIT = 2500
"""What cel-python's Environment raises Python's recursion limit to, for CEL's nesting minimums: the plain reader
and the subset's closures, over the same trees, get as much."""


class Unparsable(ValueError):
    """An expression that is not CEL; ``column`` is where the parser stopped."""

    def __init__(self, message: str, column: int | None) -> None:
        super().__init__(message)
        self.column = column


def prepare(expression: str) -> None:
    """Parse ``expression``, and compile it with cel-python where the subset cannot evaluate it: what loading an
    agent file does with each expression, so a rule that needs cel-python has it ready before the first call."""
    if _subset(expression) is None:
        compile(expression)


@lru_cache(maxsize=1024)
def compile(expression: str) -> Any:
    tree = _lark_tree(expression)  # first: it installs the saved parser before an Environment would build one
    return cel_python().Environment().program(tree)


@lru_cache(maxsize=1024)
def _parsed(expression: str) -> Any:
    """The expression's parse tree, once: what the subset, ``fields_of`` and ``reads`` read.  A plain expression is
    read without lark (cel_plain), into the tree cel-python's parser makes of it; any other by that parser."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    return cel_plain.tree(expression) or _lark_tree(expression)


@lru_cache(maxsize=1024)
def _lark_tree(expression: str) -> Any:
    """The tree cel-python's own Environment would make (its InterpretedRunner's trees are lark's): what its
    evaluator walks."""
    celparser = parser_module()
    install_parser(celparser=celparser)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        return celparser.CELParser().parse(expression)
    except celparser.CELParseError as exc:
        raise Unparsable(str(exc), exc.column) from exc


def parsed(expression: str) -> Any:
    """The expression's parse tree, for reading what it names without running it (``approvals.parties``)."""
    return _parsed(expression)


def fields_of(expression: str, variable: str) -> frozenset[str]:
    """The fields ``expression`` reads of ``variable`` by name (``args.amount``, ``args["amount"]``): what it needs
    the values to have, so a name no tool takes is found at load, not by every call failing closed."""
    return frozenset(field for name, field in _field_reads(expression) if name == variable and field is not None)


@lru_cache(maxsize=1024)
def reads(expression: str) -> Mapping[str, frozenset[str] | None]:
    """The variables ``expression`` reads, each with the fields it reads of it by name, or None where it reads the
    variable whole (``size(args)``, ``args[name]``, ``args.exists(...)``): all ``narrowed`` may keep of them."""
    used: dict[str, int] = {}
    for node in _parsed(expression).iter_subtrees():
        if node.data == "ident":
            name = str(node.children[0])
            used[name] = used.get(name, 0) + 1
    fields: dict[str, set[str]] = {}
    for name, field in _field_reads(expression):
        if field is not None:
            fields.setdefault(name, set()).add(field)
            used[name] -= 1
    return MappingProxyType(
        {name: frozenset(fields.get(name, ())) if not left else None for name, left in used.items()}
    )


@lru_cache(maxsize=1024)
def _field_reads(expression: str) -> tuple[tuple[str, str | None], ...]:
    """Each ``variable.field`` and ``variable[...]`` of the expression: the variable, and the field where it is
    named (None for an index that is not a string literal)."""
    found = []
    for node in _parsed(expression).iter_subtrees():
        if node.data not in ("member_dot", "member_index") or (variable := variable_of(node.children[0])) is None:
            continue
        field = node.children[1]
        found.append((variable, str(field) if node.data == "member_dot" else string_literal(field)))
    return tuple(found)


def narrowed(expression: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Only what ``expression`` reads of ``values``: evaluations are cached by their values, so two pauses that
    differ only in what a condition never reads share one evaluation, where the whole call would share none."""
    kept: dict[str, Any] = {}
    for name, fields in reads(expression).items():
        if name not in values:
            continue
        value = values[name]
        if fields is not None and isinstance(value, Mapping):
            value = {field: value[field] for field in fields if field in value}
        kept[name] = value
    return kept


def variable_of(node: Any) -> str | None:
    """The identifier a ``member`` node is, when it is a bare one."""
    tokens = [leaf for leaf in node.scan_values(lambda value: True)]
    return str(tokens[0]) if len(tokens) == 1 and getattr(tokens[0], "type", "") == "IDENT" else None


def string_literal(node: Any) -> str | None:
    """The text of a node that is a plain string literal (an index ``"amount"``, a group ``"finance"``), else
    None."""
    import ast

    tokens = [leaf for leaf in node.scan_values(lambda value: True)]
    if len(tokens) != 1 or getattr(tokens[0], "type", "") != "STRING_LIT":
        return None
    try:
        text = ast.literal_eval(str(tokens[0]))
    except (ValueError, SyntaxError):
        return None
    return text if isinstance(text, str) else None


def evaluate(expression: str, activation: Mapping[str, Any]) -> bool | None:
    """The boolean ``expression`` evaluates to over ``activation``; None where it cannot be evaluated to one.

    Plain comparisons are decided in Python (cel_subset); the rest, and whatever values those cannot decide, by
    cel-python over what the expression reads of the activation as JSON (None where that is not JSON).
    """
    decided = cel_subset.decide(_subset(expression), activation)
    if decided is not None:
        return decided
    values = _encoded(expression, activation)
    return None if values is None else _outcome(expression, values)


_VALUES = json.JSONEncoder(sort_keys=True, allow_nan=False)


@lru_cache(maxsize=1024)
def _subset(expression: str) -> Any:
    return cel_subset.compiled(_parsed(expression))


def _encoded(expression: str, activation: Mapping[str, Any]) -> str | None:
    """What ``expression`` reads of ``activation``, as the JSON text evaluations are cached by; None where it is not
    JSON."""
    try:
        return _VALUES.encode(narrowed(expression, activation))
    except (ValueError, TypeError):
        return None


@lru_cache(maxsize=4096)
def _outcome(expression: str, values: str) -> bool | None:
    """The boolean ``expression`` evaluates to for the JSON ``values``; None where it cannot be evaluated to one."""
    celtypes = cel_python().celtypes

    result = _result(expression, values)
    return bool(result) if isinstance(result, celtypes.BoolType) else None


def _result(expression: str, values: str) -> Any:
    """What cel-python makes of ``expression`` over the JSON ``values``; None where it cannot be evaluated."""
    from celpy.adapter import json_to_cel
    from celpy.evaluation import CELEvalError

    activation = json.loads(values)
    try:
        return compile(expression).evaluate({key: json_to_cel(value) for key, value in activation.items()})
    except (CELEvalError, ValueError, TypeError):
        return None


def text_or_number(expression: str, activation: Mapping[str, Any]) -> str | float | None:
    """What ``expression`` gives over ``activation`` where that is text or a number (a CEL duration in seconds);
    None where it gives anything else or cannot be evaluated."""
    celtypes = cel_python().celtypes

    values = _encoded(expression, activation)
    result = None if values is None else _result(expression, values)
    if isinstance(result, celtypes.StringType):
        return str(result)
    if isinstance(result, celtypes.DurationType):
        return float(result.total_seconds())
    if isinstance(result, (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)):
        return float(result)
    return None


def cel_python() -> ModuleType:
    """cel-python's package, imported where an expression needs its evaluator.  Its parser module may have been
    loaded on its own before it (``parser_module``): the package gets it as its attribute, as importing the package
    first would have given it."""
    import celpy

    celpy.celparser = parser_module()
    return celpy


def install_parser(path: Path = PREBUILT_PARSER, celparser: ModuleType | None = None) -> None:
    """Hand cel-python the saved parser before it builds its own (it keeps one per process in CEL_PARSER)."""
    celparser = celparser or parser_module()
    if celparser.CELParser.CEL_PARSER is None:
        celparser.CELParser.CEL_PARSER = load_parser(path, celparser)


def load_parser(path: Path, celparser: ModuleType) -> Lark | None:
    """The parser saved at ``path``; None where there is none or it was made from anything else than what this
    process would build it from (another grammar, lark or Python), which a pickle would not notice."""
    import pickle

    from lark import Lark

    try:
        with path.open("rb") as file:
            if json.loads(file.readline()) != made_from(celparser):
                return None
            return Lark.load(_unpickled(file, celparser))
    except (OSError, ValueError, EOFError, pickle.UnpicklingError):
        return None


def _unpickled(file: BinaryIO, celparser: ModuleType) -> Any:
    """Lark.save's pickle, its token callback taken from ``celparser`` itself: pickle would import the module it
    names, and importing celpy.celparser by name runs celpy's __init__ first, the evaluator and google-re2."""
    import pickle

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            if module != celparser.__name__:
                return super().find_class(module, name)
            found: Any = celparser
            for part in name.split("."):
                found = getattr(found, part)
            return found

    return Unpickler(file).load()


def made_from(celparser: ModuleType) -> dict[str, str]:
    """What a parser is built from: the Python minor version (pickles of lark's classes), lark's version (its tables
    and their serialization), and cel-python's parser module and grammar, fingerprinted (the options it gives Lark,
    its token callback, its rules): a content hash costs less than asking importlib.metadata for a version and
    is exact."""
    import hashlib

    import lark

    module = Path(celparser.__file__ or "")
    grammar = hashlib.sha256(module.read_bytes() + module.with_name("cel.lark").read_bytes())
    return {"python": "{}.{}".format(*sys.version_info), "lark": lark.__version__, "cel-python": grammar.hexdigest()}


def save_parser(path: Path) -> None:
    """Build cel-python's parser and save it to ``path`` with what it was made from, for the layer's build.

    Pickle checks the module that names the parser's token callback by importing it, which would run celpy's
    __init__ first, and the build machine may not run the layer's google-re2: an empty package stands in for celpy's
    in this process, which only saves."""
    celparser = parser_module()
    sys.modules.setdefault("celpy", ModuleType("celpy"))
    celparser.CELParser()
    with path.open("wb") as file:
        file.write(json.dumps(made_from(celparser)).encode() + b"\n")
        celparser.CELParser.CEL_PARSER.save(file)


def parser_module() -> ModuleType:
    """celpy.celparser, loaded from its file without running celpy's __init__, which imports the evaluator and
    google-re2: reading an expression needs only the parser (and lark), and the layer's build may run on another
    machine than the aarch64 one its google-re2 wheel is for.  It keeps its real name, since the saved parser names
    its token callback by module and qualified name; celpy's package, imported later, takes this module as its
    own (``from celpy.celparser import ...`` finds it in sys.modules)."""
    import importlib.util

    loaded = sys.modules.get("celpy.celparser")
    if loaded is not None:
        return loaded
    package = importlib.util.find_spec("celpy")
    if package is None or not package.submodule_search_locations:
        raise SystemExit("cel-python is not installed where this Python looks (PYTHONPATH).")
    location = Path(next(iter(package.submodule_search_locations))) / "celparser.py"
    spec = importlib.util.spec_from_file_location("celpy.celparser", location)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cel-python's parser module is not at {location}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module


if __name__ == "__main__":
    save_parser(Path(sys.argv[1]))
