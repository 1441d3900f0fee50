"""Rulebooks: `output/<game>/<game>-rules-<lang>.pdf` from `card_data/<game>/rules.<lang>.md`.

The rules text is a small Markdown subset rendered through Jinja first, so that every number
comes from game.yaml (`{{ param('rounds') }}`) and every generated part comes from the card
data: `{{ component_list() }}`, `{{ card_table() }}`, `{{ card_details() }}`,
`{{ decisions() }}`, `{{ decision('id') }}`, `{{ figure('setup') }}`,
`{{ play_area_diagram() }}`, `{{ appendix() }}`, `{{ pagebreak() }}`.

Markdown subset: `#` chapters and `##` sections (numbered, in the table of contents and the
PDF outline), `###` subsections, paragraphs, `- ` bullets and `1. ` numbered items (indent two
spaces to nest), `> ` notes, `| tables |` with a `|---|` line under the header, and `**bold**`.

Paragraphs are laid out line by line with `cardgen.text.break_lines`, the same Japanese line
breaking (BudouX phrases and JIS X 4051 kinsoku) as the cards. Page settings and the words the
renderer prints itself are in `templates/rulebook/style.yaml` (a game folder may override them in
`templates/style.yaml`); the setup figures are vector drawings described in the game folder's
`templates/figures.yaml`, else the bundled `templates/rulebook/figures/<game>.yaml`.

The rules text, figures and style are untrusted: read through `cardgen.io.reader`, rendered in the
strict sandbox (`cardgen.io.sandbox`), every error a DataError at its file:line.
"""

from __future__ import annotations

import io
import math
import re
import secrets
import string
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import yaml
from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, PageBreak, Spacer, Table, TableStyle
from reportlab.platypus.doctemplate import BaseDocTemplate, LayoutError as _PlatypusLayoutError, PageTemplate
from reportlab.platypus.frames import Frame

from ...errors import DataError, Problem
from ...files import write_atomic
from ...fonts import GOTHIC, MINCHO, register_fonts
from ...io import paths, sandbox
from ...io.reader import SchemaReader, compose, display_path, read_text
from ...io.schema import Anything, Bool, Dict, Int, List, Map, Num, Str, validate
from ...model import Card, CardType, Game, Location, Text
from ...text import break_lines

LANGS = ("ja", "en")


# ============================================================================ settings

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
            "card_face", "card_back", "zone_fill")
# Labels formatted with str.format, and the only fields they may name.
_LABEL_FIELDS = {"cards_unit": {"n"}, "copies_of": {"n"}, "players_value": {"min", "max"}, "players_value_one": {"min"},
                 "decisions_intro": {"source"}, "page_of": {"page", "total"}}


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
        "labels": m({lang: Dict(Str(), Str(), max_items=200) for lang in LANGS}),
    })


def _check_labels(r: SchemaReader, node: yaml.Node) -> None:
    """Labels may name only the fields the renderer fills in (`{n}`), nothing like `{n.__class__}`."""
    for key, value in node.value if isinstance(node, yaml.MappingNode) else []:
        if key.value != "labels" or not isinstance(value, yaml.MappingNode):
            continue
        for _lang, per_lang in value.value:
            for label_key, label_node in per_lang.value if isinstance(per_lang, yaml.MappingNode) else []:
                allowed = _LABEL_FIELDS.get(label_key.value, set())
                try:
                    fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(str(label_node.value))
                              if f is not None]
                except ValueError as exc:
                    r.error(label_node, f"labels.{label_key.value}: {exc}; write a literal brace as {{{{ or }}}}")
                    continue
                for name, spec, conv in fields:
                    if name not in allowed or spec or conv:
                        hint = ", ".join("{" + a + "}" for a in sorted(allowed)) or "none (write a literal brace as {{ or }})"
                        r.error(label_node, f"labels.{label_key.value}: '{{{name}}}' is not a field of this label; fields: {hint}")


def _read_style(path: Path, partial: bool) -> dict:
    r = SchemaReader()
    node = r.read(path, empty_ok=partial)
    if node is None:
        r.raise_if_any()
        return {}
    value = validate(r, node, _style_spec(partial), "style")
    _check_labels(r, node)
    r.raise_if_any()
    return value or {}


def load_style(game: Game | str) -> dict:
    """The page template settings, with the game's own overrides merged in.

    The bundled `templates/rulebook/style.yaml`, then a game folder's `templates/style.yaml`
    (or the bundled `templates/rulebook/style.<id>.yaml`): same keys, merged over the base.
    """
    base = _read_style(templates_dir() / "style.yaml", partial=False)
    game_id = game if isinstance(game, str) else game.id
    own = None if isinstance(game, str) else paths.game_template(game, "style.yaml")
    if own is None and paths.portable_name_problem(game_id, "game id") is None:
        candidate = templates_dir() / f"style.{game_id}.yaml"
        own = candidate if candidate.is_file() else None
    if own is not None:
        base = _deep_merge(base, _read_style(own, partial=True))
    for lang in LANGS:
        missing = sorted(set(_LABEL_FIELDS) - set(base["labels"][lang]))
        if missing:
            raise DataError([Problem(Location(display_path(own or templates_dir() / "style.yaml"), 1, 1),
                                     f"labels.{lang}: missing {', '.join(missing)}; add them")])
    missing = sorted(set(_COLOURS) - set(base["colours"]))
    if missing:
        raise DataError([Problem(Location(display_path(own or templates_dir() / "style.yaml"), 1, 1),
                                 f"colours: missing {', '.join(missing)}; add them")])
    return base


# --- the shape of a figures file ---------------------------------------------------------------

_ITEM_TYPES = ("zone", "card", "slot", "deck", "row", "chips", "text", "arrow")
_FACE = Str(("up", "down", "slot"))
_POINT = List(Num(-100, 100), min_items=2, max_items=2)
_ITEM = Map({
    "type": Str(_ITEM_TYPES), "x": Num(-100, 100), "y": Num(-100, 100), "w": Num(0, 100), "h": Num(0, 100),
    "label": Anything(), "label_at": Str(("top", "bottom")), "face": _FACE, "text": Anything(), "rotate": Bool(),
    "mark": Anything(), "depth": Int(0, 10), "n": Int(0, 100), "step": Num(0.1, 10), "faces": List(_FACE, max_items=100),
    "texts": List(Anything(), max_items=100), "marks": List(Anything(), max_items=100),
    "align": Str(("left", "center", "right")), "size": Num(3, 40), "colour": Str(), "from": _POINT, "to": _POINT,
}, optional={"x", "y", "w", "h", "label", "label_at", "face", "text", "rotate", "mark", "depth", "n", "step", "faces",
             "texts", "marks", "align", "size", "colour", "from", "to"})
_FIGURE = Map({"caption": Anything(), "card_mm": Num(3, 60), "width": Num(0.1, 100), "height": Num(0.1, 100),
               "items": List(_ITEM, min_items=1, max_items=500)},
              optional={"caption", "card_mm", "width", "height"})
_NEEDS = {"zone": ("w", "h"), "row": ("n",), "chips": ("n",), "arrow": ("from", "to")}


_KEEP_LINES = re.compile(r"(?<![-+])%\}(?=[ \t]*$)", re.M)


def figures_path(game: Game) -> Path | None:
    """A game folder's own `templates/figures.yaml`, else the bundled `templates/rulebook/figures/<id>.yaml`."""
    own_root = game.root / paths.GAME_TEMPLATES
    own = paths.inside(own_root, "figures.yaml") if own_root.is_dir() else None
    if own is not None and own.is_file():
        return own
    if paths.portable_name_problem(game.id, "game id") is None:
        bundled = templates_dir() / "figures" / f"{game.id}.yaml"
        if bundled.is_file():
            return bundled
    return None


def _check_figures(r: SchemaReader, node: yaml.Node, colours: dict) -> dict:
    figures = validate(r, node, Dict(Str(), _FIGURE, max_items=50), "figures") or {}
    if r.problems:
        return {}
    for _, fig_node in node.value:
        items = next(v for k, v in fig_node.value if k.value == "items")
        for item_node in items.value:
            item = {k.value: v for k, v in item_node.value}
            kind = item["type"].value
            for needed in _NEEDS.get(kind, ()):
                if needed not in item:
                    r.error(item_node, f"a figure item of type {kind} needs '{needed}'")
            if "colour" in item and item["colour"].value not in colours:
                r.error(item["colour"], f"colour '{item['colour'].value}' is not one of style.yaml's colours: {', '.join(sorted(colours))}")
    return figures


@dataclass(frozen=True)
class TStyle:
    """How one block of text is set."""

    font: str
    strong: str
    size: float
    leading: float
    color: tuple[float, float, float]
    left: float = 0.0
    right: float = 0.0
    space_before: float = 0.0
    space_after: float = 0.0
    align: str = "left"          # left, center, right
    bullet_width: float = 0.0    # room for the bullet, left of `left`
    all_strong: bool = False


