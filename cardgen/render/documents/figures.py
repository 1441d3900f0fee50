"""Rulebook figures: drawings of a play area described in a figures YAML file, with the game's own
cards (faces and backs drawn by the card renderer at figure scale), and a card's anatomy (a real
face with numbered callouts to its layout boxes)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

import yaml
from reportlab.lib.units import mm
from reportlab.platypus import Flowable

from ...fonts import draw_string, string_width
from ...io import paths
from ...io.reader import SchemaReader
from ...io.schema import Anything, Bool, Dict, Int, List, Map, Num, Str, validate
from ...model import Card, Game
from ...text import break_lines
from ..cards.card import Face, back_group, card_size_mm, draw_face
from ..cards.layout import get_layout
from ..forms import form_once


_ITEM_TYPES = ("zone", "card", "slot", "deck", "row", "chips", "text", "arrow")
_FACE = Str(("up", "down", "slot"))
_POINT = List(Num(-100, 100), min_items=2, max_items=2)
_ITEM = Map({
    "type": Str(_ITEM_TYPES), "x": Num(-100, 100), "y": Num(-100, 100), "w": Num(0, 100), "h": Num(0, 100),
    "label": Anything(), "label_at": Str(("top", "bottom")), "face": _FACE, "text": Anything(), "rotate": Bool(),
    "mark": Anything(), "depth": Int(0, 10), "n": Int(0, 100), "step": Num(0.1, 10), "faces": List(_FACE, max_items=100),
    "texts": List(Anything(), max_items=100), "marks": List(Anything(), max_items=100),
    "align": Str(("left", "center", "right")), "size": Num(3, 40), "colour": Str(), "from": _POINT, "to": _POINT,
    "card": Str(), "cards": List(Anything(), max_items=100),  # "" leaves a place without a card
}, optional={"x", "y", "w", "h", "label", "label_at", "face", "text", "rotate", "mark", "depth", "n", "step", "faces",
             "texts", "marks", "align", "size", "colour", "from", "to", "card", "cards"})
_FIGURE = Map({"caption": Anything(), "card_mm": Num(3, 60), "width": Num(0.1, 100), "height": Num(0.1, 100),
               "items": List(_ITEM, min_items=1, max_items=500)},
              optional={"caption", "card_mm", "width", "height"})
_NEEDS = {"zone": ("w", "h"), "row": ("n",), "chips": ("n",), "arrow": ("from", "to")}


_KEEP_LINES = re.compile(r"(?<![-+])%\}(?=[ \t]*$)", re.M)


def figures_path(game: Game) -> Path | None:
    """The game's figures: `<game>/templates/figures.yaml`, else the bundled ones for its id."""
    return paths.game_template(game, "figures.yaml")


def find_card(game: Game, ref: str) -> Card | None:
    """The card a figure names: a card id (AL09), or a card type (alice_red) for its first copy."""
    for card in game.cards:
        if card.id == ref:
            return card
    for card in game.cards:
        if card.type_id == ref:
            return card
    return None


def _unknown_card(game: Game, ref: str) -> str:
    return (f"no card '{ref}' in the card list; name a card id such as {game.cards[0].id} "
            f"or a card type such as {game.cards[0].type_id}")


def _check_figures(r: SchemaReader, node: yaml.Node, colours: dict, game: Game) -> dict:
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
            refs = [item["card"]] if "card" in item else []
            refs += list(item["cards"].value) if "cards" in item else []
            for ref in refs:
                if not isinstance(ref, yaml.ScalarNode) or not isinstance(ref.value, str):
                    r.error(ref, "a figure card must be a card id or a card type (or \"\" for none)")
                elif ref.value and find_card(game, ref.value) is None:
                    r.error(ref, _unknown_card(game, ref.value))
            if "colour" in item and item["colour"].value not in colours:
                r.error(item["colour"], f"colour '{item['colour'].value}' is not one of style.yaml's colours: {', '.join(sorted(colours))}")
    return figures


