"""Rulebook settings: `templates/rulebook/style.yaml` (page, fonts, type sizes, colours),
merged with a game folder's own `templates/style.yaml`, read through the schema reader.
The words a rulebook prints are in `templates/common/words.yaml` (cardgen/words.py)."""

from __future__ import annotations

from pathlib import Path

from ...errors import DataError, Problem
from ...fonts import GOTHIC, MINCHO
from ...io import paths
from ...io.reader import SchemaReader, display_path
from ...io.schema import Dict, List, Map, Num, Str, validate
from ...langs import LANGUAGES, is_cjk
from ...model import Game, Location

LANGS = LANGUAGES  # style.yaml's type sizes are given for these: a Japanese and a Latin set


def type_sizes(style: dict, lang: str) -> dict:
    """The type sizes of `lang`: its own if style.yaml has them, else those of its script's
    language (ja for Chinese and Korean, en for every Latin language)."""
    types = style["type"]
    return types.get(lang) or types["ja" if is_cjk(lang) else "en"]


def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def templates_dir() -> Path:
    return paths.bundled_templates() / "rulebook"


# --- the shape of style.yaml -------------------------------------------------------------------

_TYPE_ENTRY = Map({"size": Num(3, 72), "leading": Num(3, 120)})
_TYPE_KINDS = ("body", "small", "table", "h1", "h2", "h3", "title")
_COLOURS = ("ink", "muted", "accent", "rule", "header_fill", "zebra_fill", "note_fill", "decision_fill", "decision_bar",
            "card_face", "zone_fill")


def _style_spec(partial: bool) -> Map:
    def m(fields: dict) -> Map:
        return Map(fields, optional=set(fields) if partial else set())

    return m({
        "page": m({"size": Str(("A4", "Letter", "a4", "letter", "LETTER")), "margin_top": Num(0, 100),
                   "margin_bottom": Num(0, 100), "margin_inner": Num(0, 100), "margin_outer": Num(0, 100),
                   "header_offset": Num(0, 100), "footer_offset": Num(0, 100)}),
        "fonts": m({"body": Str((GOTHIC, MINCHO)), "strong": Str((GOTHIC, MINCHO))}),
        "type": m({lang: Map({k: _TYPE_ENTRY for k in _TYPE_KINDS}, optional=set(_TYPE_KINDS) if partial else set())
                   for lang in LANGS}),
        "colours": Dict(Str(), List(Num(0, 1), min_items=3, max_items=3), max_items=100),
    })


def _read_style(path: Path, partial: bool) -> dict:
    r = SchemaReader()
    node = r.read(path, empty_ok=partial)
    if node is None:
        r.raise_if_any()
        return {}
    value = validate(r, node, _style_spec(partial), "style")
    r.raise_if_any()
    return value or {}


def load_style(game: Game | str) -> dict:
    """The page template settings, with the game's own overrides merged in.

    The bundled `templates/rulebook/style.yaml`, then a game folder's `templates/style.yaml`
    (or the bundled `templates/rulebook/style.<id>.yaml`, through `paths.game_template`): same keys,
    merged over the base.
    """
    base = _read_style(templates_dir() / "style.yaml", partial=False)
    own = None if isinstance(game, str) else paths.game_template(game, "style.yaml")
    if own is not None:
        base = _deep_merge(base, _read_style(own, partial=True))
    missing = sorted(set(_COLOURS) - set(base["colours"]))
    if missing:
        raise DataError([Problem(Location(display_path(own or templates_dir() / "style.yaml"), 1, 1),
                                 f"colours: missing {', '.join(missing)}; add them")])
    return base

