"""The English selector: a person's turn, read clause by clause into tool calls.

A tool says how it is asked for with patterns (``says=[...]``)::

    look up order {order_id}
    charge {amount:number} (to|for) order {order_id}
    send [a] note {text:text}

``{slot}`` is one word, ``{slot:number}`` a number (``$40`` gives ``40``),
``{slot:text}`` the rest of the clause; ``(a|b)`` picks one, ``[words]`` may be
left out.  Literal words match in any case; slot values keep the case the
person typed, because an order id or a note is theirs, not ours.

A turn is split into clauses at ``,``, ``;``, ``and`` and ``then``, and it is
*read* only when every clause matches a pattern: a turn half understood is not
acted on.  A clause may open with polite words ("please", "can you", "could
you") and close with them ("please", "thanks"); they are matched and dropped,
never read as a value.  Since a text slot may itself hold "and" or a comma, the split is not
greedy: the turn is cut at every separator, and the cuts are then grouped back
so that every clause matches, preferring the grouping with the most clauses.

Everything here is bounded, because turns come from people we do not control:
a turn is at most ``MAX_TURN_CHARS`` long, patterns compile to regular
expressions with no nested unbounded repeats, and grouping has a work budget.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from . import language

__all__ = [
    "MAX_TURN_CHARS",
    "Clause",
    "Pattern",
    "PatternError",
    "Reading",
    "Selector",
    "compile_pattern",
    "example",
    "sample",
]

MAX_TURN_CHARS = 4000
"""Longer turns are not read: nobody types a request that long, and it bounds the work."""

_WORK_BUDGET = 30_000
"""Regular-expression calls the grouping may make for one turn.  A real turn
makes tens; a 4,000-character turn of 2,000 comma-cut pieces makes about
12,000; only a turn built to be slow against a pattern that takes any word
(``{x}``) goes past it, and it is then not read rather than allowed to hold a
worker for seconds (each call costs at most a few microseconds)."""

SlotKind = Literal["word", "number", "text"]
_KINDS: dict[str, SlotKind] = {"number": "number", "text": "text"}

_STRIPPED_AT_END = ".!?"

_POLITE_OPENING = r"\s+(?:please|kindly|(?:can|could|would|will)\s+you),?"
_POLITE_CLOSING = r"[,.!]?\s+(?:please|thanks|thank\s+you)"
# Up to two polite phrases at either end ("could you please", "please, thanks"), each optional and none repeated
# by * or +, so a clause of many "please" cannot make matching backtrack.
_POLITE_BEFORE = f"(?:{_POLITE_OPENING}(?:{_POLITE_OPENING})?)?"
_POLITE_AFTER = f"(?:{_POLITE_CLOSING}(?:{_POLITE_CLOSING})?)?"
_POLITE_MAX_WORDS = 8
"""Words the polite phrases at both ends of a clause may add: two of at most two words, at each end."""
_SPECIAL = "()[]{}|"

# One separator: a comma, a semicolon, or "and"/"then" standing alone (not
# inside "sand" or "thence").  Separators with only spaces between them
# (", and then") make one cut.
_SEPARATOR = re.compile(r"[,;]|(?<![^\s,;])(?:and|then)(?![^\s,;])", re.IGNORECASE)
_WORD_START = re.compile(r"(?<!\S)\S")


class PatternError(ValueError):
    """A ``says`` pattern that cannot be compiled; the message quotes it and says what is wrong."""


# --------------------------------------------------------------------------- patterns
#
# A pattern is parsed into a small tree, then turned into one regular
# expression.  Spaces are nodes of their own, because where a space goes
# decides whether "send [a] note" still matches "send note".


@dataclass(frozen=True)
class _Space:
    pass


@dataclass(frozen=True)
class _Word:
    text: str


@dataclass(frozen=True)
class _Slot:
    name: str
    kind: SlotKind


@dataclass(frozen=True)
class _Choice:
    """``(a|b)``, or ``[a]`` when ``optional``: alternatives, each a sequence of nodes."""

    alternatives: tuple[tuple[_Node, ...], ...]
    optional: bool


_Node = _Space | _Word | _Slot | _Choice
_SPACE = _Space()


class _Parser:
    """Recursive descent over a pattern's text, raising PatternError at the first fault."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.slots: list[_Slot] = []

    def fail(self, problem: str) -> PatternError:
        return PatternError(f"pattern {self.text!r}: {problem}")

    def parse(self) -> tuple[_Node, ...]:
        alternatives = self.alternatives(closer=None)
        if len(alternatives) > 1:
            raise self.fail("'|' separates alternatives only inside ( ) or [ ], as in (to|for)")
        if not alternatives[0]:
            raise self.fail("it is empty")
        return alternatives[0]

    def alternatives(self, closer: str | None) -> list[tuple[_Node, ...]]:
        """Sequences separated by ``|`` up to ``closer`` (consumed), or to the end when None."""
        opened_at = self.pos - 1
        found: list[tuple[_Node, ...]] = [self.sequence()]
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "|":
                found.append(self.sequence())
            elif char == closer:
                return found
            elif closer is not None:
                raise self.fail(
                    f"unbalanced {self.text[opened_at]!r} at character {opened_at + 1}: "
                    f"{char!r} at character {self.pos} closes it; use {closer!r}"
                )
            else:
                raise self.fail(f"unbalanced {char!r} at character {self.pos}: nothing opened it")
        if closer is not None:
            opener = self.text[opened_at]
            raise self.fail(f"unbalanced {opener!r} at character {opened_at + 1}: it is never closed with {closer!r}")
        return found

    def sequence(self) -> tuple[_Node, ...]:
        """Nodes up to the next ``|``, ``)``, ``]`` or the end; spaces at either edge dropped."""
        nodes: list[_Node] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in "|)]}":
                if char == "}":
                    raise self.fail(f"unbalanced '}}' at character {self.pos + 1}: nothing opened it")
                break
            if char.isspace():
                while self.pos < len(self.text) and self.text[self.pos].isspace():
                    self.pos += 1
                if nodes:
                    nodes.append(_SPACE)
            elif char in "([":
                self.pos += 1
                nodes.append(self.choice(char))
            elif char == "{":
                nodes.append(self.slot())
            else:
                start = self.pos
                while (
                    self.pos < len(self.text)
                    and not self.text[self.pos].isspace()
                    and self.text[self.pos] not in _SPECIAL
                ):
                    self.pos += 1
                nodes.append(_Word(self.text[start : self.pos]))
        if nodes and nodes[-1] is _SPACE:
            nodes.pop()
        return tuple(nodes)

    def choice(self, opener: str) -> _Choice:
        opened_at = self.pos - 1
        optional = opener == "["
        alternatives = self.alternatives(closer="]" if optional else ")")
        if any(not alternative for alternative in alternatives):
            written = self.text[opened_at : self.pos]
            what = "optional" if optional and len(alternatives) == 1 else "alternative in"
            raise self.fail(f"empty {what} {written} at character {opened_at + 1}: each needs at least one word")
        return _Choice(tuple(alternatives), optional)

    def slot(self) -> _Slot:
        start = self.pos
        end = self.text.find("}", start)
        inner = self.text[start + 1 : end] if end >= 0 else ""
        if end < 0 or any(char in _SPECIAL for char in inner):
            raise self.fail(f"unbalanced '{{' at character {start + 1}: a slot is {{name}} or {{name:type}}")
        self.pos = end + 1
        name, _, kind_name = inner.partition(":")
        name, kind_name = name.strip(), kind_name.strip()
        if not name:
            raise self.fail(f"empty slot name in {{{inner}}}")
        if not name.isidentifier():
            raise self.fail(f"invalid slot name {name!r}: use letters, digits and _ (a Python identifier)")
        if ":" in inner and kind_name not in _KINDS:
            raise self.fail(f"unknown slot type {kind_name!r}; use number or text")
        if any(slot.name == name for slot in self.slots):
            raise self.fail(f"slot {name!r} is used twice")
        found = _Slot(name, _KINDS.get(kind_name, "word"))
        self.slots.append(found)
        return found


