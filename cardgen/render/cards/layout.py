"""Card layouts as data: <game folder>/templates/layout.yaml (a bundled game's is
templates/<game>/layout.yaml) -> compiled, validated boxes.

A layout names boxes in millimetres from the trimmed card's top-left corner. Every value may
be a constant, a `{ja: .., en: ..}` pair, or a Jinja2 template ("{{ card.vp }}"); templates
are compiled once when the layout is loaded, and loaded layouts are cached by file and
modification time, so drawing a card never parses YAML or Jinja. Errors name file:line:column.

```yaml
size: poker                  # optional: the card size the layout is drawn for (default: the game's)
include: [common/parts.yaml] # optional: files under the game folder's templates/ (else the bundled templates/)
text_floor: 4.5               # optional: `check` fails for card text fitted below this size in pt (default 4; it warns below 6)
                             # whose colours, strings and parts are merged; never outside those two
colours: {ink: "#222222"}    # named colours; colour values take a name, "#rrggbb[aa]" or "none"
strings: {ally: {ja: 友軍, en: Ally}}   # labels in both languages, in templates as s.ally
vars: {tier: "'gold' if card.vp >= 4 else 'silver'"}  # per-card values (Jinja expressions, in order)
parts: {frame: [boxes]}      # reusable boxes; `- use: frame` inserts them
backs: {default: [boxes]}    # shared deck backs by name; `default` is the deck's back
cards:                       # the first entry whose `match` fits a card is used
  - match: {type: princess}  # keys: type, id, copy or any card field; a value or a list of values
    front: [boxes]
    back: default            # a name from backs (shared), or a list of boxes: this card's own back
```

A box: `{name, kind, at: [x, y, w, h], when?, rotate?, ...}` where x, y, w, h are numbers or
arithmetic on W and H (the card's width and height), e.g. `[3, "H-10", "W-6", 7]`; `at: full`
is the whole card. Kinds and their keys:

- `rect`: fill, stroke, stroke_width (pt), radius (mm), bleed (extend edges on the trim into the bleed)
- `text`: text, font (gothic|mincho, or <name> for the game folder's fonts/<name>.ttf, looked up first), size, min_size, leading (ratio), align (left|center|right),
  valign (top|middle|bottom), colour, bold, shrink (set|type|card: a text that must shrink to fit
  shrinks the same box on every card it is drawn on (its entry: all quests, all events) to one
  size, so a set of cards reads alike; `type` only on the cards of its type; `card` opts out)
- `icon`: icon (a name from cardgen/render/icons.py, or the game folder's icons/<name>.svg), colour, accent, knockout, outline,
  outline_width, count, gap, align, valign, per_row, and for patterns cell, width, motif, motif_size;
  `decor: true` lets a decorative icon reach past the safe zone
- `line`: from (x, y) to (x + w, y + h); colour, width (pt), dash
- `image`: src (a PNG, JPEG or SVG file in the game folder; Jinja allowed, e.g. "art/{{ card.type }}.svg"
  or "{{ card.art }}"), fit (contain|cover|stretch), anchor (center, top, bottom-left, ...), radius (mm),
  bleed (edges on the trim reach into the bleed, as for rect: full-bleed art);
  see cardgen/render/cards/art.py

Any card text may hold inline icons, `:coin:` or `{icon:coin}` (cardgen/render/cards/icons.py
`draw_inline`): one em wide, in the text's colour, breaking like an ideograph.

Every box may also have `rotate` (degrees counter-clockwise about its centre; `at` is the
unrotated frame) and `when` (a Jinja expression; the box is drawn only when it is true).
Text and icon boxes must stay 3 mm inside the trim (the safe zone); the loader checks it.
Backgrounds (`rect` with `bleed: true`) reach into the bleed.

Template variables: `card` (id, type, copy, count = copies of its type, name, name_ja, name_en
and every field, texts in the chosen language), `fields` (a list of {name, label, value} in
card_fields order), `name`, `lang`, `game` (id, title, parameters, total, back), `s` (strings),
`param(name, default)`, `label(field)`, `t(text)` (a {ja, en} value in the chosen language),
`colours`, and the layout's `vars`. A shared back must not read `card`, `name` or `vars`: it
is drawn once per file; a card whose back shows its own data gets its own back (a list of
boxes under `back:`).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import difflib
import operator
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import jinja2.meta
import yaml

from ... import fonts
from ...errors import DataError, Problem
from ...io import paths, sandbox
from ...io.reader import SchemaReader
from ...langs import SUPPORTED, is_cjk
from ...model import Card, Game, Location, Text
from ...sizes import size_mm
from . import art, icons

SAFE_MM = 3.0
KINDS = ("rect", "text", "icon", "line", "image")
COMMON_KEYS = {"name", "kind", "at", "when", "rotate"}
KIND_KEYS: dict[str, set[str]] = {
    "rect": {"fill", "stroke", "stroke_width", "radius", "bleed", "dash"},
    "text": {"text", "font", "size", "min_size", "leading", "align", "valign", "colour", "bold", "shrink"},
    "icon": {
        "icon", "colour", "accent", "knockout", "outline", "outline_width", "count", "gap", "align",
        "valign", "per_row", "cell", "width", "motif", "motif_size", "radius", "decor",
    },
    "line": {"colour", "width", "dash"},
    "image": {"src", "fit", "anchor", "radius", "bleed"},
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "rect": {"fill": "none", "stroke": "none", "stroke_width": 0.5, "radius": 0, "bleed": False, "dash": None},
    "text": {"text": "", "font": "gothic", "size": 9, "min_size": None, "leading": 1.25, "align": "left",
             "valign": "top", "colour": "#000000", "bold": False, "shrink": "set"},
    "icon": {"colour": "#000000", "decor": False},
    "line": {"colour": "#000000", "width": 0.5, "dash": None},
    "image": {"src": "", "fit": "contain", "anchor": "center", "radius": 0, "bleed": False},
}
CHOICES = {
    "align": ("left", "center", "right"),
    "valign": ("top", "middle", "bottom"),
    "shrink": ("set", "type", "card"),
    "fit": art.FITS,
    "anchor": tuple(art.ANCHORS),
}
NUMBER_KEYS = {"size", "min_size", "leading", "stroke_width", "radius", "width", "outline_width", "gap",
               "cell", "motif_size"}
INT_KEYS = {"count", "per_row"}
BOOL_KEYS = {"bleed", "bold", "decor"}
COLOUR_KEYS = {"fill", "stroke", "colour", "accent", "knockout", "outline"}


# Card text below READABLE_TEXT_PT is hard to read at arm's length: check warns. Below the
# layout's `text_floor` (default DEFAULT_TEXT_FLOOR_PT) check fails.
READABLE_TEXT_PT = 6.0
DEFAULT_TEXT_FLOOR_PT = 4.0


class LayoutError(DataError):
    """A layout file is invalid, or a template failed for a card."""


# --- compiled values ----------------------------------------------------------------------------

# Layout templates render in the one sandbox (cardgen.io.sandbox), leniently: a `when:` or a text
# may test a field that some cards lack. Every error comes back as a DataError at the layout's
# file:line.


class Value:
    """A box parameter: a constant, a per-language pair, or a compiled template."""

    __slots__ = ("const", "per_lang", "template", "is_const", "refs", "origin", "what")

    def __init__(self, const: Any = None, per_lang: dict[str, "Value"] | None = None, template=None,
                 refs: frozenset[str] = frozenset(), origin: Location | None = None, what: str = "template"):
        self.const = const
        self.per_lang = per_lang
        self.template = template
        self.is_const = per_lang is None and template is None
        self.refs = refs if per_lang is None else frozenset().union(*(v.refs for v in per_lang.values()))
        self.origin = origin
        self.what = what

    def get(self, ctx: Mapping[str, Any], lang: str) -> Any:
        if self.per_lang is not None:
            return self.per_lang[_script_key(self.per_lang, lang)].get(ctx, lang)
        if self.template is not None:
            return self.template.render(ctx, self.origin or Location("layout", 1, 1), self.what)
        return self.const


def _script_key(per_lang: Mapping[str, Any], lang: str) -> str:
    """The key of a per-language value that serves `lang`: its own, else its script's (a size given
    {ja, en} serves French as English's, as a bundled layout names only ja and en)."""
    if lang in per_lang:
        return lang
    return "ja" if is_cjk(lang) else "en"


