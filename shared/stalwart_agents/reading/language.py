"""Which language a turn is written in, so a turn the selector could not read can say why.

The selector reads English only.  When a person writes Portuguese, "I could not
read that" is less useful than "I read English turns only, and this looks like
Portuguese", so unread turns are passed through :func:`detect`.

The model (py3langid) takes most of a second to load, so it is loaded on first
use, once, under a lock: importing this module, or reading English turns, never
pays for it.  Where py3langid is not installed (with numpy it is more than half
the Lambda layer, bench/README.md, so a layer may leave it out), no language is
named and a turn that could not be read says only that.  Candidates are limited to widely used languages, which makes
short turns, the usual case, far more accurate than choosing among ~100.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

__all__ = ["LANGUAGES", "MIN_PROBABILITY", "detect", "language_name"]

LANGUAGES: dict[str, str] = {
    "en": "English",
    "pt": "Portuguese",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "nl": "Dutch",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "pl": "Polish",
    "cs": "Czech",
    "ro": "Romanian",
    "tr": "Turkish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "el": "Greek",
    "ar": "Arabic",
    "he": "Hebrew",
    "hi": "Hindi",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "id": "Indonesian",
    "vi": "Vietnamese",
}
"""The candidate languages (ISO 639-1 code -> English name)."""

MIN_PROBABILITY = 0.5
"""Below this the guess is not reported: naming the wrong language is worse than naming none."""

_MAX_CHARS = 2000
"""Only the start of a long text is classified; the answer settles long before, and it bounds the work."""

_lock = threading.Lock()
_identifier: LanguageIdentifier | None = None
_absent = False


def _model() -> LanguageIdentifier | None:
    """The identifier, loaded on the first call (concurrent first calls load it once); None without py3langid."""
    global _identifier, _absent
    loaded = _identifier
    if loaded is None and not _absent:
        with _lock:
            if _identifier is None and not _absent:
                try:
                    from py3langid.langid import MODEL_FILE, LanguageIdentifier
                except ImportError:
                    _absent = True
                    return None
                identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
                identifier.set_languages(list(LANGUAGES))
                _identifier = identifier
            loaded = _identifier
    return loaded


def detect(text: str) -> str | None:
    """The ISO 639-1 code of ``text``'s language, or None when unsure or there are no letters to go on."""
    model = _model() if any(char.isalpha() for char in text) else None
    if model is None:
        return None
    code, probability = model.classify(text[:_MAX_CHARS])
    return str(code) if probability >= MIN_PROBABILITY else None


def language_name(code: str) -> str:
    """The English name of a language code ("pt" -> "Portuguese"); an unknown code is returned as it is."""
    return LANGUAGES.get(code, code)