def _place_spaces(nodes: Sequence[_Node]) -> tuple[_Node, ...]:
    """Move a space that stands before a choice into the choice, where that keeps words apart.

    ``send [a] note`` must match "send note" with one space, so the space
    before ``[a]`` belongs to the optional word.  That holds when the choice
    is a word of its own (a space or the end follows it); a choice glued to
    what follows (``order [#]{id}``) keeps its space outside.
    """
    placed: list[_Node] = []
    index = 0
    while index < len(nodes):
        node = nodes[index]
        after = nodes[index + 2] if index + 2 < len(nodes) else None
        following = nodes[index + 1] if index + 1 < len(nodes) else None
        if node is _SPACE and isinstance(following, _Choice) and (after is None or after is _SPACE):
            placed.append(
                _Choice(tuple(_place_spaces((_SPACE, *alt)) for alt in following.alternatives), following.optional)
            )
            index += 2
            continue
        if isinstance(node, _Choice):
            node = _Choice(tuple(_place_spaces(alt) for alt in node.alternatives), node.optional)
        placed.append(node)
        index += 1
    return tuple(placed)


def _check_text_last(nodes: Sequence[_Node], at_end: bool, fail: Callable[[str], PatternError]) -> None:
    """A text slot takes the rest of the clause, so nothing may follow it on any path."""
    for index, node in enumerate(nodes):
        last = at_end and index == len(nodes) - 1
        if isinstance(node, _Slot) and node.kind == "text" and not last:
            raise fail(
                f"text slot {{{node.name}:text}} is not at the end of its pattern: it takes the rest of the clause"
            )
        if isinstance(node, _Choice):
            for alternative in node.alternatives:
                _check_text_last(alternative, last, fail)


