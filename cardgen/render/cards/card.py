"""Draw one card face (front or back) from the game's layout onto a ReportLab canvas.

The sheet, print-shop, PNG and Tabletop Simulator writers all call `draw_face`; it never
decides game facts (those come from the model) and never parses YAML or Jinja per card (the
layout is compiled once and cached, see `cardgen.render.cards.layout`).
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from ...errors import DataError, Problem
from ...memo import Memo
from ...fonts import face_runs, missing_character, resolve_face
from ...model import Card, Game, Location, Text
from ...text import ICON_EM, UnknownIcon, fit_text, mark_icons, runs, unmark_icons
from ... import words
from ..colour import THIN_RULE_PT, plate_colour
from ..forms import form_once
from . import art, icons
from ...sizes import CardSizeError, size_mm
from .layout import Box, LayoutError, Layout, get_layout, resolve_colour

# IPAex: ascender 0.88 em, descender 0.12 em.
_ASCENT = 0.88
_BOLD_STROKE = 0.035  # stroke width (in em) of the stroked bold of a game's own font that has no bold file


@dataclass(frozen=True)
class Face:
    """One side of one physical card."""

    card: Card
    side: str  # "front" or "back"
    own_back: bool  # True when this card's back belongs to this card only (e.g. ohanatsumi quests)


@dataclass(frozen=True)
class Overflow:
    """A text that did not fit its box even at the box's minimum size."""

    card_id: str
    side: str
    box: str
    text: str

    def __str__(self) -> str:
        short = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        return f"{self.card_id} {self.side}: text box '{self.box}' overflows at its minimum size: {short!r}"


@dataclass(frozen=True)
class TextSize:
    """The size a text box was printed at on one face (collected while `TEXT_SIZES` holds a list)."""

    card_id: str
    type_id: str
    side: str
    box: str
    lang: str
    size: float  # pt, as printed
    location: Location | None


# `check` sets a list here while it lays the faces out; every text box drawn reports its size.
TEXT_SIZES: ContextVar[list[TextSize] | None] = ContextVar("TEXT_SIZES", default=None)


def card_size_mm(game: Game, override: str | None = None) -> tuple[float, float]:
    """The trimmed card size in mm: `override` (a size name or "WxH") or the game's card_size."""
    try:
        return size_mm(override or game.card_size)
    except CardSizeError as exc:
        raise LayoutError(str(exc)) from None


def faces(game: Game) -> list[tuple[Face, Face]]:
    """(front, back) for every physical card, in card order.

    `own_back` is set on both faces of a card whose back is its own (drawn from that card's
    data, like an ohanatsumi quest's boss side); other cards share their deck's back.
    """
    layout = get_layout(game)
    out = []
    for card in game.cards:
        own = layout.entry_for(card).own_back
        out.append((Face(card, "front", own), Face(card, "back", own)))
    return out


def back_group(game: Game, card: Card) -> str:
    """Which back a card has: the name of a shared back ("default", "events", ...) or "own:<card id>".

    Cards with the same group have identical backs (useful for one back image per TTS deck).
    """
    entry = get_layout(game).entry_for(card)
    return f"own:{card.id}" if entry.own_back else str(entry.back)


