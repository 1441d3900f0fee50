"""A tuck box for a deck: the die line of a reverse tuck end carton, one box a page.

The die line follows Layered Paper Art's published parametric reverse tuck carton
(layeredpaperart.com/reverse-tuck-doc, its Cuttle template's documentation), the standard
folding-carton style (ECMA's reverse tuck end): four body panels and a glue flap in one row,
the top closure hinged on one wide panel and the bottom closure on the opposite one, each a
lid as deep as the box with a tuck flap, and a dust flap on each end of both narrow sides.
Its numbers, in mm (the template's inches):

- glue flap 15.9 wide (0.625 in), 12.7 (0.5 in) when the box is under 22.2 deep (0.875 in);
- the panel whose free edge meets the glue flap's fold is 0.8 narrower (0.031 in), so that
  edge never rides over the fold;
- tuck flap: never deeper than the box (the template's rule), here the box's depth between
  10 and 15 (a card box is thin; a tuck shorter than 10 does not hold), with rounded corners;
- slit locks: the lid-to-tuck fold is cut for shoulder + 1.6 at each end, where the dust
  flap's shoulder catches;
- dust flaps: (depth + tuck) / 2 high, a 6.35 shoulder (0.25 in), a 45-degree relief of
  3.2 (0.125 in) after it, then a 15-degree taper to the outer edge.

Which way round: the top lid hinges on the front panel (so the front, where the deck's back
art goes, has no cut edge at the top) and tucks into the back panel, whose top edge has a thumb
notch to pull the tuck; the bottom lid hinges on the back and tucks into the front.  Left to
right the row is  back | side | front | side | glue,  the glue flap going inside the back.

Sizes: front and back are the card plus clearance; the depth is cards x thickness (`--card-
thickness`, 0.30 mm a card by default) plus clearance.  The net, its art's bleed and the legend
lie inside the printer's margin on A4 or Letter, portrait or landscape, whichever fits; the
tuck shortens towards 10 mm first; a deck still too deep splits into equal boxes (one a page,
and the page says so); a card too large for the paper is an error that says so.

Art: the deck's back design (without its deck label, e.g. ohanatsumi's 「イベントカード」: the
box names the game) fills the front; its field colour covers every panel to the bleed; the
spine (both sides) carries the title, vertical in Japanese; the lid and the back carry the
title, the card count and the players.  Cut lines are solid, fold lines dashed, with a legend.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth

from ... import words
from ...errors import CardgenError
from ...fonts import GOTHIC, MINCHO, draw_string, register_fonts, string_width
from ...model import Card, Game
from ...text import break_lines, fit_text
from .sheet import DEFAULT_MARGIN_MM, PAPERS, PAPER_NAMES, binary_streams, new_canvas

if TYPE_CHECKING:
    from ..cards.card import Face

CARD_THICKNESS_MM = 0.30
CLEARANCE_MM = 1.0  # play around the deck, in width, height and depth
BLEED_MM = 1.5  # art past the cut lines, so a cut a little off shows no white
# the published die line's numbers (inches in the template)
GLUE_MM = 15.9  # 0.625 in
GLUE_NARROW_MM = 12.7  # 0.5 in, for a box under NARROW_BOX_MM deep
NARROW_BOX_MM = 22.2  # 0.875 in
FREE_EDGE_OFFSET_MM = 0.8  # 0.031 in: the panel ending at the glue flap's fold
SHOULDER_MM = 6.35  # 0.25 in
SLIT_EXTRA_MM = 1.6  # 1/16 in: the slit lock reaches past the shoulder
RELIEF_MM = 3.2  # 0.125 in, at 45 degrees
TAPER_DEG = 15.0
TUCK_MAX_MM = 15.0
TUCK_MIN_MM = 10.0
NOTCH_MM = 10.0  # thumb notch radius
LEGEND_GAP_MM = 3.0
LINE_PT = 0.5  # cut and fold lines
FOLD_DASH = (3.0, 2.0)  # pt
FOLD_GREY = 0.45  # fold lines print grey: visible on light and dark art, quieter than the cuts

Point = tuple[float, float]


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class TuckBox:
    """The die line of one box on a page, in mm from the page's lower-left corner.

    `panels` are the rectangles (back, side_left, front, side_right, lid_top, lid_bottom);
    `flaps` the outlines of the tuck flaps, dust flaps and glue flap; `cuts` are polylines
    (the outline, the slit locks), `folds` segments.
    """

    page: tuple[float, float]
    cards: int  # cards in this box
    thickness: float  # per card
    inner: tuple[float, float, float]  # width, height, depth the deck gets
    tuck: float
    dust: float
    glue: float
    slit: float
    notch: float
    panels: dict[str, Rect]
    flaps: dict[str, tuple[Point, ...]]
    cuts: tuple[tuple[Point, ...], ...]
    folds: tuple[tuple[Point, Point], ...]
    legend: Rect

    @property
    def outline(self) -> Rect:
        """The net's bounding box (without bleed)."""
        points = [p for line in self.cuts for p in line]
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def deck_depth(cards: int, thickness: float = CARD_THICKNESS_MM, clearance: float = CLEARANCE_MM) -> float:
    return cards * thickness + clearance


