"""Languages: which a game may declare, which cardgen ships interface words for, and the script
each is set in.

A game declares its languages in game.yaml (`languages: [en]`, `[ja, en]`, `[en, fr, de]`);
the schema reader requires a text in exactly those, the build renders each, `--lang` offers
each. A folder without `languages:` has `LANGUAGES` (the four bundled games' pair). The words
module (cardgen/words.py) holds every interface word in each of `SUPPORTED`; a game may add
the words of another language in its own words.yaml.
"""

from __future__ import annotations

import re

LANGUAGES: tuple[str, ...] = ("ja", "en")  # a game folder without `languages:`
DEFAULT = "ja"  # the default --lang of commands that name no game (and of LANGUAGES' games)
SUPPORTED: tuple[str, ...] = ("ja", "en", "fr", "de")  # cardgen ships interface words for these
MAX_LANGUAGES = 8

# An ISO 639-1 code, optionally with a region (pt-BR): it becomes part of file names and the
# HTML lang attribute, so nothing else is allowed.
_CODE = re.compile(r"^[a-z]{2}(-[A-Z]{2})?$")

# Languages set without spaces between words, broken between any two characters (with kinsoku);
# every other language is set in Latin script, broken at spaces and hyphenated.
CJK = frozenset({"ja", "zh", "ko"})


# What a language switch shows: each language in itself.
NATIVE_NAMES = {"ja": "日本語", "en": "English", "fr": "Français", "de": "Deutsch"}


def native_name(lang: str) -> str:
    return NATIVE_NAMES.get(lang, lang)


def code_problem(code: str) -> str | None:
    """Why `code` is not a usable language code, or None."""
    if _CODE.match(code):
        return None
    return f"'{code}' is not a language code; write a two-letter ISO 639-1 code such as en, ja, fr or de"


def is_cjk(lang: str) -> bool:
    return lang.split("-")[0] in CJK


# A PDF catalog's /Lang tells screen readers, text extraction and search which language the text
# is in. Japanese carries its region (ja-JP), as the rulebooks always have; any other language its
# code, which may name a region already (pt-BR).
_PDF_TAGS = {"ja": "ja-JP"}


def pdf_lang(lang: str) -> str:
    """The language tag every cardgen PDF in `lang` carries as its catalog's /Lang."""
    return _PDF_TAGS.get(lang, lang)


def suffix(lang: str, languages: tuple[str, ...]) -> str:
    """What a language-dependent output file name carries: nothing for the game's first (default)
    language, so today's names stay; `-<lang>` for the others (`llll-cards-a4-en.pdf`)."""
    return "" if not languages or lang == languages[0] else f"-{lang}"