def draw_face(canvas, game: Game, face: Face, x_mm: float, y_mm: float, width_mm: float, height_mm: float,
              bleed_mm: float, lang: str, overflows: list | None = None, only: Callable[[Box], bool] | None = None) -> None:
    """Draw `face` with its trimmed lower-left corner at (x_mm, y_mm) in page mm.

    Backgrounds reach out to the bleed; nothing is drawn outside it (a clip path). Texts that
    do not fit at their minimum size are drawn anyway and reported into `overflows`. `only`
    keeps some of the layout's boxes (the tuck box draws a back's art without its deck label).
    """
    layout = get_layout(game)
    boxes, own = layout.boxes(face.card, face.side)
    if only is not None:
        boxes = tuple(b for b in boxes if only(b))
        own = True  # a partial face is no shared back: never cache it as the whole back's form
    c = canvas
    segments = art.FACE_SEGMENTS.set([0])  # what this face's SVG art and icons cost a rasteriser
    c.saveState()
    clip = c.beginPath()
    clip.rect((x_mm - bleed_mm) * mm, (y_mm - bleed_mm) * mm, (width_mm + 2 * bleed_mm) * mm, (height_mm + 2 * bleed_mm) * mm)
    c.clipPath(clip, stroke=0, fill=0)
    try:
        if face.side == "back" and not own and hasattr(c, "beginForm"):
            # A shared back is the same on every card: draw it once per file as a form XObject
            # and place that form on every back (small files, fast builds).
            key = (id(layout), back_group(game, face.card), lang, round(width_mm, 4), round(height_mm, 4), round(bleed_mm, 4))
            name = form_once(c, "back", key, "CardgenBack", (0, 0, (width_mm + 2 * bleed_mm) * mm, (height_mm + 2 * bleed_mm) * mm),
                             lambda: _draw_boxes(c, game, layout, boxes, face, bleed_mm, bleed_mm, width_mm, height_mm, bleed_mm,
                                                 lang, overflows))
            c.translate((x_mm - bleed_mm) * mm, (y_mm - bleed_mm) * mm)
            c.doForm(name)
        else:
            _draw_boxes(c, game, layout, boxes, face, x_mm, y_mm, width_mm, height_mm, bleed_mm, lang, overflows)
    finally:
        c.restoreState()
        art.FACE_SEGMENTS.reset(segments)


@dataclass(frozen=True)
class BackLook:
    """What a back's boxes say about its look, for things drawn in its style (a tuck box)."""

    field: str | None  # the colour of its first full-bleed filled rect ("#3E4A61"), None without one
    ink: str | None  # the colour of the kept text box that shows the game's title
    font: str | None  # that box's font (registered name)
    title_shown: bool  # whether a kept text box shows the game's title


def back_look(game: Game, face: Face, lang: str, keep: Callable[[Box], bool] = lambda box: True) -> BackLook:
    """The field colour of `face` (a back) and how the kept boxes among its boxes print the title."""
    layout = get_layout(game)
    boxes, _ = layout.boxes(face.card, face.side)
    try:
        ctx = _context(game, layout, face.card, lang)
        field = ink = font = None
        title = game.title.get(lang)
        for box in boxes:
            if not box.shows(ctx):
                continue
            if field is None and box.kind == "rect" and box.value("bleed", ctx, lang):
                field = resolve_colour(box.value("fill", ctx, lang), layout.colours, "fill")
                field = None if str(field).lower() in ("none", "transparent") else field
            if ink is None and box.kind == "text" and keep(box) and title and title in str(box.value("text", ctx, lang) or ""):
                ink = resolve_colour(box.value("colour", ctx, lang), layout.colours)
                font, _ = _game_fonts(getattr(game, "root", None))[(box.value("font", ctx, lang), lang, bool(box.value("bold", ctx, lang)))]
    except DataError as exc:
        raise _for_card(exc, face, lang) from None
    return BackLook(field, ink, font, ink is not None)


def icon_counts(game: Game, icon: str, lang: str = "en") -> dict[str, int]:
    """How many `icon` figures each card's front shows (summed over its icon boxes), read from the layout."""
    layout = get_layout(game)
    counts: dict[str, int] = {}
    for card in game.cards:
        boxes, _own = layout.boxes(card, "front")
        ctx = _context(game, layout, card, lang)
        total = 0
        for box in boxes:
            if box.kind == "icon" and str(box.value("icon", ctx, lang)).strip() == icon:
                total += int(box.value("count", ctx, lang) or 1) if "count" in box.params else 1
        counts[card.id] = total
    return counts