@dataclass(frozen=True)
class _Dims:
    W: float
    H: float
    D: float
    T: float

    @property
    def glue(self) -> float:
        return GLUE_NARROW_MM if self.D < NARROW_BOX_MM else GLUE_MM

    @property
    def dust(self) -> float:
        # two dust flaps meet inside the box's end: each stays short of half the width
        return min((self.D + self.T) / 2, self.W / 2 - 0.5)

    @property
    def net(self) -> tuple[float, float]:
        return 2 * self.W + 2 * self.D - FREE_EDGE_OFFSET_MM + self.glue, self.H + 2 * self.D + 2 * self.T


def tuckbox_geometry(card_size: tuple[float, float], cards: int, paper: str = "a4", thickness: float = CARD_THICKNESS_MM,
                     clearance: float = CLEARANCE_MM, legend: tuple[float, float] = (60.0, 17.0)) -> list[TuckBox]:
    """The boxes (one a page) that hold `cards` cards of `card_size` mm on `paper`.

    `legend` is the room (width, height in mm) the legend needs below the net; beside the net
    it may be narrower and taller.  The tuck shortens to TUCK_MIN_MM before a deck is split.
    """
    if paper not in PAPERS:
        raise CardgenError(f"tuck box: paper {paper!r} is unknown; use {' or '.join(PAPERS)}")
    if not 0.05 <= thickness <= 2.0:
        raise CardgenError(f"--card-thickness {thickness:g} mm is out of range; use 0.05 to 2 mm (0.30 is a 300 gsm card)")
    cards = max(1, cards)
    pw, ph = PAPERS[paper]
    for boxes in range(1, cards + 1):
        per_box = math.ceil(cards / boxes)
        D = deck_depth(per_box, thickness, clearance)
        W, H = card_size[0] + clearance, card_size[1] + clearance
        best = min(TUCK_MAX_MM, max(TUCK_MIN_MM, D))
        steps = int((best - TUCK_MIN_MM) / 0.5)
        for tuck in [best - 0.5 * i for i in range(steps + 1)] + [TUCK_MIN_MM]:  # the longest tuck that fits
            dims = _Dims(W, H, D, tuck)
            for page in ((pw, ph), (ph, pw)):
                room = _room(dims, page, legend)
                if room is not None:
                    out = []
                    left = cards
                    for _ in range(boxes):
                        n = min(per_box, left)
                        left -= n
                        out.append(_die_line(dims, page, room, n, thickness))
                    return out
        if per_box == 1:
            break
    name = PAPER_NAMES.get(paper, paper)
    raise CardgenError(f"tuck box: a box for {card_size[0]:g} x {card_size[1]:g} mm cards does not fit {name} paper "
                       f"inside the {DEFAULT_MARGIN_MM:g} mm printer margin, even for one card; "
                       f"build without the tuck box (--only) or use smaller cards")