def _refs(template: Any) -> frozenset[str]:
    """The template variables a parsed Jinja template reads."""
    return frozenset(jinja2.meta.find_undeclared_variables(template))


_COMPILED: dict[str, tuple[Any, frozenset[str]]] = {}
# "prefix{{ a.b.c }}suffix" with no part starting with '_' (those go to the sandbox, which refuses them)
_SIMPLE = re.compile(r"^([^{}]*)\{\{\s*([A-Za-z]\w*(?:\.[A-Za-z]\w*)*)\s*\}\}([^{}]*)$")


class _Sandboxed:
    """A template compiled in the lenient sandbox."""

    __slots__ = ("template",)

    def __init__(self, template: Any):
        self.template = template

    def render(self, ctx: Mapping[str, Any], origin: Location, what: str) -> str:
        return sandbox.render(self.template, dict(ctx), origin, what, strict=False)


class _Lookup:
    """A template of the form "prefix{{ a.b.c }}suffix" read through mappings without running Jinja
    (the common case); anything else (an attribute of an object) goes to the sandbox."""

    __slots__ = ("prefix", "path", "suffix", "sandboxed")

    def __init__(self, prefix: str, path: str, suffix: str, sandboxed: _Sandboxed):
        self.prefix, self.path, self.suffix = prefix, tuple(path.split(".")), suffix
        self.sandboxed = sandboxed

    def render(self, ctx: Mapping[str, Any], origin: Location, what: str) -> str:
        value: Any = ctx.get(self.path[0], _MISSING)
        for part in self.path[1:]:
            if value is _MISSING:
                break
            if not isinstance(value, Mapping):
                return self.sandboxed.render(ctx, origin, what)
            value = value.get(part, _MISSING)
        if value is not _MISSING and not isinstance(value, (str, int, float, bool, type(None))):
            return self.sandboxed.render(ctx, origin, what)
        text = "" if value is _MISSING else str(value)
        return f"{self.prefix}{text}{self.suffix}"