def draw_corner_index(canvas, game: Game, card: Card, x_mm: float, y_mm: float, width_mm: float, height_mm: float,
                      lang: str) -> bool:
    """Overlay the card's standard-card index (from mapping.yaml) in its top-right and, turned, bottom-left corner.

    Lets a printed deck be mixed with a standard deck. Returns False when the card has no
    standard card (no mapping, or it must be printed).
    """
    from ...mapping import corner_index
    from .index import draw_index

    index = corner_index(game, card)
    if index is None:
        return False
    rank, suit = index
    size = 7.5
    inset = 3.2 * mm  # inside the 3 mm safe zone
    box_w, box_h = 7.0 * mm, 9.5 * mm
    c = canvas
    for turned in (False, True):
        c.saveState()
        if turned:
            c.translate((x_mm + width_mm / 2) * mm, (y_mm + height_mm / 2) * mm)
            c.rotate(180)
            c.translate(-(x_mm + width_mm / 2) * mm, -(y_mm + height_mm / 2) * mm)
        right = (x_mm + width_mm) * mm - inset
        top = (y_mm + height_mm) * mm - inset
        c.setFillColorRGB(1, 1, 1)
        c.setStrokeColorRGB(0.55, 0.55, 0.55)
        c.setLineWidth(0.4)
        c.roundRect(right - box_w, top - box_h, box_w, box_h, 1.2 * mm, stroke=1, fill=1)
        draw_index(c, right - box_w / 2, top - 1.0 * mm, rank, suit, size, lang, align="centre")
        c.restoreState()
    return True


class _Fonts(dict):
    """(a layout's font name, language, bold) -> (ReportLab font, stroked bold?) for one game: its
    fonts/ folder first, then the bundled face of the language's script and weight."""

    def __init__(self, root):
        super().__init__()
        self.root = root

    def __missing__(self, key: tuple[str, str, bool]) -> tuple[str, bool]:
        name, lang, bold = key
        self[key] = found = resolve_face(self.root, str(name), lang, bold)
        return found


def _game_fonts(root) -> _Fonts:
    # one per face drawn: a font file replaced while `cardgen watch` runs is seen at the next face
    return _Fonts(root)


def _draw_boxes(c, game: Game, layout: Layout, boxes, face: Face, x_mm, y_mm, width_mm, height_mm, bleed_mm, lang,
                overflows) -> None:
    fonts = _game_fonts(getattr(game, "root", None))
    _CURRENT_GAME[id(layout)] = game
    try:
        ctx = _context(game, layout, face.card, lang)
    except DataError as exc:
        raise _for_card(exc, face, lang) from None
    sx = width_mm / layout.width
    sy = height_mm / layout.height
    geometry = (x_mm, y_mm, width_mm, height_mm, bleed_mm, sx, sy, min(sx, sy))
    for box in boxes:
        try:
            if not box.shows(ctx):
                continue
            _draw_box(c, layout, box, ctx, lang, geometry, fonts, face, overflows)
        except DataError as exc:
            raise _for_card(exc, face, lang) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise LayoutError([Problem(box.location, f"box '{box.name}' failed for card {face.card.id} ({face.side}, {lang}): {exc}")]) from None


def _for_card(exc: DataError, face: Face, lang: str) -> LayoutError:
    """A template error of the layout, saying which card it happened for."""
    return LayoutError([Problem(p.location, f"{p.message} (card {face.card.id}, {face.side}, {lang})") for p in exc.problems])


def check_overflows(game: Game, lang: str) -> list[Overflow]:
    """Draw every face to a throwaway canvas and return the texts that do not fit."""
    w, h = card_size_mm(game)
    bleed = 3.0
    c = Canvas(io.BytesIO(), pagesize=((w + 2 * bleed) * mm, (h + 2 * bleed) * mm))
    found: list[Overflow] = []
    for front, back in faces(game):
        for face in (front, back):
            draw_face(c, game, face, bleed, bleed, w, h, bleed, lang, found)
            c.showPage()
    return found


# --- template context ---------------------------------------------------------------------------

def _localise(value: Any, lang: str) -> Any:
    if isinstance(value, Text):
        return value.get(lang)
    return value


# Face layout work that does not depend on where (or with what bleed) a face is drawn: template
# contexts and fitted text boxes.  A build draws every face several times (home sheets, print
# shop, PNG, TTS) and `_shared_size` lays out every card a box is drawn on, so this saves most layout work.
_MEMO = Memo(2048)  # a game's faces (its contexts and text boxes) fit; more only holds memory


def _context(game: Game, layout: Layout, card: Card, lang: str) -> dict[str, Any]:
    """The template context of `card` in `lang` (shared, read-only: templates run in an immutable sandbox)."""
    return _MEMO(("context", lang), lambda: _with_vars(layout, _base_context(game, layout, card, lang)), (game, layout, card))


