"""The selector as a tool author and a person see it: patterns, turns, clauses."""

from __future__ import annotations

import itertools
import time

import pytest

from stalwart_agents.reading import language
from stalwart_agents.reading.selector import (
    MAX_TURN_CHARS,
    Clause,
    Pattern,
    PatternError,
    Reading,
    Selector,
    compile_pattern,
)

SHOP = [
    ("look_up_order", "look up order {order_id}"),
    ("look_up_order", "(show|find) order {order_id}"),
    ("charge_card", "charge {amount:number} (to|for) order {order_id}"),
    ("refund_charge", "refund {charge_id}"),
    ("send_note", "send [a] note {text:text}"),
]


@pytest.fixture
def shop() -> Selector:
    return Selector(SHOP)


@pytest.fixture
def no_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a turn that matches must never load the (slow) language model."""

    def refuse(text: str) -> str | None:
        raise AssertionError(f"the detector was called for {text!r}")

    monkeypatch.setattr(language, "detect", refuse)


def calls(reading: Reading) -> list[tuple[str, dict]]:
    return [(clause.tool, clause.values) for clause in reading.clauses]


def values(pattern: str, clause: str) -> dict | None:
    return compile_pattern(pattern).match(clause)


# --------------------------------------------------------------------------- patterns


def test_a_pattern_lists_its_slots_in_order_of_appearance():
    pattern = compile_pattern("charge {amount:number} (to|for) order {order_id}")
    assert isinstance(pattern, Pattern)
    assert pattern.text == "charge {amount:number} (to|for) order {order_id}"
    assert pattern.slots == ("amount", "order_id")
    assert compile_pattern("[{a}] b (c {d}|e) [f {g:text}]").slots == ("a", "d", "g")


def test_a_word_slot_takes_one_word_and_keeps_its_case():
    assert values("look up order {order_id}", "look up order Ab-12/x") == {"order_id": "Ab-12/x"}
    assert values("look up order {order_id}", "look up order 44 11") is None


@pytest.mark.parametrize("clause", ["refund ch_1.", "refund ch_1!", "refund ch_1?!", "refund ch_1,"])
def test_a_word_slot_leaves_trailing_punctuation_out(clause):
    assert values("refund {charge_id}", clause) == {"charge_id": "ch_1"}


def test_a_word_slot_keeps_punctuation_inside_the_word():
    assert values("refund {charge_id}", "refund ch.1.") == {"charge_id": "ch.1"}
    assert values("refund {charge_id}", "refund !!") is None


def test_literal_words_match_in_any_case_and_any_run_of_whitespace():
    assert values("look up order {order_id}", "LOOK Up  oRdEr\t4411") == {"order_id": "4411"}
    assert values("look up order {order_id}", "lookup order 4411") is None


@pytest.mark.parametrize(
    ("clause", "amount"),
    [
        ("charge 40 to order 4411", 40),
        ("charge 40.50 to order 4411", 40.5),
        ("charge $40 to order 4411", 40),
        ("charge €12.5 to order 4411", 12.5),
        ("charge £7 to order 4411", 7),
        ("charge -3 to order 4411", -3),
        ("charge -$3.25 to order 4411", -3.25),
    ],
)
def test_a_number_slot_gives_an_int_without_a_fraction_and_a_float_with_one(clause, amount):
    found = values("charge {amount:number} (to|for) order {order_id}", clause)
    assert found == {"amount": amount, "order_id": "4411"}
    assert type(found["amount"]) is type(amount)


@pytest.mark.parametrize(
    "clause", ["charge forty to order 1", "charge 4e5 to order 1", "charge 40x to order 1", "charge $ to order 1"]
)
def test_a_number_slot_takes_only_numbers(clause):
    assert values("charge {amount:number} (to|for) order {order_id}", clause) is None


def test_a_text_slot_takes_the_rest_of_the_clause_as_written():
    found = values("send [a] note {text:text}", "send a note Thanks  for   Waiting")
    assert found == {"text": "Thanks  for   Waiting"}
    assert values("send [a] note {text:text}", "send a note") is None


def test_alternatives_match_either_and_may_be_several_words():
    pattern = compile_pattern("say (hi|good morning {name}) now")
    assert pattern.match("say hi now") == {}
    assert pattern.match("say good morning Ana now") == {"name": "Ana"}
    assert pattern.match("say hello now") is None
    assert pattern.match("say now") is None


def test_an_optional_word_may_be_there_or_not():
    pattern = compile_pattern("send [a] note {text:text}")
    assert pattern.match("send a note hi") == {"text": "hi"}
    assert pattern.match("send note hi") == {"text": "hi"}
    assert pattern.match("send anote hi") is None


def test_optional_words_at_the_start_and_end_and_nested():
    assert values("[please] look up order {id} [please]", "look up order 1") == {"id": "1"}
    assert values("[please] look up order {id} [please]", "Please look up order 1 please") == {"id": "1"}
    nested = compile_pattern("[[the] big] box")
    assert [nested.match(c) is not None for c in ("box", "big box", "the big box", "the box")] == [
        True,
        True,
        True,
        False,
    ]


def test_an_optional_glued_to_a_slot_keeps_the_space_before_it():
    pattern = compile_pattern("look up order [#]{order_id}")
    assert pattern.match("look up order #4411") == {"order_id": "4411"}
    assert pattern.match("look up order 4411") == {"order_id": "4411"}


def test_an_optional_slot_that_did_not_match_is_absent():
    pattern = compile_pattern("send note [{text:text}]")
    assert pattern.match("send note") == {}
    assert pattern.match("send note hello") == {"text": "hello"}


def test_spaces_inside_brackets_do_not_matter():
    assert values("charge {amount:number} ( to | for ) order {order_id}", "charge 1 for order 2") == {
        "amount": 1,
        "order_id": "2",
    }


def test_a_pattern_must_match_the_whole_clause():
    assert values("look up order {order_id}", "look up order 4411 now") is None
    assert values("look up order {order_id}", "then look up order 4411") is None
    assert values("look up order {order_id}", "look up order 4411!") == {"order_id": "4411"}


@pytest.mark.parametrize(
    "turn",
    [
        "look up order 4411 please",
        "please look up order 4411",
        "Can you look up order 4411?",
        "could you please look up order 4411, thanks",
        "look up order 4411. Thank you!",
        "kindly look up order 4411, please",
    ],
)
def test_polite_words_around_a_clause_are_read_past_and_never_as_a_value(turn):
    reading = Selector(SHOP).read(turn)
    assert [(c.tool, c.values) for c in reading.clauses] == [("look_up_order", {"order_id": "4411"})]


def test_polite_words_alone_or_in_the_middle_are_not_a_request():
    selector = Selector(SHOP)
    assert not selector.read("please").read and not selector.read("thanks, please").read
    assert not selector.read("look up please order 4411").read
    assert [
        (c.tool, c.values)
        for c in selector.read("could you charge 40 to order 4411 and look up order 4411 please").clauses
    ] == [
        ("charge_card", {"amount": 40, "order_id": "4411"}),
        ("look_up_order", {"order_id": "4411"}),
    ]


@pytest.mark.parametrize(
    "text", [text for _, text in SHOP] + ["[please] (say {a}|shout [it] {b:number}) [now {c:text}]"]
)
def test_a_compiled_pattern_repeats_nothing_that_itself_repeats(text):
    """No group is repeated with * or +, so a long clause cannot make matching backtrack exponentially."""
    source = compile_pattern(text)._regex.pattern
    assert ")*" not in source and ")+" not in source and "){" not in source


# --------------------------------------------------------------------------- bad patterns


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("look up (order {id}", "unbalanced '(' at character 9: it is never closed with ')'"),
        ("look up order) {id}", "unbalanced ')' at character 14: nothing opened it"),
        ("send [a note {text:text}", "unbalanced '[' at character 6"),
        ("send a] note", "unbalanced ']' at character 7"),
        ("refund {charge_id", "unbalanced '{' at character 8"),
        ("refund charge_id}", "unbalanced '}' at character 17"),
        ("(to]", "unbalanced '(' at character 1: ']' at character 4 closes it; use ')'"),
        ("charge (to|) order", "empty alternative in (to|)"),
        ("charge () order", "empty alternative in ()"),
        ("send [] note", "empty optional []"),
        ("ship on {day:date}", "unknown slot type 'date'; use number or text"),
        ("refund {}", "empty slot name"),
        ("refund {:number}", "empty slot name"),
        ("refund {charge-id}", "invalid slot name 'charge-id'"),
        ("refund {1st}", "invalid slot name '1st'"),
        ("move {id} to {id}", "slot 'id' is used twice"),
        ("send note {text:text} now", "text slot {text:text} is not at the end of its pattern"),
        ("send [note {text:text}] now", "text slot {text:text} is not at the end of its pattern"),
        ("to|for", "'|' separates alternatives only inside ( ) or [ ]"),
        ("{a}{b}", "slots {a} and {b} need a space or a word between them"),
        ("   ", "it is empty"),
    ],
)
def test_a_bad_pattern_says_what_is_wrong_and_quotes_itself(text, problem):
    with pytest.raises(PatternError) as caught:
        compile_pattern(text)
    assert str(caught.value).startswith(f"pattern {text!r}: ")
    assert problem in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_bad_pattern_fails_when_the_selector_is_built():
    with pytest.raises(PatternError, match="unknown slot type 'date'"):
        Selector([("ship", "ship on {day:date}")])


def test_a_text_slot_at_the_end_of_every_alternative_is_allowed():
    pattern = compile_pattern("(say {words:text}|shout {noise:text})")
    assert pattern.match("shout Hey, you") == {"noise": "Hey, you"}


# --------------------------------------------------------------------------- reading turns


def test_a_turn_of_two_clauses_is_read_into_two_calls(shop, no_detector):
    reading = shop.read("look up order 4411 and charge 40 to order 4411")
    assert reading.read and reading.language is None
    assert reading.clauses == (
        Clause("look up order 4411", "look_up_order", "look up order {order_id}", {"order_id": "4411"}),
        Clause(
            "charge 40 to order 4411",
            "charge_card",
            "charge {amount:number} (to|for) order {order_id}",
            {"amount": 40, "order_id": "4411"},
        ),
    )
    assert type(reading.clauses[1].values["amount"]) is int


@pytest.mark.parametrize(
    "turn",
    [
        "look up order 1 and refund ch_2",
        "look up order 1 then refund ch_2",
        "look up order 1 and then refund ch_2",
        "look up order 1, refund ch_2",
        "look up order 1; refund ch_2",
        "look up order 1, and then refund ch_2",
        "look up order 1 ;  AND  Then refund ch_2",
        "look up order 1,refund ch_2",
        "Then look up order 1, and refund ch_2.",
        "look up order 1. Then refund ch_2!",
    ],
)
def test_clauses_are_split_at_commas_semicolons_and_then_in_any_combination(shop, no_detector, turn):
    assert calls(shop.read(turn)) == [("look_up_order", {"order_id": "1"}), ("refund_charge", {"charge_id": "ch_2"})]


def test_separator_words_inside_other_words_do_not_split(shop, no_detector):
    assert calls(shop.read("refund brand and refund thence")) == [
        ("refund_charge", {"charge_id": "brand"}),
        ("refund_charge", {"charge_id": "thence"}),
    ]


def test_the_clause_text_is_the_clause_as_written(shop, no_detector):
    reading = shop.read("Find ORDER Ab1, and then Send A Note Hello There!")
    assert [clause.text for clause in reading.clauses] == ["Find ORDER Ab1", "Send A Note Hello There!"]
    assert calls(reading) == [("look_up_order", {"order_id": "Ab1"}), ("send_note", {"text": "Hello There"})]


def test_a_text_slot_keeps_the_and_and_the_comma_it_contains(shop, no_detector):
    reading = shop.read("send a note saying thanks, and see you soon")
    assert calls(reading) == [("send_note", {"text": "saying thanks, and see you soon"})]
    assert reading.clauses[0].text == "send a note saying thanks, and see you soon"


def test_the_grouping_with_the_most_clauses_wins(shop, no_detector):
    reading = shop.read("send a note hi and charge 40 to order 1")
    assert calls(reading) == [("send_note", {"text": "hi"}), ("charge_card", {"amount": 40, "order_id": "1"})]


def test_a_text_slot_then_takes_what_no_pattern_reads(shop, no_detector):
    reading = shop.read("look up order 7, send a note we are sorry, and thanks, then refund ch_9")
    assert calls(reading) == [
        ("look_up_order", {"order_id": "7"}),
        ("send_note", {"text": "we are sorry, and thanks"}),
        ("refund_charge", {"charge_id": "ch_9"}),
    ]


def test_the_first_declared_pattern_wins(no_detector):
    first = Selector([("refund_charge", "refund {charge_id}"), ("refund_all", "refund {what}")])
    assert first.read("refund everything").clauses[0].tool == "refund_charge"
    second = Selector([("refund_all", "refund {what}"), ("refund_charge", "refund {charge_id}")])
    assert calls(second.read("refund everything")) == [("refund_all", {"what": "everything"})]


def test_a_selector_takes_compiled_patterns(no_detector):
    selector = Selector([("refund_charge", compile_pattern("refund {charge_id}"))])
    assert calls(selector.read("refund ch_1")) == [("refund_charge", {"charge_id": "ch_1"})]


def test_one_clause_that_matches_nothing_leaves_the_whole_turn_unread(shop):
    reading = shop.read("look up order 4411 and cancel everything please")
    assert not reading.read and reading.clauses == ()
    assert reading.language == "en"


def test_extra_words_leave_a_turn_unread(shop):
    assert not shop.read("look up order 4411 right now").read


def test_an_english_turn_that_matches_nothing_says_english(shop):
    assert shop.read("please cancel my subscription") == Reading(clauses=(), language="en")


@pytest.mark.parametrize("turn", ["procurar o pedido 4411 e cobrar 40 no pedido 4411", "quero cancelar meu pedido"])
def test_a_portuguese_turn_is_not_read_and_says_portuguese(shop, turn):
    reading = shop.read(turn)
    assert not reading.read and reading.language == "pt"


@pytest.mark.parametrize("turn", ["", "   \n\t ", "4411", "?!"])
def test_a_turn_with_nothing_to_read_is_not_read_and_has_no_language(shop, turn):
    reading = shop.read(turn)
    assert not reading.read and reading.language is None


def test_a_turn_of_separators_only_is_not_read(shop):
    assert not shop.read(", and then ;").read


def test_a_turn_over_the_limit_is_not_read(shop, monkeypatch):
    monkeypatch.setattr(language, "detect", lambda text: "en")
    turn = "look up order 1" + " and look up order 1" * 250
    assert len(turn) > MAX_TURN_CHARS
    assert not shop.read(turn).read
    assert shop.read(turn[: MAX_TURN_CHARS - 20].rsplit(" and", 1)[0]).read


def test_a_selector_without_patterns_reads_nothing(monkeypatch):
    monkeypatch.setattr(language, "detect", lambda text: None)
    assert not Selector([]).read("look up order 1").read


ADVERSARIAL = {
    "commas": "a," * 2000,
    "ands": "and " * 1000,
    "and-thens": "and then " * 444,
    "spaces": " " * 4000,
    "one-long-note": "send a note " + "x and " * 660,
    "long-order-id": "look up order " + "a and " * 660,
    "many-look-ups": "look up order 1 and " * 200,
    "many-notes": "send note x," * 363,
    "comma-glued-id": "refund " + "a," * 1996,
    "many-refunds": "refund a," * 444,
    "long-number": "charge " + "1" * 3990,
    "dotted-number": "charge " + "1." * 1995,
    "bangs": "send note " + "!" * 3990,
    "no-order": "look up " * 500,
}


@pytest.mark.parametrize("turn", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_an_adversarial_turn_of_4000_characters_reads_in_well_under_a_second(monkeypatch, turn):
    monkeypatch.setattr(language, "detect", lambda text: None)
    selector = Selector([*SHOP, ("anything", "{x}"), ("two_then_z", "{a} {b} z"), ("everything", "{rest:text}")])
    turn = turn[:MAX_TURN_CHARS]
    started = time.thread_time()  # this thread's own time: a busy machine's other processes do not count
    selector.read(turn)
    Selector(SHOP).read(turn)
    assert time.thread_time() - started < 0.5


def test_a_turn_built_to_be_slow_is_given_up_on_rather_than_read_for_seconds(monkeypatch):
    monkeypatch.setattr(language, "detect", lambda text: None)
    started = time.thread_time()
    reading = Selector([("anything", "{x}")]).read("a," * 2000)
    assert time.thread_time() - started < 0.5
    assert not reading.read


def test_the_grouping_agrees_with_trying_every_grouping(monkeypatch):
    """The dynamic programme against brute force: most clauses, then the shortest first clause."""
    monkeypatch.setattr(language, "detect", lambda text: None)
    selector = Selector([*SHOP, ("ping", "ping [{text:text}]"), ("pair", "{a} z")])
    words = ["refund", "1", "send", "note", "ping", "z", "and", "then", ",", "a,b", "!", "hi"]
    for length in range(1, 5):
        for chosen in itertools.product(words, repeat=length):
            turn = " ".join(chosen)
            got = [clause.text for clause in selector.read(turn).clauses]
            assert got == _brute_force(selector, turn), turn


def _brute_force(selector: Selector, turn: str) -> list[str]:
    import re

    separator = re.compile(
        r"(?:[,;]|(?<![^\s,;])(?:and|then)(?![^\s,;]))(?:\s*(?:[,;]|(?<![^\s,;])(?:and|then)(?![^\s,;])))*", re.I
    )
    cuts = [0] + [i for m in separator.finditer(turn) for i in (m.start(), m.end())] + [len(turn)]
    pieces = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=True) if turn[a:b].strip()]
    best: tuple | None = None
    if not pieces:
        return []
    for mask in range(1 << max(len(pieces) - 1, 0)):
        groups, first = [], 0
        for last in [i for i in range(len(pieces) - 1) if mask >> i & 1] + [len(pieces) - 1]:
            groups.append(turn[pieces[first][0] : pieces[last][1]].strip())
            first = last + 1
        if all(any(p.match(g) is not None for _, p in selector.patterns) for g in groups):
            key = (len(groups), [-len(g) for g in groups])
            if best is None or key > best[0]:
                best = (key, groups)
    return best[1] if best else []


# --------------------------------------------------------------------------- example turns


def test_each_tool_gets_one_example_turn_that_reads_as_a_call_of_it(shop):
    examples = shop.examples(limit=10)
    assert examples == ["look up order 4411", "charge 40 to order 4411", "refund 4411", "send a note text"]
    assert [calls(shop.read(turn))[0][0] for turn in examples] == [
        "look_up_order",
        "charge_card",
        "refund_charge",
        "send_note",
    ]
    assert shop.examples(limit=2) == examples[:2]


def test_an_example_that_would_read_as_another_tool_is_not_offered():
    selector = Selector([("everything", "{anything:text}"), ("look_up_order", "look up order {order_id}")])
    assert selector.examples(limit=5) == ["anything"]