_MISSING = object()


def _compile(source: str, origin: Location, what: str) -> tuple[Any, frozenset[str]]:
    """Compile a template once per process (parts used by many entries share it); DataError on a syntax error."""
    hit = _COMPILED.get(source)
    if hit is None:
        template = sandbox.compile_template(source, origin, what, strict=False)
        compiled: Any = _Sandboxed(template)
        simple = _SIMPLE.match(source)
        if simple and "\n" not in source:
            compiled = _Lookup(*simple.groups(), compiled)
        hit = (compiled, _refs(sandbox.environment(strict=False).parse(source)))
        if len(_COMPILED) > 10_000:
            _COMPILED.clear()
        _COMPILED[source] = hit
    return hit


@dataclass(frozen=True)
class Box:
    name: str
    kind: str
    x: float
    y: float
    w: float
    h: float
    params: Mapping[str, Value]
    when: Callable[..., Any] | None
    rotate: float
    location: Location
    when_refs: frozenset[str] = frozenset()
    when_at: Location | None = None

    def shows(self, ctx: Mapping[str, Any]) -> bool:
        """Whether the box is drawn for this card: its `when` evaluated in the sandbox."""
        if self.when is None:
            return True
        return bool(_evaluate(self.when, ctx, self.when_at or self.location, f"box '{self.name}' when"))

    @property
    def refs(self) -> frozenset[str]:
        """Every template variable the box reads."""
        return self.when_refs.union(*(v.refs for v in self.params.values()))

    def value(self, key: str, ctx: Mapping[str, Any], lang: str) -> Any:
        """The parameter `key` for this card and language, converted to its type."""
        v = self.params.get(key)
        raw = v.get(ctx, lang) if v is not None else DEFAULTS.get(self.kind, {}).get(key)
        if v is None or v.is_const:
            return raw
        return _coerce(key, raw, self)


@dataclass(frozen=True)
class Entry:
    match: Mapping[str, tuple]
    front: tuple[Box, ...]
    back: str | tuple[Box, ...]
    location: Location

    @property
    def own_back(self) -> bool:
        return isinstance(self.back, tuple)

    def matches(self, card: Card) -> bool:
        for key, wanted in self.match.items():
            if key == "type":
                actual: Any = card.type_id
            elif key == "id":
                actual = card.id
            elif key == "copy":
                actual = card.copy
            else:
                actual = card.fields.get(key)
            if actual not in wanted and str(actual) not in {str(w) for w in wanted}:
                return False
        return True


@dataclass(frozen=True)
class Var:
    """A layout `vars:` entry: a name and its compiled expression, with where it is written."""

    name: str
    expression: Callable[..., Any]
    origin: Location

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return _evaluate(self.expression, ctx, self.origin, f"vars.{self.name}")


def _evaluate(expression: Callable[..., Any], ctx: Mapping[str, Any], origin: Location, what: str) -> Any:
    """A `when:` or `vars:` expression evaluated in the sandbox; its errors are at the expression's place
    (an expression is one YAML value, and the line numbers Jinja gives for one are those of its generated code)."""
    try:
        return sandbox.evaluate(expression, dict(ctx), origin, what)
    except DataError as exc:
        raise DataError([Problem(origin, p.message) for p in exc.problems]) from None


@dataclass(frozen=True)
class Layout:
    path: Path
    width: float
    height: float
    colours: Mapping[str, str]
    strings: Mapping[str, Text]
    backs: Mapping[str, tuple[Box, ...]]
    entries: tuple[Entry, ...]
    files: tuple[tuple[str, float], ...] = ()
    by_card: Mapping[str, int] = field(default_factory=dict)
    vars: tuple[Var, ...] = ()
    text_floor: float = DEFAULT_TEXT_FLOOR_PT  # check fails for card text printed below this size

    def entry_for(self, card: Card) -> Entry:
        index = self.by_card.get(card.id)
        if index is not None and self.entries[index].matches(card):
            return self.entries[index]
        for entry in self.entries:
            if entry.matches(card):
                return entry
        raise LayoutError([Problem(Location(str(self.path), 1, 1),
                                   f"no entry under 'cards:' matches card {card.id} (type {card.type_id}); add one, e.g. one without 'match'")])

    def boxes(self, card: Card, side: str) -> tuple[tuple[Box, ...], bool]:
        """The boxes of one side of a card and whether that side is the card's own back."""
        entry = self.entry_for(card)
        if side == "front":
            return entry.front, False
        if isinstance(entry.back, tuple):
            return entry.back, True
        return self.backs[entry.back], False

    def strings_in(self, lang: str) -> dict[str, str]:
        return {k: v.get(lang) for k, v in self.strings.items()}