# The contexts without the layout's vars, by themselves: `_shared_size` reads a box on every card of
# its kind, and a box that reads no var needs no card's vars (most of a context's cost: each is an
# expression run in the sandbox).  Apart from _MEMO, so that they never push out what it holds.
_BASE_CONTEXTS = Memo(2048)


def _base_context(game: Game, layout: Layout, card: Card, lang: str) -> dict[str, Any]:
    return _BASE_CONTEXTS(("context", lang), lambda: _new_context(game, layout, card, lang), (game, layout, card))


def _box_context(layout: Layout, box: Box) -> Callable[[Game, Layout, Card, str], dict[str, Any]]:
    """How to make a context that renders `box` as a card's full context does: without the vars
    when the box reads none (its `when` and every parameter)."""
    refs = box.refs
    return _context if any(var.name in refs for var in layout.vars) else _base_context


def _with_vars(layout: Layout, base: dict[str, Any]) -> dict[str, Any]:
    """`base` with the layout's vars, each evaluated in order (a var reads the ones before it)."""
    if not layout.vars:
        return base
    ctx = dict(base)
    for var in layout.vars:
        ctx[var.name] = var.value(ctx)
    return ctx


def _new_context(game: Game, layout: Layout, card: Card, lang: str) -> dict[str, Any]:
    view: dict[str, Any] = {k: _localise(v, lang) for k, v in card.fields.items()}
    try:
        count = game.card_type(card.type_id).count
    except KeyError:
        count = 1
    view.update(id=card.id, type=card.type_id, copy=card.copy, count=count, name=card.name.get(lang),
                name_ja=card.name.ja, name_en=card.name.en)
    params = game.parameters

    def param(name: str, default: Any = None) -> Any:
        return params.get(name, default)

    def label(field_name: str) -> str:
        return words.field_label(game, field_name, lang)

    def shown(field_name: str, value: Any = None) -> str:
        """A field's value as printed (an enum by its label, never its id)."""
        return words.field_value(game, field_name, card.fields.get(field_name) if value is None else value, lang)

    def t(value: Any) -> Any:
        if isinstance(value, Text):
            return value.get(lang)
        if isinstance(value, Mapping) and lang in value:
            return value[lang]
        return value

    fields = []
    for field_name, spec in game.field_specs.items():
        if field_name in card.fields and card.fields[field_name] not in (None, ""):
            fields.append({"name": field_name, "label": words.field_label(game, field_name, lang),
                           "value": words.field_value(game, field_name, card.fields[field_name], lang)})
    ctx = {
        "card": view,
        "fields": fields,
        "name": card.name.get(lang),
        "lang": lang,
        "game": {"id": game.id, "title": game.title.get(lang), "parameters": params, "total": game.total,
                 "back": game.back},
        "s": layout.strings_in(lang),
        "colours": layout.colours,
        "param": param,
        "label": label,
        "shown": shown,
        "t": t,
    }
    return ctx


# --- drawing ------------------------------------------------------------------------------------

def _frame(box: Box, geometry, bleed: bool = False) -> tuple[float, float, float, float]:
    """The box in page points (x, y, w, h), y up; with `bleed`, edges on the trim reach into the bleed."""
    x_mm, y_mm, width_mm, height_mm, bleed_mm, sx, sy, _ = geometry
    left = box.x * sx
    right = (box.x + box.w) * sx
    top = box.y * sy
    bottom = (box.y + box.h) * sy
    if bleed:
        eps = 1e-6
        if box.x <= eps:
            left = -bleed_mm
        if box.y <= eps:
            top = -bleed_mm
        if right >= width_mm - eps:
            right = width_mm + bleed_mm
        if bottom >= height_mm - eps:
            bottom = height_mm + bleed_mm
    return ((x_mm + left) * mm, (y_mm + height_mm - bottom) * mm, (right - left) * mm, (bottom - top) * mm)