class Figure(Flowable):
    """A vector drawing of a play area described in templates/rulebook/figures/<game>.yaml.

    Coordinates are in card widths, from the top left; a card is 1 wide and as tall as the
    game's card proportions make it. A card item naming a card (`card: AL09` or a card type)
    shows that card's front face up and its back face down; a face-down card naming none shows
    the back of the game's first card. At figure scale a card is a picture of the card: what the
    reader must read goes in the item's `text`, set in a legible label over it.
    """

    def __init__(self, spec: dict, game: Game, lang: str, style: dict, fonts: tuple[str, str],
                 max_card_mm: float = 15.0) -> None:
        super().__init__()
        self.spec, self.game, self.lang = spec, game, lang
        self.card_w_mm, self.card_h_mm = card_size_mm(game)
        self.ratio = self.card_h_mm / self.card_w_mm
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
            draw_string(canv, cx, y, line, self.lang, "centre" if align == "center" else "left")
            y -= size * 1.2
        return y

    def _card(self, x: float, y: float, face: str, text: str, rotate: bool = False, dashed: bool = False,
              mark: str = "", card: str = "") -> None:
        canv = self.canv
        w, h = (self.ratio, 1.0) if rotate else (1.0, self.ratio)
        x0, y1 = self._pt(x, y)
        pw, ph = w * self.unit, h * self.unit
        r = 0.06 * self.unit
        canv.setLineWidth(0.6)
        shown = None if dashed else _figure_face(self.game, card, face)
        if dashed:
            canv.setDash(2, 2)
            canv.setStrokeColorRGB(*self.colours["muted"])
            canv.roundRect(x0, y1 - ph, pw, ph, r, stroke=1, fill=0)
            canv.setDash()
        elif shown is not None:
            place_face(canv, self.game, shown, self.lang, x0, y1 - ph, self.unit, rotate, r)
        else:
            canv.setStrokeColorRGB(*self.colours["ink"])
            canv.setFillColorRGB(*self.colours["card_face"])
            canv.roundRect(x0, y1 - ph, pw, ph, r, stroke=1, fill=1)
        if text or mark:
            # The label (and its mark, "opened", as a first line in the accent colour) sits in the
            # middle of the card: a mark in a corner covered the card's own title.
            size = max(min(0.16 * self.unit, 7.5), 5.0)
            mark_size = max(min(0.14 * self.unit, 6.5), 4.5)
            lines = self._text_lines(text, size, pw - 0.12 * self.unit, self.gothic) if text else []
            mark_h = mark_size * 1.3 if mark else 0.0
            total = len(lines) * size * 1.2 + mark_h
            top = y1 - ph / 2 + total / 2
            color = self.colours["muted"] if dashed else self.colours["ink"]
            if shown is not None:
                # a real card at figure scale is a picture: its label sits on a white plate to stay legible,
                # as wide as the card so it never leaves fragments of the card's own text beside it
                widest = max([string_width(l, self.gothic, size, self.lang) for l in lines]
                             + [string_width(mark, self.gothic, mark_size, self.lang)])
                plate = min(max(widest + 4, 0.86 * pw), pw)
                canv.setFillColorRGB(1, 1, 1)
                canv.roundRect(x0 + pw / 2 - plate / 2, top - total - 1.5, plate, total + 2.5, 1.5, stroke=0, fill=1)
            if mark:
                canv.setFillColorRGB(*self.colours["accent"])
                canv.setFont(self.gothic, mark_size)
                draw_string(canv, x0 + pw / 2, top - mark_size * 0.95, mark, self.lang, "centre")
            if text:
                self._draw_text(text, x0 + pw / 2, top - mark_h, pw - 0.12 * self.unit, size, self.gothic, color=color)

    def draw(self) -> None:
        canv = self.canv
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
                           dashed=kind == "slot", mark=self._label(item.get("mark")), card=item.get("card", ""))
            elif kind == "deck":
                depth = int(item.get("depth", 3))
                for k in range(depth, 0, -1):
                    self._card(x + 0.035 * k, y - 0.035 * k, item.get("face", "down"), "", card=item.get("card", ""))
                self._card(x, y, item.get("face", "down"), self._label(item.get("text")), card=item.get("card", ""))
            elif kind == "row":
                n = int(item["n"])
                step = float(item.get("step", 1.15))
                faces = item.get("faces") or [item.get("face", "up")] * n
                texts = item.get("texts") or [item.get("text")] * n
                marks = item.get("marks") or [item.get("mark")] * n
                cards = item.get("cards") or [item.get("card", "")] * n
                for k in range(n):
                    kind_k = "slot" if faces[k % len(faces)] == "slot" else "card"
                    self._card(x + k * step, y, faces[k % len(faces)], self._label(texts[k % len(texts)]),
                               dashed=kind_k == "slot", mark=self._label(marks[k % len(marks)]),
                               card=cards[k % len(cards)])
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