def _check_slots_apart(nodes: Sequence[_Node], fail: Callable[[str], PatternError]) -> None:
    """Two slots glued together (``{a}{b}``) have no place to split, and would scan a word quadratically."""
    for left, right in pairwise(nodes):
        if isinstance(left, _Slot) and isinstance(right, _Slot):
            raise fail(f"slots {{{left.name}}} and {{{right.name}}} need a space or a word between them")
    for node in nodes:
        if isinstance(node, _Choice):
            for alternative in node.alternatives:
                _check_slots_apart(alternative, fail)


_SLOT_REGEX: dict[SlotKind, str] = {
    # A run of non-space characters that does not end in punctuation; the
    # punctuation after it is matched but not kept ("order 4411." gives 4411).
    "word": r"(\S*[^\s.,;!?])[.,;!?]*",
    # -40, $40, -$40, 40.50; a fractional part decides int or float.
    "number": r"((?:-[$€£]?|[$€£]-?)?\d++(?:\.\d++)?)[.,;!?]*",
    # The rest of the clause, from its first non-space character.
    "text": r"(\S.*)",
}


def _regex(nodes: Sequence[_Node], order: list[_Slot]) -> str:
    """The nodes as a regular expression; slots become numbered groups, recorded in ``order``."""
    parts: list[str] = []
    for node in nodes:
        if node is _SPACE:
            parts.append(r"\s+")
        elif isinstance(node, _Word):
            parts.append(re.escape(node.text))
        elif isinstance(node, _Slot):
            order.append(node)
            parts.append(_SLOT_REGEX[node.kind])
        elif isinstance(node, _Choice):
            body = "|".join(_regex(alternative, order) for alternative in node.alternatives)
            parts.append(f"(?:{body}){'?' if node.optional else ''}")
    return "".join(parts)


def _word_bounds(nodes: Sequence[_Node]) -> tuple[int, float]:
    """How many whitespace-separated words a clause matching ``nodes`` can have (spaces are the gaps)."""
    low, high = 0, 0.0
    for node in nodes:
        if node is _SPACE:
            low, high = low + 1, high + 1
        elif isinstance(node, _Slot) and node.kind == "text":
            high = float("inf")
        elif isinstance(node, _Choice):
            bounds = [_word_bounds(alternative) for alternative in node.alternatives]
            low += 0 if node.optional else min(b[0] for b in bounds)
            high += max(b[1] for b in bounds)
    return low, high


