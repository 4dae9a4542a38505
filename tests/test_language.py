"""Language identification for turns the selector could not read."""

from __future__ import annotations

import threading
import time

import pytest
from py3langid.langid import LanguageIdentifier

from stalwart_agents.reading import language

from .conftest import present


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("quero cancelar meu pedido", "pt"),
        ("procurar o pedido 4411 e cobrar 40 no pedido 4411", "pt"),
        ("please cancel my subscription", "en"),
        ("PLEASE CANCEL MY ORDER NOW", "en"),
        ("je voudrais annuler ma commande", "fr"),
        ("ich möchte meine Bestellung stornieren", "de"),
        ("quiero cancelar mi pedido", "es"),
        ("注文をキャンセルしたい", "ja"),
    ],
)
def test_short_turns_are_identified(text, code):
    assert language.detect(text) == code


@pytest.mark.parametrize("text", ["", "   ", "4411", "$40.50 !!", "-- 12/03 --"])
def test_text_without_letters_has_no_language(text):
    assert language.detect(text) is None


def test_an_unsure_guess_is_not_reported():
    # "hello" alone is a coin toss among the candidates: naming a wrong language is worse than none.
    assert language.detect("hello") is None


def test_a_long_text_is_identified_from_its_start():
    assert language.detect("quero cancelar meu pedido, por favor. " * 2000) == "pt"


@pytest.mark.parametrize(
    ("code", "name"), [("pt", "Portuguese"), ("en", "English"), ("zh", "Chinese"), ("no", "Norwegian")]
)
def test_a_code_has_an_english_name(code, name):
    assert language.language_name(code) == name


def test_an_unknown_code_is_its_own_name():
    assert language.language_name("xx") == "xx"


def test_every_candidate_has_a_name_and_a_two_letter_code():
    assert len(language.LANGUAGES) >= 20
    assert all(len(code) == 2 and name[0].isupper() for code, name in language.LANGUAGES.items())


def test_the_model_is_loaded_once_by_concurrent_first_calls(monkeypatch):
    loads: list[int] = []

    class Fake:
        def set_languages(self, langs: list[str]) -> None:
            self.langs = langs

        def classify(self, text: str) -> tuple[str, float]:
            return "pt", 0.9

    def from_model_file(cls, path, norm_probs=False):
        loads.append(1)
        time.sleep(0.05)  # long enough for every thread to arrive while the first loads
        return Fake()

    monkeypatch.setattr(language, "_identifier", None)
    monkeypatch.setattr(LanguageIdentifier, "from_model_file", classmethod(from_model_file))
    found: list[str | None] = []
    threads = [threading.Thread(target=lambda: found.append(language.detect("olá"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]
    assert found == ["pt"] * 8
    assert present(language._identifier).langs == list(language.LANGUAGES)
