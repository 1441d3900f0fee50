"""The languages every text of a game is written in, and what each language needs.

One place for the list: the schema reader requires a text in each, the build renders each,
the CLI offers each, and the words module checks that every interface word has each.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("ja", "en")
DEFAULT = "ja"
NAMES = {"ja": "日本語", "en": "English"}


def is_language(lang: str) -> bool:
    return lang in LANGUAGES


def check(lang: str) -> str:
    """`lang` if it is one of LANGUAGES; ValueError naming the choices otherwise."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    return lang


def is_japanese(lang: str) -> bool:
    """Whether `lang` is set as Japanese text (no word spaces, kinsoku, full-width brackets)."""
    return lang == "ja"