def _always_takes_rest(nodes: Sequence[_Node]) -> bool:
    """True when every way through ``nodes`` ends in a text slot that cannot be left out.

    Such a pattern, once it matches a clause, matches any longer clause with
    the same start (the text just grows), which lets grouping bisect for it.
    """
    if not nodes:
        return False
    last = nodes[-1]
    if isinstance(last, _Slot):
        return last.kind == "text"
    if isinstance(last, _Choice):
        return not last.optional and all(_always_takes_rest(alternative) for alternative in last.alternatives)
    return False


def _number(raw: str) -> int | float:
    """``-$40.50`` -> -40.5: the currency sign is dropped, the minus kept, ``40`` stays an int."""
    digits = raw.lstrip("-$€£")
    value: int | float = float(digits) if "." in digits else int(digits)
    return -value if "-" in raw else value


def _clean(clause: str) -> str:
    """The part of a clause that is matched: no surrounding space, no trailing ``.!?``."""
    text = clause.strip()
    return text[: _effective_end(text, 0, len(text))]


def _effective_end(text: str, start: int, end: int) -> int:
    """Where ``text[start:end]`` ends once trailing spaces and ``.!?`` are left off."""
    while end > start and (text[end - 1] in _STRIPPED_AT_END or text[end - 1].isspace()):
        end -= 1
    return end


@dataclass(frozen=True)
class Pattern:
    """A compiled ``says`` pattern.  Build one with :func:`compile_pattern`.

    The regular expression is matched against the clause with one space put in
    front, so that every word of the pattern, the first included, is "a space
    then the word"; that is what lets an optional first word fall away cleanly.
    """

    text: str
    slots: tuple[str, ...]
    _regex: re.Pattern[str] = field(repr=False, compare=False)
    _kinds: tuple[SlotKind, ...] = field(repr=False, compare=False)
    _min_words: int = field(repr=False, compare=False)
    _max_words: float = field(repr=False, compare=False)
    _takes_rest: bool = field(repr=False, compare=False)

    def match(self, clause: str) -> dict[str, Any] | None:
        """The slot values if the WHOLE clause matches (trailing ``.!?`` aside), else None.

        Optional slots that did not match are absent from the result, so a
        tool's own default applies rather than a made-up value.
        """
        found = self._regex.fullmatch(" " + _clean(clause))
        if found is None:
            return None
        values: dict[str, Any] = {}
        for index, (name, kind) in enumerate(zip(self.slots, self._kinds, strict=True), start=1):
            raw = found.group(index)
            if raw is not None:
                values[name] = _number(raw) if kind == "number" else raw
        return values


def compile_pattern(text: str) -> Pattern:
    """Compile a ``says`` pattern, or raise :class:`PatternError` saying what is wrong with it.

    Errors are raised here, when an agent loads, rather than when a person's
    turn first happens to need the pattern.
    """
    parser = _Parser(text)
    nodes = parser.parse()
    _check_text_last(nodes, True, parser.fail)
    _check_slots_apart(nodes, parser.fail)
    placed = _place_spaces((_SPACE, *nodes))
    order: list[_Slot] = []
    source = _POLITE_BEFORE + _regex(placed, order) + _POLITE_AFTER
    low, high = _word_bounds(placed)
    return Pattern(
        text=text,
        slots=tuple(slot.name for slot in order),
        _regex=re.compile(source, re.IGNORECASE | re.DOTALL),
        _kinds=tuple(slot.kind for slot in order),
        _min_words=low,
        _max_words=high + _POLITE_MAX_WORDS,
        _takes_rest=_always_takes_rest(placed),
    )


Sample = Callable[[str, SlotKind], str]
"""A slot's sample value in an example turn, from its name and kind."""

_IDENTIFIER = re.compile(r"(?:^|_)(?:id|number|no|code|ref)$|^(?:id|number|code|ref)(?:_|$)", re.IGNORECASE)


def sample(name: str, kind: SlotKind) -> str:
    """A value a person might type in a slot: 40 for a number, 4411 for an id, else the slot's name in words."""
    if kind == "number":
        return "40"
    if kind == "word" and _IDENTIFIER.search(name):
        return "4411"
    return name.replace("_", " ")


def example(pattern: str, sample: Sample) -> str:
    """A turn the pattern reads: each choice's first alternative, optional words kept, slots filled by ``sample``."""
    return " ".join(_example(_Parser(pattern).parse(), sample).split())