def _draw_box(c, layout: Layout, box: Box, ctx, lang, geometry, fonts, face: Face, overflows) -> None:
    scale = geometry[7]
    bleed = box.kind in ("rect", "image") and bool(box.value("bleed", ctx, lang))
    x, y, w, h = _frame(box, geometry, bleed)
    rotated = bool(box.rotate) and int(round(box.rotate)) % 360 != 0
    if rotated:
        c.saveState()
        c.translate(x + w / 2, y + h / 2)
        c.rotate(box.rotate)
        x, y = -w / 2, -h / 2
    if box.kind == "rect":
        _draw_rect(c, layout, box, ctx, lang, x, y, w, h, scale)
    elif box.kind == "text":
        _draw_text(c, layout, box, ctx, lang, x, y, w, h, scale, fonts, face, overflows)
    elif box.kind == "icon":
        _draw_icon(c, layout, box, ctx, lang, x, y, w, h, scale)
    elif box.kind == "line":
        _draw_line(c, layout, box, ctx, lang, x, y, w, h, scale, geometry)
    elif box.kind == "image":
        _draw_image(c, layout, box, ctx, lang, x, y, w, h, scale, face)
    if rotated:
        c.restoreState()


def _col(layout: Layout, value: Any, key: str = "colour"):
    return icons.colour(resolve_colour(value, layout.colours, key))


def _draw_rect(c, layout, box, ctx, lang, x, y, w, h, scale) -> None:
    fill = _col(layout, box.value("fill", ctx, lang), "fill")
    stroke = _col(layout, box.value("stroke", ctx, lang), "stroke")
    if fill is None and stroke is None:
        return
    c.saveState()
    if fill is not None:
        c.setFillColor(fill)
    if stroke is not None:
        line_width = float(box.value("stroke_width", ctx, lang) or 0.5) * scale
        c.setStrokeColor(plate_colour(c, stroke, line_width, THIN_RULE_PT))
        c.setLineWidth(line_width)
        dash = box.value("dash", ctx, lang)
        if dash:
            c.setDash(dash if isinstance(dash, list) else [float(dash)])
    radius = float(box.value("radius", ctx, lang) or 0) * scale * mm
    if stroke is not None and fill is None:
        # Keep a stroked frame inside its box.
        lw = float(box.value("stroke_width", ctx, lang) or 0.5) * scale
        x, y, w, h = x + lw / 2, y + lw / 2, w - lw, h - lw
    if radius > 0:
        c.roundRect(x, y, w, h, radius, stroke=int(stroke is not None), fill=int(fill is not None))
    else:
        c.rect(x, y, w, h, stroke=int(stroke is not None), fill=int(fill is not None))
    c.restoreState()


@dataclass(frozen=True)
class _TextPlan:
    """A text box worked out (text marked and fitted, style read from the layout), ready to draw."""

    text: str
    font: str
    fitted: Any  # cardgen.text.Fitted
    colour: Any
    ink: str
    align: Any
    valign: Any
    bold: bool
    # per line of fitted.lines: its width and its runs as (kind, value, advance of a text run, the
    # face that sets it: fonts.face_of, a Japanese quotation in Latin text in the Japanese face)
    lines: tuple[tuple[float, tuple[tuple[str, str, float, str], ...]], ...]


def _text_plan(layout, box, ctx, lang, w, h, scale, fonts, face) -> _TextPlan | None:
    text = _with_icons(box.value("text", ctx, lang), layout, box, face.card)
    if not text:
        return None
    font, stroked_bold = fonts[(box.value("font", ctx, lang), lang, bool(box.value("bold", ctx, lang)))]
    size = float(box.value("size", ctx, lang)) * scale
    min_size = box.value("min_size", ctx, lang)
    min_size = float(min_size) * scale if min_size else size
    leading = float(box.value("leading", ctx, lang) or 1.25)
    shrink = box.value("shrink", ctx, lang)
    if shrink != "card":
        shared = _shared_size(layout, box, face, shrink == "type", lang, font, w, h, size, min_size, leading)
        size, min_size = shared, min(min_size, shared)
    fitted = fit_text(text, font, w, h, size, min_size, lang, leading)
    colour = _col(layout, box.value("colour", ctx, lang)) or icons.colour("#000000")
    ink = str(resolve_colour(box.value("colour", ctx, lang), layout.colours) or "#000000")
    s = fitted.size
    lines = []
    for line in fitted.lines:
        line_runs = tuple(("icon", value, 0.0, "") if kind == "icon" else
                          (kind, piece, pdfmetrics.stringWidth(piece, piece_font, s), piece_font)
                          for kind, value in runs(line)
                          for piece, piece_font in ([(value, "")] if kind == "icon" else face_runs(value, font, lang)))
        # the line's width is its runs' (an icon is ICON_EM wide): text_width without measuring twice
        lines.append((sum(ICON_EM * s if kind == "icon" else advance for kind, _, advance, _ in line_runs), line_runs))
    for _, line_runs in lines:
        for kind, value, _, piece_font in line_runs:
            lacking = missing_character(piece_font, value) if kind != "icon" else None
            if lacking is not None:
                shown = font if piece_font == font else f"{font} (nor {piece_font})"
                raise DataError([Problem(_text_origin(box, face.card), _no_glyph(face.card.id, box.name, lang, lacking, shown))])
    return _TextPlan(text, font, fitted, colour, ink, box.value("align", ctx, lang), box.value("valign", ctx, lang),
                     stroked_bold, tuple(lines))