def split_note(card_size: tuple[float, float], cards: int, paper: str, thickness: float = CARD_THICKNESS_MM) -> str | None:
    """What a build says when the deck does not fit one box on the paper (None when it does)."""
    boxes = tuckbox_geometry(card_size, cards, paper, thickness)
    if len(boxes) == 1:
        return None
    return (f"tuck box: {cards} cards x {thickness:g} mm are too deep for one box on {PAPER_NAMES.get(paper, paper)}; "
            f"split into {len(boxes)} boxes of up to {max(b.cards for b in boxes)} cards (one a page)")


def _room(dims: _Dims, page: tuple[float, float], legend: tuple[float, float]) -> tuple[Point, Rect] | None:
    """Where the net's lower-left corner goes and the legend's box, or None when they do not fit."""
    nw, nh = dims.net
    m = DEFAULT_MARGIN_MM
    aw, ah = page[0] - 2 * m, page[1] - 2 * m  # printable area
    bw, bh = nw + 2 * BLEED_MM, nh + 2 * BLEED_MM
    if bw > aw or bh > ah:
        return None
    lw, lh = legend
    if ah - bh - LEGEND_GAP_MM >= lh and aw >= lw:  # net and legend under it, centred together
        free = ah - bh - LEGEND_GAP_MM - lh
        x = m + (aw - bw) / 2 + BLEED_MM
        y = m + free / 2 + lh + LEGEND_GAP_MM + BLEED_MM
        return (x, y), Rect(x - BLEED_MM, m + free / 2, max(bw, lw), lh)
    side = aw - bw - LEGEND_GAP_MM
    if side >= lw * 0.6:  # legend beside, in a column (its lines wrap)
        return (m + BLEED_MM, m + (ah - bh) / 2 + BLEED_MM), Rect(m + bw + LEGEND_GAP_MM, m, side, ah)
    return None