def _figure_face(game: Game, ref: str, face: str) -> Face | None:
    """The face a figure card shows: the named card's front (face up) or back (face down); a face-down
    card naming none shows the back of the game's first card; a face-up one naming none is blank."""
    card = find_card(game, str(ref)) if ref not in (None, "") else (game.cards[0] if face == "down" and game.cards else None)
    if card is None:
        return None
    side = "back" if face == "down" else "front"
    return Face(card, side, get_layout(game.holding(card)).entry_for(card).own_back)


def _face_form(canv, game: Game, face: Face, lang: str) -> str:
    """The name of a form XObject holding `face` at its real size, drawn once per canvas by the card
    renderer (a figure shows the same face many times: decks, rows)."""
    game = game.holding(face.card)  # at its deck's size
    own = face.side == "front" or face.own_back
    key = (game.file_stem, face.side, face.card.id if own else back_group(game, face.card), lang)
    w_mm, h_mm = card_size_mm(game)
    return form_once(canv, "figure", key, f"CardgenFig{'Back' if face.side == 'back' else 'Front'}", (0, 0, w_mm * mm, h_mm * mm),
                     lambda: draw_face(canv, game, face, 0, 0, w_mm, h_mm, 0, lang))


def place_face(canv, game: Game, face: Face, lang: str, x: float, y: float, width: float, rotate: bool = False,
               radius: float = 0.0) -> None:
    """Draw `face` `width` points wide with its lower left corner at (x, y) (sideways: turned a quarter
    to the left, `width` tall), clipped to rounded corners and outlined like a cut card."""
    game = game.holding(face.card)  # its deck's proportions
    w_mm, h_mm = card_size_mm(game)
    scale = width / (w_mm * mm)
    name = _face_form(canv, game, face, lang)
    canv.saveState()
    canv.translate(x, y)
    if rotate:
        canv.translate(h_mm * mm * scale, 0)
        canv.rotate(90)
    canv.scale(scale, scale)
    clip = canv.beginPath()
    clip.roundRect(0, 0, w_mm * mm, h_mm * mm, radius / scale)
    canv.clipPath(clip, stroke=0, fill=0)
    canv.doForm(name)
    canv.restoreState()
    canv.saveState()
    canv.translate(x, y)
    if rotate:
        canv.translate(h_mm * mm * scale, 0)
        canv.rotate(90)
    canv.setLineWidth(0.5)
    canv.setStrokeColorRGB(0.35, 0.35, 0.38)
    canv.roundRect(0, 0, width, h_mm * mm * scale, radius, stroke=1, fill=0)
    canv.restoreState()


def anatomy_boxes(game: Game, ref: str, names: Sequence[str]) -> tuple[Card, list]:
    """The card and the front layout boxes a card_anatomy figure points at (KeyError naming what is wrong)."""
    card = find_card(game, str(ref))
    if card is None:
        raise KeyError(_unknown_card(game, str(ref)))
    if not isinstance(names, (list, tuple)) or not 1 <= len(names) <= 20 or not all(isinstance(n, str) for n in names):
        raise ValueError("card_anatomy: boxes must be a list of 1 to 20 box names of the card's front layout")
    front = {b.name: b for b in get_layout(game.holding(card)).boxes(card, "front")[0]}
    boxes = []
    for name in names:
        if name not in front:
            raise KeyError(f"card_anatomy: card {card.id} has no box {str(name)!r} on its front "
                           f"(its layout has: {', '.join(front)})")
        boxes.append(front[name])
    return card, boxes