# --- locating and caching -----------------------------------------------------------------------

def layout_path(game: Game) -> Path:
    """The layout file of a game: `<game>/templates/layout.yaml`, the bundled `templates/<id>/layout.yaml`,
    else the generic `common/default.yaml` (looked up the same way: the game's templates/, then bundled)."""
    own = paths.game_template(game, "layout.yaml")
    if own is not None:
        return own
    generic = paths.shared_template(game, "common/default.yaml")
    if generic is not None:
        return generic
    raise LayoutError(f"{game.id}: no layout; write templates/layout.yaml in the game folder (see cardgen/render/layout.py)")


_CACHE: dict[tuple, Layout] = {}


_PINNED: contextvars.ContextVar[dict[tuple, Layout] | None] = contextvars.ContextVar("cardgen_pinned_layouts", default=None)


@contextlib.contextmanager
def pinned_layouts() -> Iterator[None]:
    """Within the block, each game's layout is checked against its files once and then kept:
    a build draws every face from one version of the layout even if a file is saved while it
    runs, and does not stat() the layout files for every face it draws (1,400 times for
    ohanatsumi's sheets and print-shop PDF)."""
    if _PINNED.get() is not None:  # an outer block pins already
        yield
        return
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def get_layout(game: Game) -> Layout:
    """The compiled layout of `game`, from the cache while its files are unchanged.

    The cache is keyed by the game's folder, id and card size; a hit costs one stat() per
    layout file (the layout and what it includes), so calling this per card is cheap, and
    none inside `pinned_layouts()` once the layout has been checked there.
    """
    key = (str(game.root), game.id, game.card_size, game.deck.id if game.deck else None)  # a deck view checks its own cards
    pinned = _PINNED.get()
    if pinned is not None and key in pinned:
        return pinned[key]
    cached = _CACHE.get(key)
    if cached is not None and all(_mtime(f) == m for f, m in cached.files):
        layout = cached
    else:
        layout = load_layout(game, layout_path(game))
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = layout
    if pinned is not None:
        pinned[key] = layout
    return layout


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def design_size(game: Game, size: str | None = None) -> tuple[float, float]:
    return size_mm(size or game.card_size)


# --- loading ------------------------------------------------------------------------------------

def load_layout(game: Game, path: Path) -> Layout:
    """Read, expand and validate a layout for `game`; raise LayoutError listing every problem."""
    loader = _LayoutLoader(game, path)
    layout = loader.load()
    if loader.r.problems:
        raise LayoutError(loader.r.problems)
    assert layout is not None
    return layout