def _die_line(d: _Dims, page: tuple[float, float], room: tuple[Point, Rect], cards: int, thickness: float) -> TuckBox:
    (x0, y0), legend = room
    W, H, D, T = d.W, d.H, d.D, d.T
    G = d.glue
    FH = d.dust
    Wb = W - FREE_EDGE_OFFSET_MM
    # columns: back | side_left | front | side_right | glue ; rows: bottom tuck, bottom lid, body, top lid, top tuck
    y0 += T + D  # the body row's bottom
    xb, xsl = x0, x0 + Wb
    xf = xsl + D
    xsr = xf + W
    xg = xsr + D
    xe = xg + G
    yt = y0 + H
    shoulder = min(SHOULDER_MM, FH / 2)
    relief = min(RELIEF_MM, D * 0.15)
    taper = math.tan(math.radians(TAPER_DEG))
    a = min(relief + (FH - shoulder - relief) * taper, D * 0.35)  # the shoulder edge's inset at the top
    b = min(FH * taper, D * 0.35)  # the other edge's
    slit = min(shoulder + SLIT_EXTRA_MM, W / 4)
    notch = min(NOTCH_MM, Wb / 5, H / 6)
    chamfer = min(G * 0.5, H / 6)

    def dust(x_shoulder: float, x_other: float, y: float, up: float) -> list[Point]:
        """A dust flap on the fold from x_shoulder to x_other at height y, pointing up (+1) or down (-1)."""
        s = 1.0 if x_other > x_shoulder else -1.0
        return [(x_shoulder, y), (x_shoulder, y + up * shoulder), (x_shoulder + s * relief, y + up * (shoulder + relief)),
                (x_shoulder + s * a, y + up * FH), (x_other - s * b, y + up * FH), (x_other, y)]

    def tuck(x1: float, x2: float, y: float, up: float) -> list[Point]:
        """A tuck flap on the fold from x1 to x2 at height y (either way round): sides in by 0.5 mm,
        rounded corners; its points run from x1 to x2."""
        lo, hi = min(x1, x2), max(x1, x2)
        r = min(T / 2, 6.0)
        inset = 0.5
        pts: list[Point] = [(lo, y), (lo + inset, y + up * (T - r))]
        for i in range(1, 7):  # quarter circles, 6 segments each
            t = math.radians(90 * i / 6)
            pts.append((lo + inset + r - r * math.cos(t), y + up * (T - r + r * math.sin(t))))
        for i in range(0, 7):
            t = math.radians(90 - 90 * i / 6)
            pts.append((hi - inset - r + r * math.cos(t), y + up * (T - r + r * math.sin(t))))
        pts.append((hi, y))
        return pts if x1 < x2 else pts[::-1]

    def notch_arc(cx: float, y: float) -> list[Point]:
        return [(cx - notch * math.cos(math.radians(180 * i / 12)), y - notch * math.sin(math.radians(180 * i / 12)))
                for i in range(13)]

    top_tuck = tuck(xf, xsr, yt + D, 1.0)
    bottom_tuck = tuck(xsl, xb, y0 - D, -1.0)
    dust_tl = dust(xsl, xf, yt, 1.0)
    dust_tr = dust(xg, xsr, yt, 1.0)
    dust_bl = dust(xf, xsl, y0, -1.0)
    dust_br = dust(xsr, xg, y0, -1.0)
    glue = [(xg, yt), (xe, yt - chamfer), (xe, y0 + chamfer), (xg, y0)]
    # the outline, clockwise from the back's lower-left corner
    outline: list[Point] = [(xb, y0), (xb, yt)]
    outline += notch_arc(xb + Wb / 2, yt)
    outline += dust_tl  # (xsl, yt) ... (xf, yt)
    outline += top_tuck  # (xf, yt + D) ... (xsr, yt + D): the lid's sides are the segments between
    outline += dust_tr[::-1]  # (xsr, yt) ... (xg, yt)
    outline += glue[1:]  # ... (xg, y0)
    outline += dust_br[::-1]  # (xg, y0) ... (xsr, y0)
    outline += dust_bl  # (xf, y0) ... (xsl, y0): the front's bottom edge is the segment before
    outline += bottom_tuck  # (xsl, y0 - D) ... (xb, y0 - D)
    outline.append((xb, y0))
    cuts = [tuple(_dedupe(outline)),
            ((xf, yt + D), (xf + slit, yt + D)), ((xsr - slit, yt + D), (xsr, yt + D)),
            ((xsl, y0 - D), (xsl - slit, y0 - D)), ((xb + slit, y0 - D), (xb, y0 - D))]
    folds = [((xsl, y0), (xsl, yt)), ((xf, y0), (xf, yt)), ((xsr, y0), (xsr, yt)), ((xg, y0), (xg, yt)),
             ((xf, yt), (xsr, yt)), ((xf + slit, yt + D), (xsr - slit, yt + D)),
             ((xsl, yt), (xf, yt)), ((xsr, yt), (xg, yt)),
             ((xb, y0), (xsl, y0)), ((xb + slit, y0 - D), (xsl - slit, y0 - D)),
             ((xsl, y0), (xf, y0)), ((xsr, y0), (xg, y0))]
    panels = {
        "back": Rect(xb, y0, Wb, H),
        "side_left": Rect(xsl, y0, D, H),
        "front": Rect(xf, y0, W, H),
        "side_right": Rect(xsr, y0, D, H),
        "lid_top": Rect(xf, yt, W, D),
        "lid_bottom": Rect(xb, y0 - D, Wb, D),
    }
    flaps = {"tuck_top": tuple(top_tuck), "tuck_bottom": tuple(bottom_tuck), "glue": tuple(glue),
             "dust_top_left": tuple(dust_tl), "dust_top_right": tuple(dust_tr),
             "dust_bottom_left": tuple(dust_bl), "dust_bottom_right": tuple(dust_br)}
    return TuckBox(page, cards, thickness, (W, H, D), T, FH, G, slit, notch, panels, flaps, tuple(cuts), tuple(folds), legend)