def _text_origin(box: Box, card: Card):
    """Where a text box's text was written: the layout line when the box's text is a constant, else the card's data."""
    written = box.params.get("text")
    return box.location if written is not None and written.is_const else (card.location or box.location)


def _no_glyph(card_id: str, box: str, lang: str, char: str, font: str) -> str:
    """A character no chosen font has: named, so the designer can find it (never a box or blank on paper)."""
    import unicodedata

    name = unicodedata.name(char, "no name")
    return (f"card {card_id}: text box '{box}' ({lang}) holds '{char}' (U+{ord(char):04X} {name}), which the font {font} "
            f"does not have; write another character, or put a font that has it in the game's fonts/ folder and name it "
            f"in the box's font:")


def _plan(layout, box, ctx, lang, w, h, scale, fonts, face) -> _TextPlan | None:
    game = _CURRENT_GAME.get(id(layout))
    return _MEMO(("text", face.side, lang, round(w, 4), round(h, 4), scale),
                 lambda: _text_plan(layout, box, ctx, lang, w, h, scale, fonts, face), (game, layout, face.card, box))


@dataclass(frozen=True)
class SetText:
    """One text box of one face as it is set (`cardgen.text.Fitted`), worked out without drawing."""

    card_id: str
    side: str
    box: str
    text: str  # with icons marked (cardgen.text.mark_icons)
    font: str
    width: float  # pt
    fitted: Any  # cardgen.text.Fitted


def set_texts(game: Game, lang: str) -> list[SetText]:
    """Every text box of every face of `game` in `lang`, broken and sized exactly as `draw_face`
    sets it at the game's card size (the same plans, so drawing afterwards reuses them)."""
    return [text for pair in faces(game) for face in pair for text in _face_texts(game, face, lang, card_size_mm(game))]


def text_sizes(game: Game, card: Card, side: str, lang: str, size_mm: tuple[float, float]) -> tuple[float, ...]:
    """The sizes the text boxes of one face are set at (what its drawing takes from the other
    cards that share a box's size, besides its own data)."""
    return tuple(text.fitted.size for text in _face_texts(game, Face(card, side, False), lang, size_mm))


def _face_texts(game: Game, face: Face, lang: str, size_mm: tuple[float, float]) -> list[SetText]:
    layout = get_layout(game)
    width_mm, height_mm = size_mm
    fonts = _game_fonts(getattr(game, "root", None))
    _CURRENT_GAME[id(layout)] = game
    sx, sy = width_mm / layout.width, height_mm / layout.height
    geometry = (0.0, 0.0, width_mm, height_mm, 0.0, sx, sy, min(sx, sy))
    boxes, _own = layout.boxes(face.card, face.side)
    ctx = _context(game, layout, face.card, lang)
    out: list[SetText] = []
    for box in boxes:
        if box.kind != "text" or not box.shows(ctx):
            continue
        _x, _y, w, h = _frame(box, geometry)
        plan = _plan(layout, box, ctx, lang, w, h, geometry[7], fonts, face)
        if plan is not None:
            out.append(SetText(face.card.id, face.side, box.name, plan.text, plan.font, w, plan.fitted))
    return out