class _LayoutLoader:
    def __init__(self, game: Game, path: Path):
        self.game = game
        self.path = path
        self.r = SchemaReader(game.languages)
        self.files: list[tuple[str, float]] = []
        self.parts: dict[str, yaml.Node] = {}
        self.colours: dict[str, str] = {}
        self.strings: dict[str, Text] = {}
        self.vars: list[Var] = []
        self.W, self.H = design_size(game)

    def _read(self, path: Path) -> yaml.Node | None:
        self.files.append((str(path), _mtime(str(path))))
        return self.r.read(path)

    def load(self) -> Layout | None:
        root = self._read(self.path)
        if root is None:
            return None
        top = self.r.mapping(root, "layout", set(), {"size", "include", "colours", "strings", "vars", "parts", "backs", "cards", "text_floor"})
        if top is None:
            return None
        self.text_floor = DEFAULT_TEXT_FLOOR_PT
        if "text_floor" in top:
            floor = self.r.scalar(top["text_floor"][1], "text_floor", "number", 1, 72)
            self.text_floor = DEFAULT_TEXT_FLOOR_PT if floor is None else float(floor)
        if "size" in top:
            size = self.r.scalar(top["size"][1], "size", "str")
            if size:
                try:
                    self.W, self.H = design_size(self.game, size)
                except ValueError:
                    self.r.error(top["size"][1], f"size '{size}' is unknown; use poker, bridge, mini, euro, tarot or WxH in mm")
        if "include" in top:
            for item in self.r.sequence(top["include"][1], "include") or []:
                name = self.r.scalar(item, "include", "str")
                if name:
                    self._include(item, name)
        self._definitions(top)
        backs: dict[str, tuple[Box, ...]] = {}
        if "backs" in top:
            entries = self.r.mapping(top["backs"][1], "backs", set(), None) or {}
            per_card = {"card", "name"} | {v.name for v in self.vars}
            for name, (_, node) in entries.items():
                backs[name] = self._boxes(node, f"backs.{name}")
                for box in backs[name]:
                    used = sorted(box.refs & per_card)
                    if used:
                        self.r.problems.append(Problem(box.location, (
                            f"box '{box.name}' in the shared back '{name}' reads {', '.join(used)}, which differ from card "
                            f"to card; a shared back is the same for every card (it is drawn once per file). Give the "
                            f"cards their own back instead (a list of boxes under 'back:' in their cards entry)")))
        if "default" not in backs:
            if "generic_back" in self.parts:
                backs["default"] = self._boxes(self.parts["generic_back"], "backs.default")
            else:
                self.r.error(root, "layout: no deck back; add 'backs: {default: [...]}' or include common/backs.yaml")
        cards_entries: list[Entry] = []
        if "cards" not in top:
            self.r.error(root, "layout: missing 'cards:'; list at least one entry with a front")
        else:
            for item in self.r.sequence(top["cards"][1], "cards") or []:
                entry = self._entry(item, backs)
                if entry is not None:
                    cards_entries.append(entry)
        by_card: dict[str, int] = {}
        for card in self.game.cards:
            for index, entry in enumerate(cards_entries):
                if entry.matches(card):
                    by_card[card.id] = index
                    break
            else:
                if cards_entries:
                    self.r.error(top["cards"][1], f"cards: no entry matches card {card.id} (type {card.type_id}); add an entry for it")
        if self.r.problems:
            return None
        return Layout(self.path, self.W, self.H, dict(self.colours), dict(self.strings), backs,
                      tuple(cards_entries), tuple(self.files), by_card, tuple(self.vars), self.text_floor)

    def _include(self, node: yaml.Node, name: str) -> None:
        try:
            candidate = paths.shared_template(self.game, name, self.r.where(node), "include")
        except DataError as exc:
            self.r.problems.extend(exc.problems)
            return
        if candidate is None:
            self.r.error(node, f"include '{name}': no such file in the game folder's templates/ or the bundled templates; check the name")
            return
        if str(candidate) in {f for f, _ in self.files}:
            self.r.error(node, f"include '{name}': the file is already read (included twice, or it includes itself); remove this include")
            return
        inc = self._read(candidate)
        if inc is None:
            return
        top = self.r.mapping(inc, f"{name}", set(), {"colours", "strings", "vars", "parts"})
        if top is not None:
            self._definitions(top)

    def _definitions(self, top: dict) -> None:
        if "colours" in top:
            for name, (key, node) in (self.r.mapping(top["colours"][1], "colours", set(), None) or {}).items():
                value = self.r.scalar(node, f"colours.{name}", "str")
                if value is not None:
                    if not _valid_colour(value):
                        self.r.error(node, f"colours.{name}: '{value}' is not a colour; use #rrggbb, #rrggbbaa or none")
                    self.colours[name] = value
        if "strings" in top:
            for name, (key, node) in (self.r.mapping(top["strings"][1], "strings", set(), None) or {}).items():
                text = self.r.text(node, f"strings.{name}")
                if text is not None:
                    self.strings[name] = text
        if "vars" in top:
            for name, (key, node) in (self.r.mapping(top["vars"][1], "vars", set(), None) or {}).items():
                src = self.r.scalar(node, f"vars.{name}", "str")
                if src is None:
                    continue
                at = self.r.where(node)
                try:
                    self.vars.append(Var(name, sandbox.compile_expression(src, at, f"vars.{name}"), at))
                except DataError as exc:
                    self.r.problems.extend(exc.problems)
        if "parts" in top:
            for name, (key, node) in (self.r.mapping(top["parts"][1], "parts", set(), None) or {}).items():
                if self.r.sequence(node, f"parts.{name}") is not None:
                    self.parts[name] = node

    def _entry(self, node: yaml.Node, backs: dict[str, tuple[Box, ...]]) -> Entry | None:
        e = self.r.mapping(node, "cards entry", {"front"}, {"match", "front", "back"})
        if e is None or "front" not in e:
            return None
        match: dict[str, tuple] = {}
        if "match" in e:
            known = {"type", "id", "copy"} | set(self.game.field_specs)
            for key, (knode, vnode) in (self.r.mapping(e["match"][1], "match", set(), None) or {}).items():
                if key not in known:
                    self.r.error(knode, f"match: unknown key '{key}'; use type, id, copy or a card field ({', '.join(sorted(self.game.field_specs))})")
                    continue
                value = self.r.plain(vnode)
                values = tuple(value) if isinstance(value, list) else (value,)
                if key == "type":
                    # a deck's view holds its own types; an entry may draw another deck's
                    type_ids = {t.id for t in self.game.card_types} | {t for deck in self.game.decks for t in deck.types}
                    for v in values:
                        if v not in type_ids:
                            self.r.error(vnode, f"match: no card type '{v}' in this game; types are {', '.join(sorted(type_ids))}")
                match[key] = values
        deck = self.game.deck
        if deck is not None and "type" in match and not {str(v) for v in match["type"]} & set(deck.types):
            return None  # an entry for another deck's types: drawn and checked at that deck's card size
        front = self._boxes(e["front"][1], "front")
        back: str | tuple[Box, ...] = "default"
        if "back" in e:
            bnode = e["back"][1]
            if isinstance(bnode, yaml.ScalarNode):
                back = str(bnode.value)
                if back not in backs:
                    self.r.error(bnode, f"back '{back}' is not one of backs: {', '.join(sorted(backs)) or '(none)'}")
            else:
                back = self._boxes(bnode, "back")
        return Entry(match, front, back, self.r.where(node))

    # --- boxes ----------------------------------------------------------------------------------

    def _boxes(self, node: yaml.Node, what: str, depth: int = 0) -> tuple[Box, ...]:
        out: list[Box] = []
        for item in self.r.sequence(node, what) or []:
            if isinstance(item, yaml.MappingNode) and any(k.value == "use" for k, _ in item.value):
                u = self.r.mapping(item, f"{what}: use", {"use"}, {"use"})
                name = self.r.scalar(u["use"][1], "use", "str") if u and "use" in u else None
                if name is None:
                    continue
                if name not in self.parts:
                    self.r.error(item, f"use '{name}': no such part; parts are {', '.join(sorted(self.parts)) or '(none)'}")
                    continue
                if depth > 8:
                    self.r.error(item, f"use '{name}': parts nest too deep (a part uses itself?)")
                    continue
                out.extend(self._boxes(self.parts[name], f"part {name}", depth + 1))
                continue
            box = self._box(item, what)
            if box is not None:
                out.append(box)
        return tuple(out)

    def _box(self, node: yaml.Node, what: str) -> Box | None:
        m = self.r.mapping(node, f"{what} box", {"name", "kind", "at"}, None)
        if m is None or not {"name", "kind", "at"} <= m.keys():
            return None
        name = self.r.scalar(m["name"][1], "box name", "str") or "?"
        kind = self.r.scalar(m["kind"][1], f"box '{name}' kind", "str")
        if kind not in KINDS:
            if kind is not None:
                self.r.error(m["kind"][1], f"box '{name}': kind '{kind}' is unknown; use one of {', '.join(KINDS)}")
            return None
        allowed = COMMON_KEYS | KIND_KEYS[kind]
        ok = True
        for key, (knode, _) in m.items():
            if key not in allowed:
                self.r.error(knode, f"box '{name}': key '{key}' is not used by a {kind} box; allowed: {', '.join(sorted(allowed))}")
                ok = False
        at = self._at(m["at"][1], name)
        when = None
        when_at: Location | None = None
        when_refs: frozenset[str] = frozenset()
        if "when" in m:
            src = self.r.scalar(m["when"][1], f"box '{name}' when", "str")
            if src:
                when_at = self.r.where(m["when"][1])
                try:
                    when = sandbox.compile_expression(src, when_at, f"box '{name}' when")
                    when_refs = _refs(sandbox.environment(strict=False).parse("{{ " + src + " }}"))
                except DataError as exc:
                    self.r.problems.extend(exc.problems)
                except jinja2.TemplateSyntaxError:  # compiled as an expression, but not as "{{ src }}" ("x }}{{ y")
                    self.r.error(m["when"][1], f"box '{name}': 'when' must be one expression")
                    when = None
        rotate = 0.0
        if "rotate" in m:
            rotate = float(self.r.scalar(m["rotate"][1], f"box '{name}' rotate", "number") or 0)
        params: dict[str, Value] = {}
        location = self.r.where(node)
        for key in KIND_KEYS[kind]:
            if key in m:
                value = self._value(m[key][1], key, name)
                if value is not None:
                    params[key] = value
        if at is None or not ok:
            return None
        if kind == "icon" and "icon" not in params:
            self.r.error(node, f"box '{name}': an icon box needs 'icon: <name>'")
            return None
        if kind == "image" and "src" not in params:
            if "src" not in m:
                self.r.error(node, f"box '{name}': an image box needs 'src: <file in the game folder>'")
            return None
        box = Box(name, kind, *at, params=params, when=when, rotate=rotate, location=location, when_refs=when_refs,
                  when_at=when_at or location)
        self._check_safe(box, node)
        return box

    def _at(self, node: yaml.Node, name: str) -> tuple[float, float, float, float] | None:
        if isinstance(node, yaml.ScalarNode) and node.value == "full":
            return 0.0, 0.0, self.W, self.H
        items = self.r.sequence(node, f"box '{name}' at")
        if items is None:
            return None
        if len(items) != 4:
            self.r.error(node, f"box '{name}': 'at' needs four values [x, y, width, height] in mm, got {len(items)}")
            return None
        out = []
        for item in items:
            if not isinstance(item, yaml.ScalarNode):
                self.r.error(item, f"box '{name}': 'at' values must be numbers or arithmetic on W and H")
                return None
            try:
                out.append(_arith(str(item.value), {"W": self.W, "H": self.H}))
            except ValueError as exc:
                self.r.error(item, f"box '{name}': {exc}")
                return None
        if out[2] < 0 or out[3] < 0:
            self.r.error(node, f"box '{name}': width and height must not be negative")
            return None
        return out[0], out[1], out[2], out[3]

    def _value(self, node: yaml.Node, key: str, box: str) -> Value | None:
        if isinstance(node, yaml.MappingNode) and {k.value for k, _ in node.value} <= {*SUPPORTED, *self.game.languages} and node.value:
            per: dict[str, Value] = {}
            for k, v in node.value:
                sub = self._value(v, key, box)
                if sub is None:
                    return None
                per[k.value] = sub
            for lang in self.game.languages:
                if _script_key(per, lang) not in per:
                    self.r.error(node, f"box '{box}': {key} gives '{', '.join(per)}' but not '{lang}'; "
                                       f"give one for each of the game's languages ({', '.join(self.game.languages)})")
                    return None
            return Value(per_lang=per)
        if key == "dash" and isinstance(node, yaml.SequenceNode):
            raw_list = self.r.plain(node)
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw_list):
                self.r.error(node, f"box '{box}': dash must be a list of numbers (on, off lengths in pt)")
                return None
            return Value(const=[float(v) for v in raw_list])
        if not isinstance(node, yaml.ScalarNode):
            self.r.error(node, f"box '{box}': {key} must be a single value or a {{ja, en}} pair")
            return None
        raw = self.r.plain(node)
        if isinstance(raw, str) and ("{{" in raw or "{%" in raw or "{#" in raw):
            origin = _template_origin(node)
            what = f"box '{box}' {key}"
            try:
                template, refs = _compile(raw, origin, what)
            except DataError as exc:
                self.r.problems.extend(exc.problems)
                return None
            return Value(template=template, refs=refs, origin=origin, what=what)
        try:
            return Value(const=_coerce(key, raw, None, self.colours, self.game))
        except ValueError as exc:
            self.r.error(node, f"box '{box}': {exc}")
            return None

    def _check_safe(self, box: Box, node: yaml.Node) -> None:
        if box.kind not in ("text", "icon"):
            return
        if box.kind == "icon":
            decor = box.params.get("decor")
            if decor is not None and decor.is_const and decor.const:
                return
        x0, y0, x1, y1 = rotated_extent(box)
        eps = 1e-6
        if x0 < SAFE_MM - eps or y0 < SAFE_MM - eps or x1 > self.W - SAFE_MM + eps or y1 > self.H - SAFE_MM + eps:
            self.r.error(node, (
                f"box '{box.name}': a {box.kind} box must stay {SAFE_MM:g} mm inside the trim (safe zone) "
                f"but spans x {x0:g}..{x1:g}, y {y0:g}..{y1:g} on a {self.W:g} x {self.H:g} mm card{self._deck_note()}; "
                f"keep it within x {SAFE_MM:g}..{self.W - SAFE_MM:g}, y {SAFE_MM:g}..{self.H - SAFE_MM:g}"
                + ("" if box.kind == "text" else " (or mark a decorative icon 'decor: true')")))

    def _deck_note(self) -> str:
        """Which declared deck's card size a box is checked at, and how to keep an entry to other decks."""
        deck = self.game.deck
        if deck is None:
            return ""
        return (f" (deck '{deck.id}'; an entry for other decks' cards only says so with "
                f"'match: {{type: [...]}}' and is checked at their size)")