def _dedupe(points: list[Point]) -> list[Point]:
    out: list[Point] = []
    for p in points:
        if not out or abs(out[-1][0] - p[0]) > 1e-9 or abs(out[-1][1] - p[1]) > 1e-9:
            out.append(p)
    return out


# --- drawing ------------------------------------------------------------------------------------

def _deck_back(game: Game, cards: Sequence[Card]) -> Face | None:
    """The back the deck's cards share most (a card with its own back is not the deck's look)."""
    from ..cards.card import Face, back_group, get_layout

    shared = [c for c in cards if not get_layout(game).entry_for(c).own_back]
    pool = shared or list(cards)
    if not pool:
        return None
    group = Counter(back_group(game, c) for c in pool).most_common(1)[0][0]
    card = next(c for c in pool if back_group(game, c) == group)
    return Face(card, "back", not shared)


def _art_box(box) -> bool:
    """A back's box that belongs on the box's front: its pictures, and texts that read only the game
    (its title) or nothing (a monogram); not a deck label read from the layout's strings or a card."""
    return box.kind != "text" or box.refs <= {"game"}


def _pattern_box(box) -> bool:
    """The back's field and decoration patterns, for the back panel."""
    bleed = box.params.get("bleed")
    decor = box.params.get("decor")
    return (box.kind == "rect" and bleed is not None and bool(bleed.const)) or (box.kind == "icon" and decor is not None and bool(decor.const))