def _draw_text(c, layout, box, ctx, lang, x, y, w, h, scale, fonts, face, overflows) -> None:
    # The plan does not depend on where the face is drawn or its bleed (a text box never reaches
    # into the bleed), so the print-shop PDF, PNG and TTS reuse the home sheets' (`_MEMO`).
    game = _CURRENT_GAME.get(id(layout))
    plan = _plan(layout, box, ctx, lang, w, h, scale, fonts, face)
    if plan is None:
        return
    text, fitted, colour, ink = plan.text, plan.fitted, plan.colour, plan.ink
    align, valign, bold = plan.align, plan.valign, plan.bold  # bold: stroke the outline (a game font with no bold file)
    if fitted.overflow and overflows is not None:
        overflows.append(Overflow(face.card.id, face.side, box.name, unmark_icons(text)))
    sizes = TEXT_SIZES.get()
    if sizes is not None:
        sizes.append(TextSize(face.card.id, face.card.type_id, face.side, box.name, lang, round(fitted.size, 2), box.location))
    s = fitted.size
    lines = fitted.lines
    block = (len(lines) - 1) * fitted.leading + s
    if valign == "middle":
        top = y + (h + block) / 2
    elif valign == "bottom":
        top = y + block
    else:
        top = y + h
    uses: dict[str, int] = {}
    for _, line_runs in plan.lines:
        for kind, value, _, _ in line_runs:
            if kind == "icon":
                uses[value] = uses.get(value, 0) + 1
    for name, count in uses.items():  # counted before any is drawn: a refusal costs no conversion
        icons.spend_uses(name, game, count)
    c.saveState()
    colour = plate_colour(c, colour, s)  # K only for small black or grey text in the CMYK file
    c.setFillColor(colour)
    if bold:
        c.setStrokeColor(colour)
        c.setLineWidth(s * _BOLD_STROKE)
        c.setLineJoin(1)
    for i, (width, line_runs) in enumerate(plan.lines):
        if not line_runs:
            continue
        baseline = top - i * fitted.leading - _ASCENT * s
        if align == "center":
            lx = x + (w - width) / 2
        elif align == "right":
            lx = x + w - width
        else:
            lx = x
        for kind, value, advance, piece_font in line_runs:
            if kind == "icon":
                lx += icons.draw_inline(c, value, lx, baseline, s, ink, game)
                continue
            t = c.beginText(lx, baseline)
            t.setFont(piece_font, s)
            if bold:
                t.setTextRenderMode(2)
            t.textOut(value)
            c.drawText(t)
            lx += advance
    c.restoreState()


def _with_icons(text: str, layout: Layout, box: Box, card: Card) -> str:
    """`text` with its inline icons marked (cardgen.text.mark_icons); an unknown icon is a DataError at the
    box's layout line when the box's text is a constant, else at the card's cards.yaml line (its data)."""
    if not text:
        return text
    game = _CURRENT_GAME.get(id(layout))
    try:
        return mark_icons(text, lambda name: icons.inline_known(game, name))
    except UnknownIcon as exc:
        written = box.params.get("text")
        in_layout = written is not None and written.is_const  # the layout's own words, not a card's
        raise DataError([Problem((box.location if in_layout else card.location) or box.location, (
            f"card {card.id}: text box '{box.name}' uses icon {exc.markup!r}, but there is no icon '{exc.name}'; "
            f"use one of {', '.join(icons.inline_names(game))} or add {icons.GAME_ICONS}/{exc.name}.svg to the game folder"))]) from None
    except ValueError as exc:
        raise DataError([Problem(card.location or box.location, f"card {card.id}: text box '{box.name}': {exc}")]) from None


_SHARED_SIZES = Memo(50_000)  # by the game, layout and box themselves: a reloaded game is another game