def _template_origin(node: yaml.Node) -> Location:
    """Where line 1 of a template written in `node` is: the line after a `|` block's indicator."""
    mark = node.start_mark
    if getattr(node, "style", None) == "|":
        return Location(mark.name, mark.line + 2, 1)
    return Location(mark.name, mark.line + 1, mark.column + 1)


def rotated_extent(box: Box) -> tuple[float, float, float, float]:
    """The box's extent (x0, y0, x1, y1) in mm after its rotation about its centre."""
    if int(round(box.rotate)) % 180 == 90:
        cx, cy = box.x + box.w / 2, box.y + box.h / 2
        return cx - box.h / 2, cy - box.w / 2, cx + box.h / 2, cy + box.w / 2
    return box.x, box.y, box.x + box.w, box.y + box.h


def _valid_colour(value: str) -> bool:
    try:
        icons.colour(value)
        return True
    except (ValueError, TypeError):
        return False


def unknown_colour(key: str, text: str, colours: Mapping[str, str]) -> str:
    """Why `text` is no colour: it names none of the layout's colours (listed, the nearest first) nor is #rrggbb."""
    near = difflib.get_close_matches(text, list(colours), n=1)
    hint = f" (did you mean '{near[0]}'?)" if near else ""
    defined = ", ".join(colours) or "none yet"
    return (f"{key} '{text}' is not a colour{hint}: the layout's colours are {defined}; "
            f"add '{text}' under colours: or use #rrggbb, #rrggbbaa or none")