class CardAnatomy(Flowable):
    """A card's front at near real size with numbered markers beside it and leader lines to the layout
    boxes they explain; the rules text's numbered list below is keyed to the numbers."""

    GAP = 9 * mm      # from the card's edge to a marker's centre
    RADIUS = 2.4 * mm

    def __init__(self, game: Game, card: Card, boxes: Sequence, lang: str, style: dict, fonts: tuple[str, str],
                 width_mm: float = 52.0) -> None:
        super().__init__()
        game = game.holding(card)  # the card at its deck's size
        self.game, self.card, self.boxes, self.lang = game, card, list(boxes), lang
        self.colours = style["colours"]
        self.gothic = fonts[0]
        w_mm, h_mm = card_size_mm(game)
        self.card_w = min(width_mm, w_mm) * mm
        self.card_h = self.card_w * h_mm / w_mm

    def wrap(self, aw, ah):
        self.width = aw
        self.height = self.card_h + 2 * self.RADIUS
        return aw, self.height

    def markers(self) -> list[tuple[float, ...]]:
        """(marker x, marker y, anchor x, anchor y, box x, box y, box w, box h) per box, in the flowable's points."""
        layout = get_layout(self.game)
        scale = self.card_w / (layout.width * mm)
        left, top = (self.width - self.card_w) / 2, self.RADIUS + self.card_h
        spacing = 2 * self.RADIUS + 1.5
        placed: dict[int, list[float]] = {}
        for side in ("left", "right"):
            ones = [(i, b) for i, b in enumerate(self.boxes)
                    if (b.x + b.w / 2 < layout.width / 2) == (side == "left")]
            ones.sort(key=lambda ib: ib[1].y + ib[1].h / 2)
            last = None
            for i, b in ones:
                bx0, bx1 = left + b.x * mm * scale, left + (b.x + b.w) * mm * scale
                by1, by0 = top - b.y * mm * scale, top - (b.y + b.h) * mm * scale  # top and bottom edges
                y = (by0 + by1) / 2
                if last is not None:
                    y = min(y, last - spacing)  # keep markers apart; the leader line still finds the box
                last = y
                inset_y = min(1.0 * mm, (by1 - by0) / 2)
                ax = bx0 if side == "left" else bx1  # on the box's edge: the line never crosses what it points at
                ay = min(max(y, by0 + inset_y), by1 - inset_y)
                mx = left - self.GAP if side == "left" else left + self.card_w + self.GAP
                placed[i] = [mx, y, ax, ay, bx0, by0, bx1 - bx0, by1 - by0]
            if ones:
                # a column pushed below the figure moves up as a whole (the leader lines still reach their boxes)
                lift = max(0.0, self.RADIUS - min(placed[i][1] for i, _ in ones))
                for i, _ in ones:
                    placed[i][1] += lift
        return [tuple(placed[i]) for i in range(len(self.boxes))]

    def draw(self) -> None:
        canv = self.canv
        left = (self.width - self.card_w) / 2
        face = Face(self.card, "front", get_layout(self.game).entry_for(self.card).own_back)
        place_face(canv, self.game, face, self.lang, left, self.RADIUS, self.card_w, radius=3 * mm * self.card_w / (63.5 * mm))
        accent = self.colours["accent"]
        for n, (mx, my, ax, ay, bx, by, bw, bh) in enumerate(self.markers(), 1):
            toward = 1 if ax > mx else -1
            # the box the number explains, outlined so the reader sees its extent, not just a point
            canv.setStrokeColorRGB(*accent)
            canv.setLineWidth(0.5)
            canv.setDash(1.5, 1.2)
            canv.rect(bx, by, bw, bh, stroke=1, fill=0)
            canv.setDash()
            canv.setStrokeColorRGB(*accent)
            canv.setFillColorRGB(*accent)
            canv.setLineWidth(0.8)
            canv.line(mx + toward * self.RADIUS, my, ax, ay)
            canv.setStrokeColorRGB(1, 1, 1)
            canv.setLineWidth(0.5)
            canv.circle(ax, ay, 1.1, stroke=1, fill=1)
            canv.circle(mx, my, self.RADIUS, stroke=1, fill=1)
            size = 8.5 if n < 10 else 7.0
            canv.setFillColorRGB(1, 1, 1)
            canv.setFont(self.gothic, size)
            draw_string(canv, mx, my - size * 0.36, str(n), self.lang, "centre")