def _example(nodes: Sequence[_Node], sample: Sample) -> str:
    parts: list[str] = []
    for node in nodes:
        if node is _SPACE:
            parts.append(" ")
        elif isinstance(node, _Word):
            parts.append(node.text)
        elif isinstance(node, _Slot):
            parts.append(sample(node.name, node.kind))
        elif isinstance(node, _Choice):
            parts.append(_example(node.alternatives[0], sample))
    return "".join(parts)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Clause:
    """One clause of a read turn and the call it asks for."""

    text: str
    tool: str
    pattern: str
    values: dict[str, Any]


@dataclass(frozen=True)
class Reading:
    """What the selector made of a turn: every clause matched, or nothing at all.

    ``language`` is set only for a turn that was not read, to tell a person
    writing another language why (None when the detector is unsure).
    """

    clauses: tuple[Clause, ...]
    language: str | None = None

    @property
    def read(self) -> bool:
        """True when every clause of the turn matched a pattern."""
        return bool(self.clauses)


class _OverBudget(Exception):
    """Raised inside grouping when a turn costs more than ``_WORK_BUDGET``."""


class _Grouping:
    """The dynamic programme over one turn's segments (the pieces between separators).

    ``best[i]`` is the most clauses segments ``i..`` can be read as, and
    ``take[i]`` the last segment of the first of them.  Two facts keep it
    cheap: a pattern without a text slot matches clauses of a bounded number
    of words, and one ending in a text slot, once it matches from segment
    ``i`` to ``k``, matches to every later segment too, so its first end is
    found by bisection.
    """

    def __init__(self, turn: str, patterns: Sequence[Pattern]) -> None:
        self.turn = turn
        self.patterns = patterns
        self.segments = self._segments(turn)
        self.ends = [_effective_end(turn, 0, end) for _, end in self.segments]
        self.word_starts = [m.start() for m in _WORD_START.finditer(turn)]
        self.work = 0

    @staticmethod
    def _segments(turn: str) -> list[tuple[int, int]]:
        """The (start, end) of each non-empty piece between separators, without surrounding space."""
        cuts: list[list[int]] = []
        for found in _SEPARATOR.finditer(turn):
            if cuts and not turn[cuts[-1][1] : found.start()].strip():
                cuts[-1][1] = found.end()
            else:
                cuts.append([found.start(), found.end()])
        bounds = zip([0] + [end for _, end in cuts], [start for start, _ in cuts] + [len(turn)], strict=True)
        segments = []
        for start, end in bounds:
            piece = turn[start:end]
            if piece.strip():
                segments.append((start + len(piece) - len(piece.lstrip()), end - len(piece) + len(piece.rstrip())))
        return segments

    def _matches(self, pattern: Pattern, start: int, end: int, whole: bool = True) -> bool:
        self.work += 1
        if self.work > _WORK_BUDGET:
            raise _OverBudget
        text = " " + self.turn[start:end]
        return (pattern._regex.fullmatch(text) if whole else pattern._regex.match(text)) is not None

    def _words_end(self, start: int, words: float) -> int:
        """Where the first ``words`` words from ``start`` end, at most the turn's last clause end."""
        limit = self.ends[-1]
        if words == float("inf"):
            return limit
        following = bisect.bisect_right(self.word_starts, start) + int(words) - 1
        return min(self.word_starts[following], limit) if following < len(self.word_starts) else limit

    def _words(self, start: int, end: int) -> int:
        """Words in ``turn[start:end]``, which starts on a non-space character."""
        return bisect.bisect_left(self.word_starts, end) - bisect.bisect_right(self.word_starts, start) + 1

    def _clause_ends(self, first: int) -> tuple[set[int], int | None]:
        """The last segments a clause from segment ``first`` can end at, as (set, every one from)."""
        start, last = self.segments[first][0], len(self.segments) - 1
        ends: set[int] = set()
        rest_from: int | None = None
        for pattern in self.patterns:
            if pattern._takes_rest:
                found = self._first_end(pattern, first, start)
                if found is not None and (rest_from is None or found < rest_from):
                    rest_from = found
                continue
            if not self._matches(pattern, start, self._words_end(start, pattern._max_words), whole=False):
                continue  # every clause from here would begin with a match, so none can match
            for k in range(first, last + 1):
                end = self.ends[k]
                if end <= start:
                    continue
                words = self._words(start, end)
                if words > pattern._max_words:
                    break
                if words >= pattern._min_words and self._matches(pattern, start, end):
                    ends.add(k)
        return ends, rest_from

    def _first_end(self, pattern: Pattern, first: int, start: int) -> int | None:
        low, high = first, len(self.segments) - 1
        if not self._matches(pattern, start, self.ends[high]):
            return None
        while low < high:
            middle = (low + high) // 2
            if self.ends[middle] > start and self._matches(pattern, start, self.ends[middle]):
                high = middle
            else:
                low = middle + 1
        return low

    def clauses(self) -> list[str] | None:
        """The clauses of the grouping with the most clauses (shortest first on a tie), or None."""
        count = len(self.segments)
        if count == 0:
            return None
        best: list[int | None] = [None] * count + [0]
        take: list[int] = [0] * count
        # suffix[m] = (most, at) over best[m:], the earliest index on a tie
        suffix: list[tuple[int | None, int]] = [(None, count)] * count + [(0, count)]
        for first in range(count - 1, -1, -1):
            ends, rest_from = self._clause_ends(first)
            options = [(best[k + 1], k) for k in ends]
            if rest_from is not None:
                most, at = suffix[rest_from + 1]
                options.append((most, at - 1))
            scored = [(n, k) for n, k in options if n is not None]
            if scored:
                top = max(n for n, _ in scored)
                best[first] = top + 1
                take[first] = min(k for n, k in scored if n == top)
            after = suffix[first + 1]
            here = best[first]
            suffix[first] = (here, first) if here is not None and (after[0] is None or here >= after[0]) else after
        if best[0] is None:
            return None
        texts, first = [], 0
        while first < count:
            k = take[first]
            texts.append(self.turn[self.segments[first][0] : self.segments[k][1]])
            first = k + 1
        return texts