def _contrast_ink(field: str | None) -> str:
    if not field or not str(field).startswith("#") or len(str(field)) < 7:
        return "#222222"
    r, g, b = (int(str(field)[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#222222" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else "#FFFFFF"


@binary_streams
def tuckbox_pdf(game: Game, card_size: tuple[float, float], paper: str = "a4", lang: str = "ja",
                thickness: float = CARD_THICKNESS_MM, clearance: float = CLEARANCE_MM, *,
                cards: Sequence[Card] | None = None, title: str | None = None, back: Face | None = None) -> bytes:
    """The tuck box PDF for `cards` (default: the whole game) under `title` (default: the game's),
    with `back`'s art (default: the back those cards share most): one box a page (see the module
    doc).  A box per deck is one call per deck; the words come from words.yaml (and the game's)."""
    from ..cards.card import back_look, draw_face

    register_fonts()
    deck = list(game.cards if cards is None else cards)
    title = title or game.title.get(lang)
    back = back if back is not None else _deck_back(game, deck)
    look = back_look(game, back, lang, _art_box) if back is not None else None
    field = look.field if look else None
    ink = (look.ink if look and look.ink else None) or _contrast_ink(field)
    font = (look.font if look and look.font else None) or MINCHO
    boxes = tuckbox_geometry(card_size, len(deck), paper, thickness, clearance)
    buffer = io.BytesIO()
    c = new_canvas(buffer, boxes[0].page, f"{title} — {words.word('tuckbox.name', lang, game)}", lang)
    for number, box in enumerate(boxes, start=1):
        c.setPageSize((box.page[0] * mm, box.page[1] * mm))
        p = box.panels
        _field(c, box, field)
        front = p["front"]
        strip = 0.0 if look is not None and look.title_shown else min(16.0, front.h / 5)
        if strip:  # the back shows no title: the box's own above the art, never a band over it
            _centred(c, title, Rect(front.x, front.y + front.h - strip, front.w, strip), font, 14, ink, lang)
        if back is not None:
            c.saveState()
            _clip(c, Rect(front.x, front.y - BLEED_MM, front.w, front.h + BLEED_MM))  # bleed only past the cut bottom edge
            if not strip:
                draw_face(c, game, back, front.x, front.y, front.w, front.h, BLEED_MM, lang, only=_art_box)
            else:  # the art shrinks (keeping its shape) under the title
                h = front.h - strip
                w = front.w * h / front.h
                draw_face(c, game, back, front.x + (front.w - w) / 2, front.y, w, h, 0.0, lang, only=_art_box)
            c.restoreState()
            c.saveState()
            r = p["back"]
            _clip(c, Rect(r.x - BLEED_MM, r.y, r.w + BLEED_MM, r.h + BLEED_MM))
            draw_face(c, game, back, r.x, r.y, r.w, r.h, BLEED_MM, lang, only=_pattern_box)
            c.restoreState()
        _texts(c, game, box, title, lang, font, ink, len(deck), len(boxes))
        _lines(c, box)
        _legend(c, game, box, title, lang, number, len(boxes), len(deck), paper)
        c.showPage()
    c.save()
    return buffer.getvalue()


def _clip(c, r: Rect) -> None:
    path = c.beginPath()
    path.rect(r.x * mm, r.y * mm, r.w * mm, r.h * mm)
    c.clipPath(path, stroke=0, fill=0)


def _polygon(c, points: Sequence[Point], fill: bool, stroke: bool) -> None:
    path = c.beginPath()
    path.moveTo(points[0][0] * mm, points[0][1] * mm)
    for x, y in points[1:]:
        path.lineTo(x * mm, y * mm)
    path.close()
    c.drawPath(path, stroke=int(stroke), fill=int(fill))


def _field(c, box: TuckBox, field: str | None) -> None:
    """The back's field colour over every printed panel and flap, to the bleed (the glue flap stays bare)."""
    if not field:
        return
    from ..cards import icons

    colour = icons.colour(field)
    if colour is None:
        return
    c.saveState()
    c.setFillColor(colour)
    c.setStrokeColor(colour)
    c.setLineWidth(2 * BLEED_MM * mm)
    c.setLineJoin(1)
    for r in box.panels.values():
        _polygon(c, [(r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h)], True, True)
    for name, points in box.flaps.items():
        if name != "glue":
            _polygon(c, points, True, True)
    c.restoreState()


def _fill_hex(c, ink: str) -> None:
    from ..cards import icons

    c.setFillColor(icons.colour(ink))


def _centred(c, text: str, r: Rect, font: str, size: float, ink: str, lang: str, min_size: float = 6.0) -> None:
    """`text` centred in `r`, shrunk to fit, broken into lines when it must."""
    fitted = fit_text(text, font, (r.w - 4) * mm, (r.h - 1) * mm, size, min_size, lang, 1.2)
    c.saveState()
    _fill_hex(c, ink)
    s = fitted.size
    block = (len(fitted.lines) - 1) * fitted.leading + s
    top = r.y * mm + (r.h * mm + block) / 2
    for i, line in enumerate(fitted.lines):
        c.setFont(font, s)
        draw_string(c, (r.x + r.w / 2) * mm, top - i * fitted.leading - 0.88 * s, line, lang, "centre")
    c.restoreState()


# Characters that turn a quarter turn in vertical Japanese (long vowel mark, dashes, brackets):
# IPAex has no vertical forms that ReportLab could select.
_TURN = set("ー－―‐−～〜…‥（）「」『』【】〔〕［］｛｝〈〉《》()[]{}<>-–—=＝:：;；")
# In vertical text small kana move a little up and right in their square, the comma and full stop
# from its lower left to its upper right (offsets in em).
_SHIFTED = {**{ch: (0.1, 0.12) for ch in "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"},
            **{ch: (0.55, 0.55) for ch in "、。，．"}}


def _vertical(c, text: str, cx: float, top: float, size: float, font: str) -> None:
    """`text` set top to bottom (縦書き) from (cx, top) in pt, one em a character; runs of Latin
    letters and digits turn a quarter, as in Japanese vertical setting."""
    y = top
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isascii() and ch.isalnum():
            j = i
            while j < len(text) and text[j].isascii() and (text[j].isalnum() or text[j] == " "):
                j += 1
            run = text[i:j]
            width = stringWidth(run, font, size)
            c.saveState()
            c.translate(cx, y - width / 2)
            c.rotate(-90)
            c.drawCentredString(0, -0.35 * size, run)
            c.restoreState()
            y -= width
            i = j
            continue
        if ch in _TURN:
            c.saveState()
            c.translate(cx, y - size / 2)
            c.rotate(-90)
            c.drawCentredString(0, -0.35 * size, ch)
            c.restoreState()
        else:
            dx, dy = _SHIFTED.get(ch, (0.0, 0.0))
            c.drawCentredString(cx + dx * size, y - 0.88 * size + dy * size, ch)
        y -= size
        i += 1


def _vertical_length(text: str, font: str, size: float) -> float:
    total = 0.0
    i = 0
    while i < len(text):
        if text[i].isascii() and text[i].isalnum():
            j = i
            while j < len(text) and text[j].isascii() and (text[j].isalnum() or text[j] == " "):
                j += 1
            total += stringWidth(text[i:j], font, size)
            i = j
        else:
            total += size
            i += 1
    return total


def _spine(c, title: str, r: Rect, font: str, ink: str, lang: str) -> None:
    """The title along a side panel, reading top to bottom (vertical in Japanese)."""
    if r.w < 4:
        return
    room = (r.h - 10) * mm
    c.saveState()
    _fill_hex(c, ink)
    if lang == "ja":
        size = min(14.0, r.w * 0.6 * mm)
        while size > 4 and _vertical_length(title, font, size) > room:
            size -= 0.25
        c.setFont(font, size)
        length = _vertical_length(title, font, size)
        _vertical(c, title, (r.x + r.w / 2) * mm, (r.y + r.h / 2) * mm + length / 2, size, font)
    else:
        size = min(14.0, r.w * 0.5 * mm)
        while size > 4 and string_width(title, font, size, lang) > room:
            size -= 0.25
        c.setFont(font, size)
        c.translate((r.x + r.w / 2) * mm, (r.y + r.h / 2) * mm)
        c.rotate(-90)
        draw_string(c, 0, -0.35 * size, title, lang, "centre")
    c.restoreState()


def _players(game: Game, lang: str) -> str:
    if game.min_players != game.max_players:
        return words.word("tuckbox.players_range", lang, game, min=game.min_players, max=game.max_players)
    return words.word("tuckbox.players_solo" if game.min_players == 1 else "tuckbox.players_one", lang, game, n=game.min_players)


def _texts(c, game: Game, box: TuckBox, title: str, lang: str, font: str, ink: str, total: int, count: int) -> None:
    p = box.panels
    for name in ("side_left", "side_right"):
        _spine(c, title, p[name], font, ink, lang)
    lid = p["lid_top"]
    if lid.h >= 6:
        _centred(c, title, lid, font, min(14.0, lid.h * 0.5 * mm), ink, lang, min_size=5.0)
    back = p["back"]
    cards = f"{box.cards} / {total}" if count > 1 else f"{total}"
    # title, card count and players stacked, the block centred in the back below the thumb notch
    below_notch = back.h - box.notch - 4
    fitted = fit_text(title, font, (back.w - 6) * mm, below_notch * 0.45 * mm, 16, 8, lang, 1.2)
    title_h = ((len(fitted.lines) - 1) * fitted.leading + fitted.size) / mm + 1
    line_h = 10 * 1.3 / mm
    block = title_h + 2 + 2 * line_h
    top = back.y + below_notch / 2 + block / 2
    _centred(c, title, Rect(back.x, top - title_h, back.w, title_h + 0.01), font, fitted.size, ink, lang, min_size=fitted.size)
    _centred(c, words.word("tuckbox.cards", lang, game, n=cards), Rect(back.x, top - title_h - 2 - line_h, back.w, line_h), font, 10, ink, lang)
    _centred(c, _players(game, lang), Rect(back.x, top - title_h - 2 - 2 * line_h, back.w, line_h), font, 10, ink, lang)
    glue = box.flaps["glue"]
    gx = (glue[0][0] + glue[1][0]) / 2
    gy = (glue[0][1] + glue[3][1]) / 2
    c.saveState()
    c.setFillGray(0.55)
    c.setFont(GOTHIC, 7)
    c.translate(gx * mm, gy * mm)
    c.rotate(90)
    draw_string(c, 0, -2.5, words.word("tuckbox.glue", lang, game), lang, "centre")
    c.restoreState()


def _lines(c, box: TuckBox) -> None:
    """Cut lines solid black, fold lines dashed grey: the two kinds never look alike."""
    c.saveState()
    c.setLineWidth(LINE_PT)
    c.setLineJoin(1)
    c.setStrokeGray(FOLD_GREY)
    c.setDash(list(FOLD_DASH), 0)
    for (x1, y1), (x2, y2) in box.folds:
        c.line(x1 * mm, y1 * mm, x2 * mm, y2 * mm)
    c.setStrokeGray(0)
    c.setDash([], 0)
    for line in box.cuts:
        path = c.beginPath()
        path.moveTo(line[0][0] * mm, line[0][1] * mm)
        for x, y in line[1:]:
            path.lineTo(x * mm, y * mm)
        c.drawPath(path, stroke=1, fill=0)
    c.restoreState()


def _legend(c, game: Game, box: TuckBox, title: str, lang: str, number: int, count: int, total: int, paper: str) -> None:
    """What the lines mean, how to put the box together and what it holds, in the legend's room
    (the text shrinks, down to 5 pt, until it fits there)."""
    r = box.legend
    W, H, D = box.inner
    fields = dict(title=title, cards=box.cards, thickness=f"{box.thickness:g}", width=f"{W:.1f}", height=f"{H:.1f}",
                  depth=f"{D:.1f}", number=number, count=count, total=total, paper=PAPER_NAMES.get(paper, paper))
    texts = [words.word("tuckbox.how", lang, game),
             words.word("tuckbox.holds_split" if count > 1 else "tuckbox.holds", lang, game, **fields)]
    size = 7.0
    while True:
        lead = size * 1.35 / mm  # mm
        lines = [line for text in texts for line in break_lines(text, GOTHIC, size, r.w * mm, lang)]
        if (len(lines) + 1) * lead + 1 <= r.h or size <= 5.0:
            break
        size -= 0.25
    top = r.y + r.h - lead  # the first baseline: the line samples
    cut = words.word("tuckbox.cut", lang, game)
    fx = r.x + 12 + string_width(cut, GOTHIC, size, lang) / mm + 6
    c.saveState()
    c.setFillGray(0.2)
    c.setFont(GOTHIC, size)
    c.setLineWidth(LINE_PT)
    c.setStrokeGray(0)
    c.line(r.x * mm, (top + 0.9) * mm, (r.x + 10) * mm, (top + 0.9) * mm)
    draw_string(c, (r.x + 12) * mm, top * mm, cut, lang)
    c.setStrokeGray(FOLD_GREY)
    c.setDash(list(FOLD_DASH), 0)
    c.line(fx * mm, (top + 0.9) * mm, (fx + 10) * mm, (top + 0.9) * mm)
    c.setDash([], 0)
    draw_string(c, (fx + 12) * mm, top * mm, words.word("tuckbox.fold", lang, game), lang)
    for i, line in enumerate(lines):
        draw_string(c, r.x * mm, (top - (i + 1) * lead) * mm, line, lang)
    c.restoreState()