def resolve_colour(value: Any, colours: Mapping[str, str], key: str = "colour") -> str | None:
    """A colour name of the layout or a literal colour, as the literal; ValueError naming the defined ones."""
    if value is None:
        return None
    text = str(value).strip()
    found = colours.get(text, text)
    if found is text and not _valid_colour(text):  # a name a template made, e.g. "{{ card.suit }}_tint"
        raise ValueError(unknown_colour(key, text, colours))
    return found


def _coerce(key: str, raw: Any, box: Box | None, colours: Mapping[str, str] | None = None, game: Game | None = None) -> Any:
    """Convert a parameter to its type; templates give strings."""
    try:
        if key in NUMBER_KEYS:
            return None if raw is None or raw == "" else float(raw)
        if key in INT_KEYS:
            return 0 if raw is None or str(raw).strip() == "" else int(float(raw))
        if key in BOOL_KEYS:
            if isinstance(raw, str):
                return raw.strip().lower() in ("true", "yes", "1", "on")
            return bool(raw)
    except (TypeError, ValueError):
        where = f"box '{box.name}' ({box.location}): " if box else ""
        raise ValueError(f"{where}{key} must be a number, got {raw!r}") from None
    if key in CHOICES and raw is not None and str(raw) not in CHOICES[key]:
        where = f"box '{box.name}' ({box.location}): " if box else ""
        raise ValueError(f"{where}{key} '{raw}' is not one of {', '.join(CHOICES[key])}")
    if key == "font" and box is None and raw is not None and str(raw) not in fonts.BUNDLED \
            and fonts.game_font_file(getattr(game, "root", None), str(raw)) is None:
        raise ValueError(f"font '{raw}' is unknown; use one of {', '.join(fonts.font_names(getattr(game, 'root', None)))}"
                         f" or put {fonts.GAME_FONTS}/{raw}.ttf in the game folder")
    if key == "icon" and box is None and str(raw) not in icons.PATTERNS and not icons.inline_known(game, str(raw)):
        raise ValueError(f"icon '{raw}' is unknown; known icons: {', '.join(icons.icon_names())}"
                         f" or {icons.GAME_ICONS}/<name>.svg in the game folder")
    if key in COLOUR_KEYS and box is None and raw is not None and colours is not None:
        text = str(raw)
        if text not in colours and not _valid_colour(text):
            raise ValueError(unknown_colour(key, text, colours))
    if key == "src" and box is None and raw and paths.relative_parts(str(raw).strip()) is None:
        raise ValueError(f"src '{raw}' must be a relative path inside the game folder (no '/' first, no '..')")
    if key in ("text", "src"):
        return "" if raw is None else str(raw).strip()
    return raw


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _arith(src: str, names: Mapping[str, float]) -> float:
    """Evaluate arithmetic like 'W-6' or '(H-10)/2' with the names given; nothing else."""
    if len(src) > 200:  # a position is short arithmetic; a longer one is a mistake (and costly to parse)
        raise ValueError(f"'{src[:30]}…' is too long for a position; write a number or short arithmetic on W and H")
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError(f"'{src}' is not a number or arithmetic on W and H") from None

    def ev(n: ast.AST) -> float:
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return float(n.value)
        if isinstance(n, ast.Name) and n.id in names:
            return float(names[n.id])
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            return -ev(n.operand) if isinstance(n.op, ast.USub) else ev(n.operand)
        raise ValueError(f"'{src}' is not a number or arithmetic on W and H")

    try:
        value = ev(tree)
    except ZeroDivisionError:
        raise ValueError(f"'{src}' divides by zero") from None
    except (RecursionError, OverflowError):
        raise ValueError(f"'{src}' is not a number or arithmetic on W and H") from None
    if not -1000 <= value <= 1000:  # mm: far beyond any card, and never inf or nan
        raise ValueError(f"'{src}' gives {value:g} mm, outside -1000..1000 mm; check the position")
    return value
