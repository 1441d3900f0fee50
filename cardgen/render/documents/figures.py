"""Rulebook figures: vector drawings of a play area described in a figures YAML file."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

import yaml
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Flowable

from ...io import paths
from ...io.reader import SchemaReader
from ...io.schema import Anything, Bool, Dict, Int, List, Map, Num, Str, validate
from ...model import Game
from ...text import break_lines
from .page_template import layout_only as _layout_only


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
    """The game's figures: `<game>/templates/figures.yaml`, else the bundled ones for its id."""
    return paths.game_template(game, "figures.yaml")


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



def _card_mm(card_size: str) -> tuple[float, float]:
    sizes = {"poker": (63.5, 88.9), "bridge": (57.15, 88.9), "mini": (44, 68), "euro": (59, 92), "tarot": (70, 120)}
    if card_size in sizes:
        return sizes[card_size]
    w, h = card_size.lower().split("x")
    return float(w), float(h)