# ============================================================================ text flowable

@lru_cache(maxsize=200_000)
def _char_width(ch: str, font: str, size: float) -> float:
    return pdfmetrics.stringWidth(ch, font, size)


def _split_runs(text: str) -> list[tuple[str, bool]]:
    """`a **b** c` -> [("a ", False), ("b", True), (" c", False)]."""
    runs: list[tuple[str, bool]] = []
    strong = False
    for i, part in enumerate(text.split("**")):
        if part:
            runs.append((part, strong))
        if i < text.count("**"):
            strong = not strong
    return runs


@dataclass(frozen=True)
class _Line:
    segments: tuple[tuple[str, str], ...]  # (text, font)
    width: float                           # natural width
    char_space: float = 0.0                # negative to squeeze a line that measures too wide


class TextBlock(Flowable):
    """A paragraph broken with `cardgen.text.break_lines` (Japanese) or at spaces (English).

    Splits between lines across pages (at least two lines on each side when it can).
    """

    def __init__(self, text: str | Sequence[tuple[str, bool]], lang: str, style: TStyle,
                 bullet: str | None = None, lines: tuple[_Line, ...] | None = None) -> None:
        super().__init__()
        self.runs = _split_runs(text) if isinstance(text, str) else list(text)
        if style.all_strong:
            self.runs = [(t, True) for t, _ in self.runs]
        self.lang = lang
        self.style = style
        self.bullet = bullet
        self._fixed = lines
        self._lines: tuple[_Line, ...] = lines or ()
        self._width_for: float | None = None

    # -- layout ------------------------------------------------------------------------
    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.runs)

    def _fonts(self) -> list[str]:
        out: list[str] = []
        for t, strong in self.runs:
            out.extend([self.style.strong if strong else self.style.font] * len(t))
        return out

    def _measure(self, text: str, fonts: Sequence[str]) -> float:
        size = self.style.size
        return sum(_char_width(ch, f, size) for ch, f in zip(text, fonts))

    def _break(self, width: float) -> tuple[_Line, ...]:
        plain = self.plain
        fonts = self._fonts()
        spans: list[tuple[int, int]] = []
        offset = 0
        for para in plain.split("\n"):
            if self.lang == "ja":
                cursor = 0
                for line in break_lines(para, self.style.font, self.style.size, width, "ja"):
                    if not line:
                        spans.append((offset + cursor, offset + cursor))
                        continue
                    at = para.find(line, cursor)
                    if at < 0:  # cannot happen: lines are substrings; keep going safely
                        at = cursor
                    spans.append((offset + at, offset + at + len(line)))
                    cursor = at + len(line)
            else:
                spans.extend(self._break_latin(para, fonts[offset:offset + len(para)], width, offset))
            offset += len(para) + 1
        lines = []
        for a, b in spans:
            segs: list[tuple[str, str]] = []
            for i in range(a, b):
                if segs and segs[-1][1] == fonts[i]:
                    segs[-1] = (segs[-1][0] + plain[i], fonts[i])
                else:
                    segs.append((plain[i], fonts[i]))
            natural = self._measure(plain[a:b], fonts[a:b])
            squeeze = 0.0
            if natural > width + 0.01 and b - a > 1:
                squeeze = (width - natural) / (b - a)
                natural = width
            lines.append(_Line(tuple(segs), natural, squeeze))
        return tuple(lines)

    def _break_latin(self, text: str, fonts: Sequence[str], width: float, offset: int) -> list[tuple[int, int]]:
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        if not words:
            return [(offset, offset)]
        space = _char_width(" ", self.style.font, self.style.size)
        spans: list[tuple[int, int]] = []
        start = end = None
        used = 0.0
        for a, b in words:
            w = self._measure(text[a:b], fonts[a:b])
            if start is not None and used + space + w <= width + 0.01:
                end, used = b, used + space + w
                continue
            if start is not None:
                spans.append((offset + start, offset + end))
                start = None
            if w <= width + 0.01:
                start, end, used = a, b, w
                continue
            # A word longer than the line: break it between characters.
            piece_start, acc = a, 0.0
            for i in range(a, b):
                cw = _char_width(text[i], fonts[i], self.style.size)
                if acc + cw > width and i > piece_start:
                    spans.append((offset + piece_start, offset + i))
                    piece_start, acc = i, 0.0
                acc += cw
            start, end, used = piece_start, b, acc
        if start is not None:
            spans.append((offset + start, offset + end))
        return spans

    def _text_width(self, avail: float) -> float:
        return max(avail - self.style.left - self.style.right, 1.0)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        if self._fixed is None:
            width = self._text_width(availWidth)
            if self._width_for != width:
                self._lines = self._break(width)
                self._width_for = width
        self.width = availWidth
        self.height = len(self._lines) * self.style.leading
        return availWidth, self.height

    def natural_width(self) -> float:
        """Width of the longest hard line, unbroken (for sizing table columns)."""
        plain, fonts = self.plain, self._fonts()
        best, pos = 0.0, 0
        for para in plain.split("\n"):
            best = max(best, self._measure(para, fonts[pos:pos + len(para)]))
            pos += len(para) + 1
        return best + self.style.left + self.style.right

    def min_width(self) -> float:
        """Width of the longest unbreakable piece (a Latin word, or four Japanese characters)."""
        plain, fonts = self.plain, self._fonts()
        best = 0.0
        for m in re.finditer(r"[!-~]+", plain):
            best = max(best, self._measure(m.group(0), fonts[m.start():m.end()]))
        if self.lang == "ja" and any(ord(c) > 0x2E80 for c in plain):
            best = max(best, 4 * self.style.size)
        return best + self.style.left + self.style.right

    def getSpaceBefore(self) -> float:
        return self.style.space_before

    def getSpaceAfter(self) -> float:
        return self.style.space_after

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        self.wrap(availWidth, availHeight)
        n = len(self._lines)
        fit = int((availHeight + 1e-6) // self.style.leading)
        if fit >= n:
            return [self]
        if n - fit < 2:
            fit = n - 2
        if fit < 2:
            return []
        first = TextBlock(self.runs, self.lang, replace(self.style, space_after=0), self.bullet, self._lines[:fit])
        rest = TextBlock(self.runs, self.lang, replace(self.style, space_before=0), None, self._lines[fit:])
        return [first, rest]

    # -- drawing -----------------------------------------------------------------------
    def draw(self) -> None:
        canv = self.canv
        if _layout_only(canv):
            return
        st = self.style
        canv.setFillColorRGB(*st.color)
        inner = self.width - st.left - st.right
        ascent = st.size * 0.88
        y = self.height - (st.leading - st.size) / 2 - ascent
        for index, line in enumerate(self._lines):
            x = st.left
            if st.align == "center":
                x += (inner - line.width) / 2
            elif st.align == "right":
                x += inner - line.width
            if index == 0 and self.bullet:
                canv.setFont(st.font, st.size)
                canv.drawString(st.left - st.bullet_width, y, self.bullet)
            if line.segments:
                t = canv.beginText(x, y)
                t.setCharSpace(line.char_space)
                for text, font in line.segments:
                    t.setFont(font, st.size)
                    t.textOut(text)
                canv.drawText(t)
            y -= st.leading
        self.draw_extra()

    def draw_extra(self) -> None:
        pass


class Heading(TextBlock):
    """A chapter (level 1), section (2) or subsection (3); levels 1–2 go into the contents."""

    def __init__(self, text: str, lang: str, style: TStyle, level: int, key: str, number: str,
                 rule_color: tuple[float, float, float] | None = None) -> None:
        shown = f"{number}　{text}" if number and lang == "ja" else (f"{number}  {text}" if number else text)
        super().__init__([(shown, True)], lang, style)
        self.level = level
        self.key = key
        self.toc_text = shown
        self.rule_color = rule_color

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        return []

    def draw_extra(self) -> None:
        if self.rule_color:
            self.canv.setStrokeColorRGB(*self.rule_color)
            self.canv.setLineWidth(0.8)
            self.canv.line(0, -2.5, self.width, -2.5)


class _TocMark(Flowable):
    """An invisible contents entry, for a part that draws its own heading (the mapping appendix)."""

    def __init__(self, text: str, level: int, key: str) -> None:
        super().__init__()
        self.toc_text, self.level, self.key = text, level, key

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        pass


# ============================================================================ contents

class _TocLine(Flowable):
    def __init__(self, block: TextBlock, page: int, key: str, level: int, style: TStyle) -> None:
        super().__init__()
        self.block, self.page, self.key, self.level, self.style = block, page, key, level, style

    def wrap(self, aw, ah):
        self.width = aw
        self.page_w = pdfmetrics.stringWidth(str(self.page), self.style.font, self.style.size) + 4
        _, h = self.block.wrap(aw - self.page_w - 14, ah)
        self.height = h
        return aw, h

    def draw(self):
        canv = self.canv
        if _layout_only(canv):
            return
        self.block.drawOn(canv, 0, 0)
        st = self.style
        last = self.block._lines[-1] if self.block._lines else None
        y = (st.leading - st.size) / 2 + st.size * 0.12
        x_end = st.left + (last.width if last else 0) + 4
        x_num = self.width - self.page_w + 4
        canv.setFillColorRGB(*st.color)
        canv.setFont(st.font, st.size)
        canv.drawRightString(self.width, y, str(self.page))
        canv.setFillColorRGB(0.6, 0.6, 0.6)
        dot = "."
        gap = 2.2
        dw = pdfmetrics.stringWidth(dot, st.font, st.size) + gap
        x = x_end + 2
        # Align the dots on a grid so the leaders of all lines line up; one string with
        # character spacing puts the dots where one drawString per dot did.
        x = (int(x / dw) + 1) * dw
        count = max(0, math.ceil((x_num - dw - x) / dw))
        if count:
            canv.drawString(x, y, dot * count, charSpace=gap)
        canv.linkRect("", self.key, (0, 0, self.width, self.height), relative=1, thickness=0)


class Contents(Flowable):
    """The table of contents: filled from the headings of the previous pass (multiBuild)."""

    def __init__(self, lang: str, styles: dict[int, TStyle]) -> None:
        super().__init__()
        self.lang = lang
        self.styles = styles
        self._entries: list[tuple[int, str, int, str]] = []
        self._last: list[tuple[int, str, int, str]] = []
        self._parts: list[_TocLine] = []

    def isIndexing(self) -> int:
        return 1

    def isSatisfied(self) -> bool:
        return self._entries == self._last

    def notify(self, kind: str, stuff: Any) -> None:
        if kind == "TOCEntry":
            self._entries.append(stuff)

    def beforeBuild(self) -> None:
        self._last = list(self._entries)
        self._entries = []

    def afterBuild(self) -> None:
        pass

    def _lines(self) -> list[_TocLine]:
        out = []
        for level, text, page, key in self._last:
            st = self.styles[level]
            out.append(_TocLine(TextBlock([(text, level == 1)], self.lang, st), page, key, level, st))
        return out

    def wrap(self, aw, ah):
        self._parts = self._lines()
        h = 0.0
        for part in self._parts:
            h += part.wrap(aw, ah)[1] + part.style.space_before
        self.width, self.height = aw, max(h, 1.0)
        return aw, self.height

    def split(self, aw, ah):
        parts = self._lines()
        used, first = 0.0, []
        while parts:
            h = parts[0].wrap(aw, ah)[1] + parts[0].style.space_before
            if used + h > ah:
                break
            used += h
            first.append(parts.pop(0))
        if not first:
            return []
        return [_Stack(first), _Stack(parts)] if parts else [_Stack(first)]

    def draw(self):
        y = self.height
        for part in self._parts:
            y -= part.style.space_before + part.height
            part.drawOn(self.canv, 0, y)


class _Stack(Flowable):
    def __init__(self, parts: list[_TocLine]) -> None:
        super().__init__()
        self.parts = parts

    def wrap(self, aw, ah):
        self.width = aw
        self.height = sum(p.wrap(aw, ah)[1] + p.style.space_before for p in self.parts)
        return aw, self.height

    def draw(self):
        y = self.height
        for part in self.parts:
            y -= part.style.space_before + part.height
            part.drawOn(self.canv, 0, y)


# ============================================================================ figures

class Figure(Flowable):
    """A vector drawing of a play area described in templates/rulebook/figures/<game>.yaml.

    Coordinates are in card widths, from the top left; a card is 1 wide and as tall as the
    game's card proportions make it.
    """

    def __init__(self, spec: dict, lang: str, ratio: float, style: dict, fonts: tuple[str, str], max_card_mm: float = 15.0) -> None:
        super().__init__()
        self.spec, self.lang, self.ratio = spec, lang, ratio
        self.colours = style["colours"]
        self.gothic, self.mincho = fonts
        self.max_card = max_card_mm * mm
        items = spec["items"]
        self.w_units = float(spec.get("width") or max(self._extent(i)[0] for i in items))
        self.h_units = float(spec.get("height") or max(self._extent(i)[1] for i in items))
        self.keepWithNext = False

    def _extent(self, item: dict) -> tuple[float, float]:
        x, y = float(item.get("x", 0)), float(item.get("y", 0))
        kind = item["type"]
        if kind in ("zone",):
            return x + float(item["w"]), y + float(item["h"])
        if kind == "row":
            n = int(item["n"])
            step = float(item.get("step", 1.15))
            return x + (n - 1) * step + 1, y + self.ratio
        if kind in ("card", "slot", "deck"):
            if item.get("rotate"):
                return x + self.ratio, y + 1
            return x + 1, y + self.ratio
        if kind == "chips":
            return x + float(item.get("w", 2)), y + 0.5
        return x + 1, y + 0.3

    def wrap(self, aw, ah):
        self.unit = min(self.max_card, aw / self.w_units)
        self.width = aw
        self.height = self.h_units * self.unit
        return aw, self.height

    # helpers ---------------------------------------------------------------------------
    def _pt(self, x: float, y: float) -> tuple[float, float]:
        """Figure units (top-left origin) to canvas points (bottom-left origin)."""
        left = (self.width - self.w_units * self.unit) / 2
        return left + x * self.unit, self.height - y * self.unit

    def _label(self, value: Any) -> str:
        if isinstance(value, dict):
            return str(value.get(self.lang, ""))
        return "" if value is None else str(value)

    def _text_lines(self, text: str, size: float, width: float, font: str) -> list[str]:
        out: list[str] = []
        for part in text.split("\n"):
            out.extend(break_lines(part, font, size, width, self.lang))
        return out

    def _draw_text(self, text: str, cx: float, top: float, width: float, size: float, font: str,
                   align: str = "center", color: Sequence[float] | None = None) -> float:
        canv = self.canv
        canv.setFillColorRGB(*(color or self.colours["ink"]))
        canv.setFont(font, size)
        y = top - size
        for line in self._text_lines(text, size, width, font):
            if align == "center":
                canv.drawCentredString(cx, y, line)
            else:
                canv.drawString(cx, y, line)
            y -= size * 1.2
        return y

    def _card(self, x: float, y: float, face: str, text: str, rotate: bool = False, dashed: bool = False,
              mark: str = "") -> None:
        canv = self.canv
        w, h = (self.ratio, 1.0) if rotate else (1.0, self.ratio)
        x0, y1 = self._pt(x, y)
        pw, ph = w * self.unit, h * self.unit
        r = 0.06 * self.unit
        canv.setLineWidth(0.6)
        if dashed:
            canv.setDash(2, 2)
            canv.setStrokeColorRGB(*self.colours["muted"])
            canv.roundRect(x0, y1 - ph, pw, ph, r, stroke=1, fill=0)
            canv.setDash()
        elif face == "down":
            canv.setStrokeColorRGB(*self.colours["ink"])
            canv.setFillColorRGB(*self.colours["card_back"])
            canv.roundRect(x0, y1 - ph, pw, ph, r, stroke=1, fill=1)
            # A simple lattice so a face-down card reads as a back even in grey print.
            canv.saveState()
            p = canv.beginPath()
            p.roundRect(x0, y1 - ph, pw, ph, r)
            canv.clipPath(p, stroke=0, fill=0)
            canv.setStrokeColorRGB(1, 1, 1)
            canv.setLineWidth(0.35)
            step = 0.18 * self.unit
            k = -ph
            while k < pw + ph:
                canv.line(x0 + k, y1 - ph, x0 + k + ph, y1)
                canv.line(x0 + k + ph, y1 - ph, x0 + k, y1)
                k += step
            canv.restoreState()
        else:
            canv.setStrokeColorRGB(*self.colours["ink"])
            canv.setFillColorRGB(*self.colours["card_face"])
            canv.roundRect(x0, y1 - ph, pw, ph, r, stroke=1, fill=1)
        if text:
            size = max(min(0.16 * self.unit, 7.5), 5.0)
            lines = self._text_lines(text, size, pw - 0.12 * self.unit, self.gothic)
            total = len(lines) * size * 1.2
            top = y1 - ph / 2 + total / 2
            color = self.colours["muted"] if dashed else self.colours["ink"]
            if face == "down" and not dashed:
                widest = max(pdfmetrics.stringWidth(l, self.gothic, size) for l in lines)
                canv.setFillColorRGB(1, 1, 1)
                canv.roundRect(x0 + pw / 2 - widest / 2 - 2, top - total - 1.5, widest + 4, total + 2.5, 1.5, stroke=0, fill=1)
            self._draw_text(text, x0 + pw / 2, top, pw - 0.12 * self.unit, size, self.gothic, color=color)
        if mark:
            size = max(min(0.14 * self.unit, 6.5), 4.5)
            mw = pdfmetrics.stringWidth(mark, self.gothic, size)
            mx, my = x0 + 0.06 * self.unit, y1 - size - 0.06 * self.unit
            canv.setFillColorRGB(1, 1, 1)
            canv.roundRect(mx - 1.2, my - 1.5, mw + 2.4, size + 2.5, 1.2, stroke=0, fill=1)
            canv.setFillColorRGB(*self.colours["accent"])
            canv.setFont(self.gothic, size)
            canv.drawString(mx, my, mark)

    def draw(self) -> None:
        canv = self.canv
        if _layout_only(canv):
            return
        label_size = max(min(0.15 * self.unit, 7.5), 5.5)
        for item in self.spec["items"]:
            kind = item["type"]
            x, y = float(item.get("x", 0)), float(item.get("y", 0))
            if kind == "zone":
                w, h = float(item["w"]), float(item["h"])
                x0, y1 = self._pt(x, y)
                canv.setFillColorRGB(*self.colours["zone_fill"])
                canv.setStrokeColorRGB(*self.colours["rule"])
                canv.setLineWidth(0.6)
                canv.setDash(3, 2)
                canv.roundRect(x0, y1 - h * self.unit, w * self.unit, h * self.unit, 0.08 * self.unit, stroke=1, fill=1)
                canv.setDash()
                label = self._label(item.get("label"))
                if label:
                    pos = item.get("label_at", "top")
                    if pos == "bottom":
                        top = y1 - h * self.unit + label_size * 1.2 * len(self._text_lines(label, label_size, w * self.unit - 6, self.gothic)) + 2
                    else:
                        top = y1 - 2
                    self._draw_text(label, x0 + 3, top, w * self.unit - 6, label_size, self.gothic, align="left",
                                    color=self.colours["accent"])
            elif kind in ("card", "slot"):
                self._card(x, y, item.get("face", "up"), self._label(item.get("text")), bool(item.get("rotate")),
                           dashed=kind == "slot", mark=self._label(item.get("mark")))
            elif kind == "deck":
                depth = int(item.get("depth", 3))
                for k in range(depth, 0, -1):
                    self._card(x + 0.035 * k, y - 0.035 * k, item.get("face", "down"), "")
                self._card(x, y, item.get("face", "down"), self._label(item.get("text")))
            elif kind == "row":
                n = int(item["n"])
                step = float(item.get("step", 1.15))
                faces = item.get("faces") or [item.get("face", "up")] * n
                texts = item.get("texts") or [item.get("text")] * n
                marks = item.get("marks") or [item.get("mark")] * n
                for k in range(n):
                    kind_k = "slot" if faces[k % len(faces)] == "slot" else "card"
                    self._card(x + k * step, y, faces[k % len(faces)], self._label(texts[k % len(texts)]),
                               dashed=kind_k == "slot", mark=self._label(marks[k % len(marks)]))
            elif kind == "chips":
                n = int(item["n"])
                w = float(item.get("w", 2))
                r = 0.11 * self.unit
                per_row = max(1, int(w * self.unit // (2.3 * r)))
                for k in range(n):
                    cx, cy = self._pt(x, y)
                    cx += r + (k % per_row) * 2.3 * r
                    cy -= r + (k // per_row) * 2.3 * r
                    canv.setFillColorRGB(*self.colours.get("chip", self.colours["decision_bar"]))
                    canv.setStrokeColorRGB(*self.colours["ink"])
                    canv.setLineWidth(0.5)
                    canv.circle(cx, cy, r, stroke=1, fill=1)
                label = self._label(item.get("text"))
                if label:
                    cx, cy = self._pt(x, y)
                    rows = (n + per_row - 1) // per_row
                    self._draw_text(label, cx, cy - rows * 2.3 * r - 1, w * self.unit, label_size, self.gothic, align="left")
            elif kind == "text":
                cx, cy = self._pt(x, y)
                w = float(item.get("w", 2)) * self.unit
                align = item.get("align", "left")
                size = float(item.get("size", label_size))
                self._draw_text(self._label(item.get("text")), cx + (w / 2 if align == "center" else 0), cy, w, size,
                                self.gothic, align=align, color=self.colours.get(item.get("colour", "ink")))
            elif kind == "arrow":
                (ax, ay), (bx, by) = item["from"], item["to"]
                p0, p1 = self._pt(float(ax), float(ay)), self._pt(float(bx), float(by))
                canv.setStrokeColorRGB(*self.colours["accent"])
                canv.setFillColorRGB(*self.colours["accent"])
                canv.setLineWidth(0.9)
                canv.line(*p0, *p1)
                ang = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
                hl = 0.12 * self.unit
                path = canv.beginPath()
                path.moveTo(*p1)
                path.lineTo(p1[0] - hl * math.cos(ang - 0.4), p1[1] - hl * math.sin(ang - 0.4))
                path.lineTo(p1[0] - hl * math.cos(ang + 0.4), p1[1] - hl * math.sin(ang + 0.4))
                path.close()
                canv.drawPath(path, stroke=0, fill=1)
            else:
                raise ValueError(f"unknown figure item type {kind!r}")


# ============================================================================ markdown

@dataclass
class Block:
    kind: str            # heading, para, item, table, note, directive
    text: str = ""
    level: int = 0
    marker: str = ""     # list marker ("-" or "3.")
    rows: list[list[str]] | None = None
    index: int = -1      # directive number
    line: int = 0


_BLOCK_RE = re.compile(r"^\s*@@BLOCK(\d+)@@\s*$")
_ITEM_RE = re.compile(r"^(\s*)(-|\*|\d+[.)])\s+(.*)$")


def _join(lines: list[str], lang: str) -> str:
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.endswith("\\"):  # explicit line break
            line = line[:-1].rstrip() + "\n"
        if out and not out.endswith("\n"):
            a, b = out[-1], line[0]
            if lang != "ja" or (a.isascii() and b.isascii()):
                out += " "
        out += line
    return out.rstrip("\n")


def parse_markdown(text: str, lang: str, nonce: str | None = None) -> list[Block]:
    """Split rendered Markdown into blocks (directive markers carry the builder's `nonce`)."""
    block_re = _BLOCK_RE if nonce is None else re.compile(rf"^\s*@@BLOCK(\d+)\.{re.escape(nonce)}@@\s*$")
    blocks: list[Block] = []
    lines = text.split("\n")
    i = 0
    para: list[str] = []
    para_line = 0

    def flush() -> None:
        nonlocal para
        if para:
            blocks.append(Block("para", _join(para, lang), line=para_line))
            para = []

    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        m_block = block_re.match(raw)
        if not stripped:
            flush()
            i += 1
            continue
        if m_block:
            flush()
            blocks.append(Block("directive", index=int(m_block.group(1)), line=i + 1))
            i += 1
            continue
        if stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            blocks.append(Block("heading", stripped[level:].strip(), level=level, line=i + 1))
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            rows = []
            aligns: list[str] = []
            start = i
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if all(re.fullmatch(r":?-+:?", c) for c in cells):
                    aligns = ["right" if c.endswith(":") and not c.startswith(":") else
                              "center" if c.startswith(":") and c.endswith(":") else "left" for c in cells]
                else:
                    rows.append(cells)
                i += 1
            blocks.append(Block("table", rows=rows, line=start + 1, marker=",".join(aligns)))
            continue
        if stripped.startswith(">"):
            flush()
            note: list[str] = []
            start = i
            while i < len(lines) and lines[i].strip().startswith(">"):
                note.append(lines[i].strip()[1:].strip() or "\n")
                i += 1
            paras = "\n".join(note).split("\n\n")
            blocks.append(Block("note", "\n".join(_join(p.split("\n"), lang) for p in paras), line=start + 1))
            continue
        m_item = _ITEM_RE.match(raw)
        if m_item and not para:
            indent = len(m_item.group(1).replace("\t", "  "))
            item_lines = [m_item.group(3)]
            start = i
            i += 1
            while i < len(lines) and lines[i].strip() and not _ITEM_RE.match(lines[i]) \
                    and not block_re.match(lines[i]) and lines[i].startswith(" "):
                item_lines.append(lines[i])
                i += 1
            blocks.append(Block("item", _join(item_lines, lang), level=indent // 2, marker=m_item.group(2), line=start + 1))
            continue
        if not para:
            para_line = i + 1
        para.append(raw)
        i += 1
    flush()
    return blocks


# ============================================================================ the book

class _DocTemplate(BaseDocTemplate):
    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, (Heading, _TocMark)) and flowable.level <= 2:
            self.canv.bookmarkPage(flowable.key)
            self.canv.addOutlineEntry(flowable.toc_text, flowable.key, flowable.level - 1, closed=flowable.level > 1)
            self.notify("TOCEntry", (flowable.level, flowable.toc_text, self.page, flowable.key))


class _PageTotal(Flowable):
    """Remembers the page count of the previous pass, so pages can say "n / total".

    It is an indexing flowable: multiBuild runs another pass until the count is stable.
    """

    def __init__(self, doc: BaseDocTemplate) -> None:
        super().__init__()
        self.doc = doc
        self.last: int | None = None
        self.current: int | None = None

    def isIndexing(self) -> int:
        return 1

    def isSatisfied(self) -> bool:
        return self.last is not None and self.last == self.current

    def beforeBuild(self) -> None:
        self.last = self.current

    def afterBuild(self) -> None:
        self.current = self.doc.page

    def notify(self, kind: str, stuff: Any) -> None:
        pass

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        pass


def _page_decorator(header: str, footer_fmt: str, style: dict, fonts: tuple[str, str], total: _PageTotal) -> Callable:
    page = style["page"]
    colours = style["colours"]
    gothic, _ = fonts

    def decorate(canv: Canvas, doc: BaseDocTemplate) -> None:
        if _layout_only(canv):
            return
        w, h = doc.pagesize
        number = canv.getPageNumber()
        canv.saveState()
        canv.setFont(gothic, 8)
        canv.setFillColorRGB(*colours["muted"])
        if number > 1:
            canv.drawString(page["margin_inner"] * mm, h - page["header_offset"] * mm, header)
            canv.setStrokeColorRGB(*colours["rule"])
            canv.setLineWidth(0.4)
            y = h - page["header_offset"] * mm - 3
            canv.line(page["margin_inner"] * mm, y, w - page["margin_outer"] * mm, y)
        shown = total.last if total.last is not None else "?"
        canv.drawCentredString(w / 2, page["footer_offset"] * mm, footer_fmt.format(page=number, total=shown))
        canv.restoreState()

    return decorate


class _Canvas(Canvas):
    """A canvas whose initial font is an embedded one (never the non-embedded Helvetica)."""

    layout_only = False

    def __init__(self, *args, **kwargs):
        kwargs["initialFontName"] = register_fonts()[0]
        kwargs["initialFontSize"] = 9
        super().__init__(*args, **kwargs)


class _LayoutCanvas(_Canvas):
    """The canvas of multiBuild's first pass, which only finds where headings fall and how many
    pages there are: that pass is never the one saved (the page total is unknown until it
    ends), so our flowables skip their drawing on it (see `_layout_only`)."""

    layout_only = True


def _layout_only(canv) -> bool:
    return getattr(canv, "layout_only", False)


def _canvas_maker() -> Callable:
    """multiBuild's canvasmaker: a layout-only canvas for the first pass, real ones after."""
    made = []

    def make(*args, **kwargs):
        made.append(None)
        return (_LayoutCanvas if len(made) == 1 else _Canvas)(*args, **kwargs)

    return make


class _Builder:
    """Turns one game's rules text into flowables."""

    def __init__(self, game: Game, lang: str) -> None:
        if lang not in LANGS:
            raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
        self.game = game
        self.lang = lang
        self.style = load_style(game)
        self.labels = self.style["labels"][lang]
        self.fonts = register_fonts()
        fonts = self.style["fonts"]
        self.body_font, self.strong_font = fonts["body"], fonts["strong"]
        self.col = {k: tuple(v) for k, v in self.style["colours"].items()}
        self.types = self.style["type"][lang]
        self.directives: list[tuple[Callable[[], list[Flowable]], int]] = []  # (build, line in the rules text)
        self.nonce = secrets.token_hex(6)  # directive markers a rules text cannot forge
        self._rendering: Any = None  # the compiled rules text while it renders
        self._figures: dict | None = None
        self.decision_numbers = {d.id: n for n, d in enumerate(game.decisions, 1)}
        self.used_decisions_list = False
        self.counters = [0, 0, 0]
        self.keys = 0
        self.source_path = game.root / f"rules.{lang}.md"
        self.shown = display_path(self.source_path)

    # -- styles ----------------------------------------------------------------------------
    def ts(self, kind: str = "body", **kw: Any) -> TStyle:
        t = self.types[kind]
        base = TStyle(self.body_font, self.strong_font, float(t["size"]), float(t["leading"]), self.col["ink"])
        return replace(base, **kw)

    def t(self, value: Any) -> str:
        if isinstance(value, Text):
            return value.get(self.lang)
        if isinstance(value, dict) and self.lang in value:
            return str(value[self.lang])
        return "" if value is None else str(value)

    # -- data helpers -------------------------------------------------------------------------
    def param(self, path: str) -> Any:
        head, *rest = str(path).split(".")
        value = self.game.param(head)
        for part in rest:
            if isinstance(value, dict):
                if part in value:
                    value = value[part]
                elif part.isdigit() and int(part) in value:
                    value = value[int(part)]
                else:
                    raise KeyError(f"{self.game.id}: rule parameter {path!r} has no {part!r}")
            elif isinstance(value, list) and part.isdigit():
                value = value[int(part)]
            else:
                raise KeyError(f"{self.game.id}: rule parameter {path!r} has no {part!r}")
        return value

    def card_type(self, type_id: str) -> CardType:
        try:
            return self.game.card_type(type_id)
        except KeyError:
            raise KeyError(f"{self.game.id}: no card type {type_id!r} in cards.yaml") from None

    def field_label(self, name: str) -> str:
        spec = self.game.field_specs.get(name)
        if spec is None:
            raise KeyError(f"{self.game.id}: no card field {name!r} in game.yaml card_fields")
        return self.t(spec.label) if spec.label else name

    def value_text(self, field: str, value: Any, labels: dict) -> str:
        table = labels.get(field, {})
        if value in table:
            return self.t(table[value])
        if isinstance(value, Text):
            return value.get(self.lang)
        if isinstance(value, bool):
            return "✓" if value else "–"
        return "" if value is None else str(value)

    def sep(self) -> str:
        return "、" if self.lang == "ja" else ", "

    def id_ranges(self, cards: Sequence[Card]) -> str:
        ids = [c.id for c in cards]
        all_ids = [c.id for c in self.game.cards]
        pos = [all_ids.index(i) for i in ids]
        groups: list[list[int]] = []
        for p in pos:
            if groups and p == groups[-1][-1] + 1:
                groups[-1].append(p)
            else:
                groups.append([p])
        parts = [all_ids[g[0]] if len(g) == 1 else f"{all_ids[g[0]]}–{all_ids[g[-1]]}" for g in groups]
        return self.sep().join(parts)

    def players_text(self) -> str:
        g = self.game
        if g.min_players == g.max_players:
            return self.labels["players_value_one"].format(min=g.min_players)
        return self.labels["players_value"].format(min=g.min_players, max=g.max_players)

    def filter_types(self, types: Iterable[str] | None, where: dict | None) -> list[CardType]:
        chosen = [self.card_type(t) for t in types] if types else list(self.game.card_types)
        if where:
            chosen = [ct for ct in chosen
                      if all(any(c.get(k) == v for c in self.game.cards_of(ct.id)) for k, v in where.items())]
        return chosen

    # -- directives ---------------------------------------------------------------------------
    def directive(self, build: Callable[[], list[Flowable]]) -> str:
        self.directives.append((build, self._template_line()))
        return f"\n@@BLOCK{len(self.directives) - 1}.{self.nonce}@@\n"

    def _template_line(self) -> int:
        """The line of the rules text whose {{ }} is calling now (a directive's place, for its errors)."""
        template = self._rendering
        frame = sys._getframe(1)
        while frame is not None and template is not None:
            if frame.f_code.co_filename == "<template>":
                try:
                    return int(template.get_corresponding_lineno(frame.f_lineno))
                except (AttributeError, TypeError, ValueError):
                    return 1
            frame = frame.f_back
        return 1

    def context(self) -> dict[str, Any]:
        g = self.game
        b = self

        def name(type_id: str) -> str:
            return b.t(b.card_type(type_id).name)

        def count(type_id: str) -> int:
            return b.card_type(type_id).count

        def count_where(**where: Any) -> int:
            return sum(1 for c in g.cards if all(c.get(k) == v for k, v in where.items()))

        def field(type_id: str, field_name: str, copy: int = 1) -> Any:
            """A field's value on a card type (shared, or that of copy `copy`), in the book's language."""
            cards = g.cards_of(b.card_type(type_id).id)
            if not 1 <= copy <= len(cards):
                raise KeyError(f"{g.id}: card type {type_id!r} has no copy {copy}")
            value = cards[copy - 1].get(field_name)
            if value is None:
                raise KeyError(f"{g.id}: card type {type_id!r} has no field {field_name!r}")
            return b.t(value) if isinstance(value, Text) else value

        def cards_text(n: int) -> str:
            return b.labels["cards_unit"].format(n=n)

        def index_by(seq: Iterable[Any], key: str, value: str) -> dict:
            """{item[key]: item[value]} for a list of mappings (templates cannot mutate a dict)."""
            out = {}
            for x in seq:
                if not isinstance(x, dict) or key not in x or value not in x:
                    raise KeyError(f"index_by: every item needs '{key}' and '{value}'")
                out[x[key]] = x[value]
            return out

        def find(seq: Iterable[Any], **kw: Any) -> Any:
            for x in seq:
                if all(x.get(k) == v for k, v in kw.items()):
                    return x
            raise KeyError(f"find: nothing has {', '.join(f'{k}={v!r}' for k, v in kw.items())}")

        def decision_ref(did: str) -> str:
            if did not in b.decision_numbers:
                raise KeyError(f"{g.id}: no decision {did!r} in game.yaml decisions")
            return f"D{b.decision_numbers[did]}"

        return {
            "game": g, "lang": b.lang, "total": g.total, "t": b.t, "param": b.param, "name": name, "count": count,
            "count_where": count_where, "field": field, "cards": cards_text, "players": b.players_text(), "ref": decision_ref,
            "component_list": lambda **kw: b.directive(lambda: b.component_list(**kw)),
            "card_table": lambda **kw: b.directive(lambda: b.card_table(**kw)),
            "card_details": lambda **kw: b.directive(lambda: b.card_details(**kw)),
            "decisions": lambda: b.directive(b.decisions_list),
            "decision": lambda did: b.directive(lambda: b.decision_box(did)),
            "figure": lambda fig, **kw: b.directive(lambda: b.figure(fig, **kw)),
            "play_area_diagram": lambda **kw: b.directive(lambda: b.figure("play_area", **kw)),
            "setup_figure": lambda **kw: b.directive(lambda: b.figure("setup", **kw)),
            "appendix": lambda title="": b.directive(lambda: b.appendix(title)),
            "find": find, "index_by": index_by,
            "pagebreak": lambda: b.directive(lambda: [PageBreak()]),
        }

    # -- generated parts ---------------------------------------------------------------------
    def cell(self, text: str, head: bool = False, align: str = "left", kind: str = "table") -> TextBlock:
        return TextBlock(text, self.lang, self.ts(kind, all_strong=head, align=align))

    def table(self, rows: list[list[Any]], header_rows: int = 1, widths: Sequence[float | None] | None = None,
              align: Sequence[str] | None = None, shade_rows: Sequence[int] = (), bold_rows: Sequence[int] = (),
              width: float | None = None) -> Table:
        """A table of text cells that fills the frame width; column widths follow the content."""
        avail = width or self.frame_width
        n = max(len(r) for r in rows)
        align = list(align or ["left"] * n)
        cells: list[list[Any]] = []
        for ri, row in enumerate(rows):
            out = []
            for ci in range(n):
                value = row[ci] if ci < len(row) else ""
                if isinstance(value, Flowable) or isinstance(value, list):
                    out.append(value)
                else:
                    out.append(self.cell(str(value), head=ri < header_rows or ri in bold_rows, align=align[ci]))
            cells.append(out)
        pad = 4.0
        col_w = self._column_widths(cells, avail, pad, widths)
        t = Table(cells, colWidths=col_w, repeatRows=header_rows, hAlign="LEFT")
        cmds = [
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), pad), ("RIGHTPADDING", (0, 0), (-1, -1), pad),
            ("TOPPADDING", (0, 0), (-1, -1), 2.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
            ("LINEBELOW", (0, 0), (-1, -1), 0.35, self.col["rule"]),
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, self.col["accent"]),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, self.col["accent"]),
        ]
        if header_rows:
            cmds.append(("BACKGROUND", (0, 0), (-1, header_rows - 1), self.col["header_fill"]))
        for r in shade_rows:
            cmds.append(("BACKGROUND", (0, r), (-1, r), self.col["zebra_fill"]))
        t.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), self.strong_font)] + cmds))
        return t

    def _column_widths(self, cells: list[list[Any]], avail: float, pad: float,
                       fixed: Sequence[float | None] | None) -> list[float]:
        n = len(cells[0])
        nat = [0.0] * n
        low = [0.0] * n
        for row in cells:
            for ci, c in enumerate(row):
                blocks = c if isinstance(c, list) else [c]
                for b in blocks:
                    if isinstance(b, TextBlock):
                        nat[ci] = max(nat[ci], b.natural_width() + 2 * pad + 0.5)
                        low[ci] = max(low[ci], b.min_width() + 2 * pad + 0.5)
                    else:
                        nat[ci] = max(nat[ci], avail / n)
                        low[ci] = max(low[ci], 30)
        widths = [0.0] * n
        if fixed:
            for ci, f in enumerate(fixed):
                if f:
                    widths[ci] = f * avail if f <= 1 else f
        free = [ci for ci in range(n) if not widths[ci]]
        left = avail - sum(widths)
        if sum(nat[ci] for ci in free) <= left:
            extra = left - sum(nat[ci] for ci in free)
            # Give the spare room to the wide (text) columns, in proportion.
            wide = [ci for ci in free if nat[ci] > 0.2 * avail] or free
            total_wide = sum(nat[ci] for ci in wide) or 1
            for ci in free:
                widths[ci] = nat[ci] + (extra * nat[ci] / total_wide if ci in wide else 0)
            return widths
        # Too wide: narrow columns keep their natural width; the others share the rest so that a
        # column needing less than an equal share gets what it needs (water-filling).
        narrow = [ci for ci in free if nat[ci] <= 0.16 * avail]
        for ci in narrow:
            widths[ci] = nat[ci]
        wide = sorted((ci for ci in free if ci not in narrow), key=lambda c: nat[c])
        rest = left - sum(widths[ci] for ci in narrow)
        for k, ci in enumerate(wide):
            weight = sum(nat[c] ** 0.5 for c in wide[k:]) or 1
            share = rest * nat[ci] ** 0.5 / weight
            widths[ci] = max(low[ci], min(nat[ci], share))
            rest -= widths[ci]
        over = sum(widths) - avail
        if over > 0.5:  # minimums pushed it over: take it back from the widest columns
            for ci in sorted(wide, key=lambda c: -widths[c]):
                take = min(over, widths[ci] - low[ci])
                widths[ci] -= take
                over -= take
                if over <= 0.5:
                    break
        return widths

    def component_list(self, group: str | None = None, group_labels: dict | None = None, ids: bool = True,
                       notes: bool = True) -> list[Flowable]:
        """Every card type with its count and card numbers, subtotals per group, the total, then other components."""
        L = self.labels
        head = [L["card"], L["count"]] + ([L["ids_notes"] if self.game.components else L["ids"]] if ids or self.game.components else [])
        width = len(head)
        rows: list[list[Any]] = [head]
        shade: list[int] = []
        bold: list[int] = []
        types = list(self.game.card_types)
        groups: list[tuple[str | None, list[CardType]]] = []
        if group:
            for ct in types:
                value = self.game.cards_of(ct.id)[0].get(group)
                if not groups or groups[-1][0] != value:
                    groups.append((value, []))
                groups[-1][1].append(ct)
        else:
            groups = [(None, types)]
        for value, members in groups:
            if value is not None:
                label = self.value_text(group, value, {group: group_labels or {}})
                n = sum(ct.count for ct in members)
                shade.append(len(rows))
                bold.append(len(rows))
                rows.append([label, L["cards_unit"].format(n=n)] + [""] * (width - 2))
            for ct in members:
                extra = [self.id_ranges(self.game.cards_of(ct.id)) if ids else ""] if width > 2 else []
                rows.append([self.t(ct.name), str(ct.count)] + extra)
        bold.append(len(rows))
        shade.append(len(rows))
        rows.append([f"{L['card']} {L['total']}" if self.lang == "en" else f"{L['card']}　{L['total']}",
                     L["cards_unit"].format(n=self.game.total)] + [""] * (width - 2))
        for comp in self.game.components:
            note = self.t(comp.note) if (notes and comp.note) else ""
            rows.append([self.t(comp.name), "—" if comp.count is None else str(comp.count), note][:width])
        t = self.table(rows, align=["left", "right", "left"], shade_rows=shade, bold_rows=bold)
        t.spaceBefore, t.spaceAfter = 2, 8
        return [t]

    def card_table(self, columns: Sequence[str] | None = None, types: Sequence[str] | None = None,
                   where: dict | None = None, labels: dict | None = None, headers: dict | None = None,
                   ids: bool = False, widths: dict | None = None, emphasis: Sequence[str] = (),
                   labelled: Sequence[str] = ()) -> list[Flowable]:
        """One row per card type (and per distinct text among its copies): name, count, values, texts.

        A column "a+b" stacks fields a and b in one cell; fields in `emphasis` are set in bold
        quotes (a declaration), fields in `labelled` get their label in front ("Success: ...").
        """
        labels = labels or {}
        headers = headers or {}
        specs = self.game.field_specs
        if columns is None:
            columns = [n for n, s in specs.items() if s.kind != "text"] + [n for n, s in specs.items() if s.kind == "text"][:1]
        cols = [c.split("+") for c in columns]
        for c in cols:
            for f in c:
                self.field_label(f)
        text_fields = [f for c in cols for f in c if specs[f].kind == "text"]
        head = [self.labels["card"]] + [headers.get("+".join(c), self.field_label(c[0])) for c in cols] + [self.labels["count"]]
        if ids:
            head.append(self.labels["ids"])
        rows: list[list[Any]] = [head]
        aligns = ["left"] + ["left"] * len(cols) + ["right"] + (["left"] if ids else [])
        for ct in self.filter_types(types, where):
            cards = [c for c in self.game.cards_of(ct.id)
                     if not where or all(c.get(k) == v for k, v in where.items())]
            groups: dict[tuple, list[Card]] = {}
            for c in cards:
                key = tuple(self.t(c.get(f)) for f in text_fields)
                groups.setdefault(key, []).append(c)
            for members in groups.values():
                row: list[Any] = [self.t(ct.name)]
                for c in cols:
                    parts = []
                    for f in c:
                        values: list[str] = []
                        for m in members:
                            v = self.value_text(f, m.get(f), labels)
                            if v and v not in values:
                                values.append(v)
                        if values:
                            text = self.sep().join(values)
                            if f in emphasis:
                                text = f"**{('「' + text + '」') if self.lang == 'ja' else ('“' + text + '”')}**"
                            if f in labelled:
                                text = f"**{self.field_label(f)}**{'：' if self.lang == 'ja' else ': '}{text}"
                            parts.append(text)
                    row.append([self.cell(p) for p in parts] if len(parts) > 1 else (parts[0] if parts else "–"))
                row.append(str(len(members)))
                if ids:
                    row.append(self.id_ranges(members))
                rows.append(row)
        fixed = None
        if widths:
            keys = ["name"] + ["+".join(c) for c in cols] + ["count"] + (["ids"] if ids else [])
            fixed = [widths.get(k) for k in keys]
        t = self.table(rows, align=aligns, widths=fixed)
        t.spaceBefore, t.spaceAfter = 2, 8
        return [t]

    def card_details(self, fields: Sequence[str], types: Sequence[str] | None = None, where: dict | None = None,
                     title: Sequence[str] = (), labels: dict | None = None, show_labels: bool = True) -> list[Flowable]:
        """A block per card type: its name, count and values, then each text field in full."""
        labels = labels or {}
        out: list[Flowable] = []
        for f in list(fields) + list(title):
            self.field_label(f)
        for ct in self.filter_types(types, where):
            cards = [c for c in self.game.cards_of(ct.id) if not where or all(c.get(k) == v for k, v in where.items())]
            bits = []
            for f in title:
                vals: list[str] = []
                for c in cards:
                    v = self.value_text(f, c.get(f), labels)
                    if v and v not in vals:
                        vals.append(v)
                if vals:
                    bits.append(f"{self.field_label(f)} {self.sep().join(vals)}")
            count = self.labels["copies_of"].format(n=len(cards))
            if self.lang == "ja":
                head = f"**{self.t(ct.name)}**　" + "　".join(bits + [count])
            else:
                head = f"**{self.t(ct.name)}**   " + "   ".join(bits + [f"×{count}"])
            out.append(CondPageBreak(3.5 * self.types["body"]["leading"]))
            out.append(TextBlock(head, self.lang, self.ts("body", space_before=6, color=self.col["ink"])))
            for f in fields:
                seen: list[str] = []
                for c in cards:
                    v = self.t(c.get(f))
                    if v and v not in seen:
                        seen.append(v)
                for v in seen:
                    prefix = f"**{self.field_label(f)}**{'：' if self.lang == 'ja' else ': '}" if show_labels else ""
                    out.append(TextBlock(prefix + v, self.lang, self.ts("body", left=12, space_after=1)))
        return out

    def appendix(self, title: str) -> list[Flowable]:
        """The standard-deck appendix from the mapping hook, under its own heading when there is one."""
        content = appendix_flowables(self.game, self.lang)
        if not content:
            return []
        if not title:
            return [PageBreak(), *content]
        self.keys += 1
        return [PageBreak(), _TocMark(title, 1, f"h{self.keys}"), *content]

    def decision_box(self, did: str) -> list[Flowable]:
        d = next((d for d in self.game.decisions if d.id == did), None)
        if d is None:
            raise KeyError(f"{self.game.id}: no decision {did!r} in game.yaml decisions")
        return [self._decision_table([d])]

    def _decision_table(self, decisions: Sequence[Any]) -> Table:
        rows = []
        for d in decisions:
            n = self.decision_numbers[d.id]
            head = f"{self.labels['decision']} D{n}"
            rows.append([
                TextBlock([(head, True)], self.lang, self.ts("small", color=self.col["accent"])),
                TextBlock(d.text.get(self.lang), self.lang, self.ts("small")),
            ])
        col0 = max(r[0].natural_width() for r in rows) + 16
        t = Table(rows, colWidths=[col0, self.frame_width - col0], hAlign="LEFT")
        t.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), self.strong_font),
            
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("BACKGROUND", (0, 0), (-1, -1), self.col["decision_fill"]),
            ("LINEBEFORE", (0, 0), (0, -1), 2.2, self.col["decision_bar"]),
            ("LINEBELOW", (0, 0), (-1, -2), 0.3, self.col["rule"]),
            ("LEFTPADDING", (0, 0), (-1, -1), 5), ("RIGHTPADDING", (0, 0), (-1, -1), 5),
            ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ]))
        t.spaceBefore, t.spaceAfter = 4, 6
        return t

    def decisions_list(self) -> list[Flowable]:
        self.used_decisions_list = True
        if not self.game.decisions:
            return []
        intro = self.labels["decisions_intro"].format(source=self.game.source or "—")
        out: list[Flowable] = [TextBlock(intro, self.lang, self.ts("body", space_after=4))]
        out.append(self._decision_table(self.game.decisions))
        return out

    def figures(self) -> dict:
        """The game's figures (rendered in the sandbox, then read through the schema reader), once per book."""
        if self._figures is not None:
            return self._figures
        path = figures_path(self.game)
        if path is None:
            raise KeyError(f"{self.game.id}: no figures; write templates/figures.yaml in the game folder")
        shown = display_path(path)
        # `+%}` keeps the line break after a block tag, so a YAML problem is at its line in the file
        source = _KEEP_LINES.sub("+%}", read_text(path, shown))
        rendered = sandbox.render(source, self.context(), Location(shown, 1, 1), "figure template")
        r = SchemaReader()
        node = compose(rendered, shown)
        if node is None:
            raise DataError([Problem(Location(shown, 1, 1), "the figures file is empty; describe at least one figure")])
        figures = _check_figures(r, node, self.style["colours"])
        r.raise_if_any()
        self._figures = figures
        return figures

    def figure(self, name: str, caption: bool = True, max_card_mm: float | None = None) -> list[Flowable]:
        figures = self.figures()
        if name not in figures:
            raise KeyError(f"{self.game.id}: no figure {name!r} in the figures file (has: {', '.join(figures)})")
        if max_card_mm is not None and (not isinstance(max_card_mm, (int, float)) or isinstance(max_card_mm, bool)
                                        or not 3 <= max_card_mm <= 60):
            raise ValueError(f"figure {name!r}: max_card_mm must be a number of mm from 3 to 60")
        spec = figures[name]
        w_mm, h_mm = _card_mm(self.game.card_size)
        fig = Figure(spec, self.lang, h_mm / w_mm, self.style, self.fonts,
                     max_card_mm or float(spec.get("card_mm", 15)))
        out: list[Flowable] = [fig]
        if caption and spec.get("caption"):
            self.counters_fig = getattr(self, "counters_fig", 0) + 1
            text = f"{self.labels['figure']} {self.counters_fig}　{self.t(spec['caption'])}" if self.lang == "ja" else \
                f"{self.labels['figure']} {self.counters_fig}. {self.t(spec['caption'])}"
            out.append(TextBlock(text, self.lang, self.ts("small", align="center", color=self.col["muted"], space_before=4, space_after=6)))
        return [Spacer(1, 4), KeepTogether(out)]

    # -- the text ---------------------------------------------------------------------------
    def render_source(self) -> str:
        """The rules text (read through the schema reader's text rules) rendered in the strict sandbox."""
        path = self.source_path
        if not path.is_file():
            raise DataError([Problem(Location(self.shown, 1, 1),
                                     f"the rules text is missing; write rules.{self.lang}.md (see cardgen/render/rulebook.py)")])
        paths.game_file(self.game, path.name, Location(self.shown, 1, 1), "rules text")  # no link out of the folder
        source = read_text(path, self.shown)
        origin = Location(self.shown, 1, 1)
        template = sandbox.compile_template(source, origin, "rules text")
        self._rendering = template
        try:
            return sandbox.render(template, self.context(), origin, "rules text")
        except (RuntimeError, LookupError) as exc:  # e.g. StopIteration turned RuntimeError in a generator
            raise DataError([sandbox.template_problem(exc, origin, "rules text")]) from None
        finally:
            self._rendering = None

    def flowables(self, frame_width: float) -> list[Flowable]:
        self.frame_width = frame_width
        text = self.render_source()
        blocks = parse_markdown(text, self.lang, self.nonce)
        story: list[Flowable] = self.cover()
        for block in blocks:
            try:
                story.extend(self.block(block))
            except DataError:
                raise
            except sandbox.RUNTIME_ERRORS as exc:
                # A directive runs after the text is rendered (an undefined name passed to it fails only now);
                # its error is at the line that calls it; other blocks' lines are in the rendered text.
                line = self.directives[block.index][1] if block.kind == "directive" else block.line
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc) or type(exc).__name__
                raise DataError([Problem(Location(self.shown, line, 1),
                                         f"{message}; fix the rules text or the data")]) from None
        if self.game.decisions and not self.used_decisions_list:
            raise DataError([Problem(Location(self.shown, 1, 1),
                                     "the rules text never calls {{ decisions() }}: every decision in game.yaml must be printed")])
        return story

    def cover(self) -> list[Flowable]:
        g, L = self.game, self.labels
        other = "en" if self.lang == "ja" else "ja"
        out: list[Flowable] = [Spacer(1, 18 * mm)]
        out.append(TextBlock([(g.title.get(self.lang), True)], self.lang,
                             self.ts("title", align="center", color=self.col["accent"])))
        out.append(TextBlock(g.title.get(other), other, self.ts("h3", align="center", color=self.col["muted"], space_before=4)))
        facts = f"{L['players']} {self.players_text()}　／　{L['cards_total']} {L['cards_unit'].format(n=g.total)}" \
            if self.lang == "ja" else f"{L['players']}: {self.players_text()}   ·   {L['cards_total']}: {g.total}"
        out.append(TextBlock(facts, self.lang, self.ts("body", align="center", space_before=10, space_after=8)))
        if g.summary:
            out.append(TextBlock(g.summary.get(self.lang), self.lang,
                                 self.ts("body", left=14 * mm, right=14 * mm, space_after=10)))
        out.append(Spacer(1, 6 * mm))
        out.append(TextBlock([(L["contents"], True)], self.lang, self.ts("h2", color=self.col["accent"], space_after=4)))
        styles = {1: self.ts("body", space_before=3), 2: self.ts("small", left=14, space_before=1)}
        out.append(Contents(self.lang, styles))
        out.append(PageBreak())
        return out

    def block(self, block: Block) -> list[Flowable]:
        if block.kind == "directive":
            return self.directives[block.index][0]()
        if block.kind == "heading":
            # Never leave a heading alone at the foot of a page: it needs room for a few lines.
            heading = self.heading(block.text, min(block.level, 3))
            room = heading.style.space_before + heading.style.leading * 2 + 4 * self.types["body"]["leading"]
            return [CondPageBreak(room), heading]
        if block.kind == "para":
            return [TextBlock(block.text, self.lang, self.ts("body", space_after=5))]
        if block.kind == "item":
            indent = 14.0 + 13.0 * block.level
            marker = block.marker
            if marker in ("-", "*"):
                bullet = "・" if self.lang == "ja" else "•"
                bw = self.types["body"]["size"] * (1.0 if self.lang == "ja" else 0.9)
            else:
                bullet = marker
                bw = pdfmetrics.stringWidth(marker, self.body_font, self.types["body"]["size"]) + 4
                bw = max(bw, 13.0)
                indent = max(indent, bw + 1 + 13.0 * block.level)
            return [TextBlock(block.text, self.lang, self.ts("body", left=indent, bullet_width=bw, space_after=2.5), bullet=bullet)]
        if block.kind == "note":
            inner = TextBlock(block.text, self.lang, self.ts("small"))
            t = Table([[inner]], colWidths=[self.frame_width], hAlign="LEFT")
            t.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), self.strong_font),
            
                ("BACKGROUND", (0, 0), (-1, -1), self.col["note_fill"]),
                ("LINEBEFORE", (0, 0), (0, -1), 2, self.col["rule"]),
                ("LEFTPADDING", (0, 0), (-1, -1), 7), ("RIGHTPADDING", (0, 0), (-1, -1), 6),
                ("TOPPADDING", (0, 0), (-1, -1), 3.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5),
            ]))
            t.spaceBefore, t.spaceAfter = 2, 6
            return [t]
        if block.kind == "table":
            rows = block.rows or [[]]
            aligns = block.marker.split(",") if block.marker else []
            aligns += ["left"] * (len(rows[0]) - len(aligns))
            t = self.table(rows, align=aligns)
            t.spaceBefore, t.spaceAfter = 2, 7
            return [t]
        raise ValueError(block.kind)

    def heading(self, text: str, level: int) -> Heading:
        if level == 1:
            self.counters = [self.counters[0] + 1, 0, 0]
            number = f"{self.counters[0]}."
        elif level == 2:
            self.counters[1] += 1
            number = f"{self.counters[0]}.{self.counters[1]}"
        else:
            number = ""
        if text.startswith("!"):  # "# !Appendix" : unnumbered
            text, number = text[1:].strip(), ""
            if level == 1:
                self.counters[0] -= 1
        self.keys += 1
        key = f"h{self.keys}"
        if level == 1:
            st = self.ts("h1", color=self.col["accent"], space_before=16, space_after=9)
            return Heading(text, self.lang, st, level, key, number, rule_color=self.col["accent"])
        if level == 2:
            return Heading(text, self.lang, self.ts("h2", color=self.col["accent"], space_before=10, space_after=4), level, key, number)
        return Heading(text, self.lang, self.ts("h3", space_before=6, space_after=2), level, key, number)