def _shared_size(layout: Layout, box: Box, face: Face, per_type: bool, lang: str, font: str, w: float, h: float,
                 size: float, min_size: float, leading: float) -> float:
    """The size this box gets on every card it is drawn on (the cards of its layout entry, a
    designer's "kind of card": all quests, all events), or with `per_type` on every card of
    `face`'s type: the smallest that fits each one's text (never below min_size), so one card's
    long text shrinks its siblings with it and a set of cards reads at one size."""
    game = _CURRENT_GAME.get(id(layout))
    if game is None or min_size >= size:  # no room to shrink: every card's text is set at `size`
        return size

    def smallest() -> float:
        best = size
        context_of = _box_context(layout, box)
        for card in game.cards:
            if per_type and card.type_id != face.card.type_id:
                continue
            boxes, _ = layout.boxes(card, face.side)
            if not any(b is box for b in boxes):  # the box itself: parts used by two entries are two boxes
                continue
            ctx = context_of(game, layout, card, lang)
            if not box.shows(ctx):
                continue
            text = _with_icons(box.value("text", ctx, lang), layout, box, card)
            if text:
                best = min(best, fit_text(text, font, w, h, size, min_size, lang, leading).size)
        return best

    key = (face.card.type_id if per_type else None, face.side, lang, font, round(w, 3), round(h, 3), size, min_size, leading)
    return _SHARED_SIZES(key, smallest, (game, layout, box))


_CURRENT_GAME: dict[int, Game] = {}


_ICON_PARAM_KEYS = ("colour", "accent", "knockout", "outline", "outline_width", "count", "gap", "align", "valign",
                    "per_row", "cell", "width", "motif", "motif_size", "radius")


def _draw_icon(c, layout, box, ctx, lang, x, y, w, h, scale) -> None:
    name = str(box.value("icon", ctx, lang)).strip()
    if not name:
        return
    params: dict[str, Any] = {}
    for key in _ICON_PARAM_KEYS:
        if key in box.params:
            value = box.value(key, ctx, lang)
            if key in ("colour", "accent", "knockout", "outline"):
                value = resolve_colour(value, layout.colours, key)
            elif key in ("cell", "width", "radius") and value is not None:
                value = float(value) * scale
            params[key] = value
    if "colour" not in params:
        params["colour"] = "#000000"
    game = _CURRENT_GAME.get(id(layout))
    if name not in icons.PATTERNS and not icons.inline_known(game, name):
        raise KeyError(f"unknown icon {name!r}")
    icons.draw_icon(c, name, x, y, w, h, params, game)


def _draw_line(c, layout, box, ctx, lang, x, y, w, h, scale, geometry) -> None:
    colour = _col(layout, box.value("colour", ctx, lang))
    if colour is None:
        return
    x_mm, y_mm, width_mm, height_mm, _, sx, sy, _ = geometry
    x0 = (x_mm + box.x * sx) * mm
    y0 = (y_mm + height_mm - box.y * sy) * mm
    x1 = (x_mm + (box.x + box.w) * sx) * mm
    y1 = (y_mm + height_mm - (box.y + box.h) * sy) * mm
    if box.rotate:
        # Rotated lines are drawn in the box's rotated frame.
        x0, y0, x1, y1 = x, y + h, x + w, y
    c.saveState()
    line_width = float(box.value("width", ctx, lang) or 0.5) * scale
    c.setStrokeColor(plate_colour(c, colour, line_width, THIN_RULE_PT))
    c.setLineWidth(line_width)
    c.setLineCap(1)
    dash = box.value("dash", ctx, lang)
    if dash:
        c.setDash(dash if isinstance(dash, list) else [float(dash)])
    c.line(x0, y0, x1, y1)
    c.restoreState()


def _draw_image(c, layout, box, ctx, lang, x, y, w, h, scale, face: Face) -> None:
    src = str(box.value("src", ctx, lang) or "").strip()
    if not src:
        return
    game = _CURRENT_GAME[id(layout)]
    # A src taken from a card field is the card's mistake: report it at its cards.yaml line.
    from_card = any(isinstance(v, str) and v.strip() == src for v in face.card.fields.values())
    at = (face.card.location if from_card else None) or box.location
    art.draw(c, game, src, lang, x, y, w, h, fit=str(box.value("fit", ctx, lang) or "contain"),
             anchor=str(box.value("anchor", ctx, lang) or "center"),
             radius=float(box.value("radius", ctx, lang) or 0) * scale * mm, at=at,
             note=(face.card.id, face.side, box.name), placed_at=box.location)