class Selector:
    """Reads turns against every tool's patterns.

    Patterns are tried in the order given, and the first that matches a
    clause names its tool, so an agent decides precedence by declaring order.
    """

    def __init__(self, patterns: Iterable[tuple[str, str | Pattern]]) -> None:
        self._entries: tuple[tuple[str, Pattern], ...] = tuple(
            (tool, pattern if isinstance(pattern, Pattern) else compile_pattern(pattern)) for tool, pattern in patterns
        )

    @property
    def patterns(self) -> tuple[tuple[str, Pattern], ...]:
        """(tool, pattern) pairs in the order they are tried."""
        return self._entries

    def examples(self, limit: int, fill: Sample = sample) -> list[str]:
        """Up to ``limit`` turns, one per tool in the order tried, each from the first of the tool's patterns whose
        example (slots filled by ``fill``) reads as a call of that tool alone."""
        found: dict[str, str] = {}
        for tool, pattern in self._entries:
            turn = example(pattern.text, fill)
            if tool not in found and [self._clause(text).tool for text in self._group(turn) or ()] == [tool]:
                found[tool] = turn
        return list(found.values())[:limit]

    def read(self, turn: str) -> Reading:
        """Read a turn into clauses, or say it was not read (with its language when it is clear)."""
        texts = self._group(turn)
        if texts is None:
            return Reading(clauses=(), language=language.detect(turn))
        return Reading(clauses=tuple(self._clause(text) for text in texts))

    def _group(self, turn: str) -> list[str] | None:
        if not turn.strip() or len(turn) > MAX_TURN_CHARS or not self._entries:
            return None
        try:
            return _Grouping(turn, [pattern for _, pattern in self._entries]).clauses()
        except _OverBudget:
            return None

    def _clause(self, text: str) -> Clause:
        for tool, pattern in self._entries:
            values = pattern.match(text)
            if values is not None:
                return Clause(text=text, tool=tool, pattern=pattern.text, values=values)
        raise AssertionError(f"grouping kept a clause no pattern matches: {text!r}")