def _card_mm(card_size: str) -> tuple[float, float]:
    sizes = {"poker": (63.5, 88.9), "bridge": (57.15, 88.9), "mini": (44, 68), "euro": (59, 92), "tarot": (70, 120)}
    if card_size in sizes:
        return sizes[card_size]
    w, h = card_size.lower().split("x")
    return float(w), float(h)


# ============================================================================ appendix hook

def appendix_flowables(game: Game, lang: str) -> list[Flowable]:
    """The standard-deck reference appendix; [] for a game without a mapping.yaml."""
    from .standard_sheet import mapping_appendix_flowables

    return list(mapping_appendix_flowables(game, lang))


# ============================================================================ public API

def build_rulebook(game: Game, lang: str, paper: str | None = None) -> bytes:
    """Render the rulebook of `game` in `lang` ("ja" or "en") as PDF bytes (byte-identical across runs).

    `paper` ("a4" or "letter", from `cardgen build --paper`) overrides the style's page size."""
    builder = _Builder(game, lang)
    style = builder.style
    page = style["page"]
    pagesize = {"A4": A4, "LETTER": letter}[str(paper or page.get("size", "A4")).upper()]
    buf = io.BytesIO()
    title = f"{game.title.get(lang)} — {'ルールブック' if lang == 'ja' else 'Rulebook'}"
    doc = _DocTemplate(
        buf, pagesize=pagesize, invariant=1, pageCompression=1,
        leftMargin=page["margin_inner"] * mm, rightMargin=page["margin_outer"] * mm,
        topMargin=page["margin_top"] * mm, bottomMargin=page["margin_bottom"] * mm,
        title=title, author="cardgen", creator="cardgen", subject=game.title.get("en"),
        lang="ja-JP" if lang == "ja" else "en",
    )
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body",
                  leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
    total = _PageTotal(doc)
    decorate = _page_decorator(game.title.get(lang), builder.labels["page_of"], style, builder.fonts, total)
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=decorate)])
    story = [total] + builder.flowables(doc.width)
    try:
        doc.multiBuild(story, canvasmaker=_canvas_maker(), maxPasses=10)
    except _PlatypusLayoutError as exc:
        raise DataError([Problem(Location(builder.shown, 1, 1),
                                 f"a block of the rules text does not fit on a page ({str(exc)[:200]}); "
                                 f"shorten the table or paragraph, or split it")]) from None
    return buf.getvalue()


def rulebook_path(game: Game, out_dir: str | Path, lang: str) -> Path:
    return Path(out_dir) / f"{game.id}-rules-{lang}.pdf"


def write_rulebooks(game: Game, out_dir: str | Path) -> list[Path]:
    """Write `<game>-rules-ja.pdf` and `<game>-rules-en.pdf` into `out_dir` (output/<game>/)."""
    return [write_atomic(rulebook_path(game, out_dir, lang), build_rulebook(game, lang)) for lang in LANGS]
