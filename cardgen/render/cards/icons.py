"""Vector icons drawn with ReportLab paths: never emoji or font glyphs, so they print anywhere.

Every icon is drawn in a 100 x 100 unit square (origin bottom-left) that is scaled to fit the
box and centred in it. `draw_icon` draws one icon or a row of `count` of them. Parameters:

- `colour`: the main ink; `accent`: a second colour some icons use (default: `colour`);
- `knockout`: the colour of holes and highlights (default white: the paper);
- `outline`: an optional stroke colour drawn around the shape (`outline_width` in units);
- `count`, `gap` (fraction of an icon), `align` (left/center/right), `per_row`: repeats.

Add an icon by writing `def _name(c, p)` that draws into the unit square and registering it
in `ICONS`; layouts then use it by name.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, Mapping

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO

from ...memo import Memo
from ..colour import THIN_RULE_PT, plate_colour
from ..forms import form_once

IconFn = Callable[[Any, "Params"], None]


@lru_cache(maxsize=512)
def colour(value: str | None) -> Color | None:
    """Parse "#rrggbb", "#rrggbbaa" or "none" into a ReportLab colour (None for none)."""
    if value is None:
        return None
    text = str(value).strip()
    if text.lower() in ("", "none", "transparent"):
        return None
    if text.startswith("#") and len(text) == 9:
        base = HexColor(text[:7])
        return Color(base.red, base.green, base.blue, alpha=int(text[7:], 16) / 255)
    return HexColor(text)


class Params:
    """The parameters of one icon, with colours already parsed."""

    def __init__(self, params: Mapping[str, Any]):
        self.raw = dict(params)
        self.colour = colour(params.get("colour") or "#000000")
        self.accent = colour(params.get("accent")) or self.colour
        self.knockout = colour(params.get("knockout") or "#FFFFFF")
        self.outline = colour(params.get("outline")) if params.get("outline") else None
        self.outline_width = float(params.get("outline_width", 4))

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)


# --- helpers -------------------------------------------------------------------------------------

def _fill(c, p: Params, path, fill=None, even_odd: bool = False) -> None:
    c.setFillColor(fill or p.colour)
    if p.outline is not None:
        c.setStrokeColor(p.outline)
        c.setLineWidth(p.outline_width)
        c.setLineJoin(1)
        c.drawPath(path, fill=1, stroke=1, fillMode=FILL_EVEN_ODD if even_odd else FILL_NON_ZERO)
    else:
        c.drawPath(path, fill=1, stroke=0, fillMode=FILL_EVEN_ODD if even_odd else FILL_NON_ZERO)


def _poly(c, points, close: bool = True):
    path = c.beginPath()
    path.moveTo(*points[0])
    for pt in points[1:]:
        path.lineTo(*pt)
    if close:
        path.close()
    return path


def _circle(c, x, y, r):
    path = c.beginPath()
    path.circle(x, y, r)
    return path


def _round_rect(c, x, y, w, h, r):
    path = c.beginPath()
    path.roundRect(x, y, w, h, r)
    return path


def _star_points(cx, cy, r_out, r_in, n=5, rotation=90.0):
    pts = []
    for k in range(2 * n):
        r = r_out if k % 2 == 0 else r_in
        a = math.radians(rotation + k * 180.0 / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def _stroke(c, colour_, width):
    c.setStrokeColor(colour_)
    c.setLineWidth(width)
    c.setLineCap(1)
    c.setLineJoin(1)


# --- icons ---------------------------------------------------------------------------------------

def _star(c, p):
    _fill(c, p, _poly(c, _star_points(50, 53, 49, 20)))


def _person(c, p):
    _fill(c, p, _circle(c, 50, 77, 16))
    path = c.beginPath()
    path.moveTo(18, 4)
    path.lineTo(18, 34)
    path.curveTo(18, 50, 32, 57, 50, 57)
    path.curveTo(68, 57, 82, 50, 82, 34)
    path.lineTo(82, 4)
    path.close()
    _fill(c, p, path)


def _sword(c, p):
    _fill(c, p, _poly(c, [(41, 33), (41, 82), (50, 99), (59, 82), (59, 33)]))
    _fill(c, p, _round_rect(c, 20, 24, 60, 10, 4))
    _fill(c, p, _round_rect(c, 44, 9, 12, 17, 2))
    _fill(c, p, _circle(c, 50, 7, 7))
    c.setFillColor(p.knockout)
    c.rect(48.5, 39, 3, 42, stroke=0, fill=1)


def _skull(c, p):
    _fill(c, p, _circle(c, 50, 58, 36))
    _fill(c, p, _round_rect(c, 30, 12, 40, 34, 6))
    c.setFillColor(p.knockout)
    for x in (36, 64):
        c.circle(x, 56, 10, stroke=0, fill=1)
    c.drawPath(_poly(c, [(50, 46), (44, 35), (56, 35)]), fill=1, stroke=0)
    for x in (40, 50, 60):
        c.rect(x - 1.6, 12, 3.2, 12, stroke=0, fill=1)


def _shield(c, p):
    def outline(inset):
        path = c.beginPath()
        path.moveTo(14 + inset, 90 - inset)
        path.lineTo(86 - inset, 90 - inset)
        path.lineTo(86 - inset, 54)
        path.curveTo(86 - inset, 28, 68, 13 + inset * 0.6, 50, 3 + inset * 1.2)
        path.curveTo(32, 13 + inset * 0.6, 14 + inset, 28, 14 + inset, 54)
        path.close()
        return path

    _fill(c, p, outline(0))
    _stroke(c, p.knockout, 4)
    c.drawPath(outline(9), fill=0, stroke=1)
    c.line(50, 81, 50, 16)
    c.line(23, 60, 77, 60)


def _banner(c, p):
    _fill(c, p, _round_rect(c, 16, 2, 7, 90, 2))
    _fill(c, p, _circle(c, 19.5, 94, 5))
    _fill(c, p, _poly(c, [(23, 88), (90, 88), (74, 68), (90, 48), (23, 48)]), fill=p.accent)


def _medal(c, p):
    _fill(c, p, _poly(c, [(26, 99), (44, 99), (58, 62), (40, 62)]), fill=p.accent)
    _fill(c, p, _poly(c, [(74, 99), (56, 99), (42, 62), (60, 62)]), fill=p.accent)
    _fill(c, p, _circle(c, 50, 35, 32))
    c.setFillColor(p.knockout)
    c.drawPath(_poly(c, _star_points(50, 34, 20, 8)), fill=1, stroke=0)


def _hourglass(c, p):
    _fill(c, p, _round_rect(c, 18, 87, 64, 10, 3))
    _fill(c, p, _round_rect(c, 18, 3, 64, 10, 3))
    glass = c.beginPath()
    glass.moveTo(27, 87)
    glass.lineTo(73, 87)
    glass.curveTo(73, 66, 57, 56, 55, 50)
    glass.curveTo(57, 44, 73, 34, 73, 13)
    glass.lineTo(27, 13)
    glass.curveTo(27, 34, 43, 44, 45, 50)
    glass.curveTo(43, 56, 27, 66, 27, 87)
    glass.close()
    c.setFillColor(p.knockout)
    _stroke(c, p.colour, 5)
    c.drawPath(glass, fill=1, stroke=1)
    # sand: a little left on top, a heap below
    _fill(c, p, _poly(c, [(38, 66), (62, 66), (51, 53), (49, 53)]), fill=p.accent)
    heap = c.beginPath()
    heap.moveTo(31, 16)
    heap.curveTo(36, 30, 44, 34, 50, 35)
    heap.curveTo(56, 34, 64, 30, 69, 16)
    heap.close()
    _fill(c, p, heap, fill=p.accent)


def _coffin(c, p):
    _fill(c, p, _poly(c, [(34, 99), (66, 99), (80, 72), (65, 1), (35, 1), (20, 72)]))
    c.setFillColor(p.knockout)
    c.rect(46.5, 28, 7, 52, stroke=0, fill=1)
    c.rect(36, 62, 28, 7, stroke=0, fill=1)


def _knife(c, p):
    c.saveState()
    c.translate(50, 50)
    c.rotate(-35)
    c.translate(-50, -50)
    blade = c.beginPath()
    blade.moveTo(41, 40)
    blade.lineTo(41, 103)
    blade.curveTo(53, 98, 61, 86, 61, 66)
    blade.lineTo(59, 40)
    blade.close()
    _fill(c, p, blade)
    _fill(c, p, _round_rect(c, 34, 34, 32, 7, 2))
    _fill(c, p, _round_rect(c, 42, -2, 16, 36, 5))
    c.setFillColor(p.knockout)
    for y in (6, 16, 26):
        c.circle(50, y, 2.4, stroke=0, fill=1)
    c.restoreState()


def _pin(c, p):
    path = c.beginPath()
    path.moveTo(50, 2)
    path.curveTo(44, 20, 17, 40, 17, 64)
    path.curveTo(17, 84, 32, 98, 50, 98)
    path.curveTo(68, 98, 83, 84, 83, 64)
    path.curveTo(83, 40, 56, 20, 50, 2)
    path.close()
    _fill(c, p, path)
    c.setFillColor(p.knockout)
    c.circle(50, 65, 14, stroke=0, fill=1)


def _heart_path(c, scale=1.0, cx=50, cy=50):
    def t(x, y):
        return cx + (x - 50) * scale, cy + (y - 50) * scale

    path = c.beginPath()
    path.moveTo(*t(50, 8))
    path.curveTo(*t(22, 32), *t(4, 50), *t(4, 68))
    path.curveTo(*t(4, 85), *t(17, 95), *t(30, 95))
    path.curveTo(*t(40, 95), *t(47, 89), *t(50, 80))
    path.curveTo(*t(53, 89), *t(60, 95), *t(70, 95))
    path.curveTo(*t(83, 95), *t(96, 85), *t(96, 68))
    path.curveTo(*t(96, 50), *t(78, 32), *t(50, 8))
    path.close()
    return path


def _heart(c, p):
    _fill(c, p, _heart_path(c))
    _stroke(c, p.knockout, 5)
    c.arc(16, 58, 44, 88, 110, 60)


def _drop(c, p):
    path = c.beginPath()
    path.moveTo(50, 99)
    path.curveTo(62, 78, 82, 58, 82, 36)
    path.curveTo(82, 16, 67, 2, 50, 2)
    path.curveTo(33, 2, 18, 16, 18, 36)
    path.curveTo(18, 58, 38, 78, 50, 99)
    path.close()
    _fill(c, p, path)
    _stroke(c, p.knockout, 6)
    c.arc(30, 14, 62, 46, 190, 60)


def _flower(c, p):
    for k in range(5):
        a = math.radians(90 + 72 * k)
        _fill(c, p, _circle(c, 50 + 27 * math.cos(a), 50 + 27 * math.sin(a), 21))
    c.setFillColor(p.knockout)
    c.circle(50, 50, 15, stroke=0, fill=1)
    c.setFillColor(p.accent if p.accent is not p.colour else p.colour)
    c.circle(50, 50, 9, stroke=0, fill=1)


def _toilet(c, p):
    _fill(c, p, _round_rect(c, 62, 50, 26, 46, 5))
    bowl = c.beginPath()
    bowl.moveTo(10, 58)
    bowl.lineTo(68, 58)
    bowl.lineTo(68, 48)
    bowl.curveTo(68, 32, 58, 25, 50, 23)
    bowl.lineTo(54, 4)
    bowl.lineTo(24, 4)
    bowl.lineTo(28, 26)
    bowl.curveTo(16, 32, 10, 44, 10, 58)
    bowl.close()
    _fill(c, p, bowl)
    _fill(c, p, _round_rect(c, 6, 60, 64, 7, 3))
    c.setFillColor(p.knockout)
    c.roundRect(68, 84, 12, 4, 2, stroke=0, fill=1)


def _watering_can(c, p):
    body = _poly(c, [(34, 12), (74, 12), (78, 62), (30, 62)])
    _fill(c, p, body)
    _fill(c, p, _poly(c, [(36, 44), (34, 34), (8, 66), (14, 70)]))
    c.saveState()
    c.translate(10, 70)
    c.rotate(40)
    _fill(c, p, _round_rect(c, -9, -3, 18, 7, 3))
    c.restoreState()
    _stroke(c, p.colour, 7)
    handle = c.beginPath()
    handle.moveTo(76, 52)
    handle.curveTo(96, 52, 96, 28, 74, 24)
    c.drawPath(handle, fill=0, stroke=1)
    handle2 = c.beginPath()
    handle2.moveTo(38, 62)
    handle2.curveTo(42, 84, 66, 84, 70, 62)
    c.drawPath(handle2, fill=0, stroke=1)
    # water
    c.setFillColor(p.accent)
    for x, y in ((6, 52), (14, 48), (3, 40)):
        c.circle(x, y, 3, stroke=0, fill=1)


def _scroll(c, p):
    _fill(c, p, _round_rect(c, 18, 14, 64, 72, 3))
    _fill(c, p, _round_rect(c, 10, 80, 80, 12, 6))
    _fill(c, p, _round_rect(c, 10, 8, 80, 12, 6))
    _stroke(c, p.knockout, 4)
    for y in (66, 54, 42, 30):
        c.line(28, y, 72, y)


def _trophy(c, p):
    cup = c.beginPath()
    cup.moveTo(24, 94)
    cup.lineTo(76, 94)
    cup.lineTo(76, 74)
    cup.curveTo(76, 56, 64, 46, 50, 44)
    cup.curveTo(36, 46, 24, 56, 24, 74)
    cup.close()
    _fill(c, p, cup)
    _stroke(c, p.colour, 6)
    for side in (-1, 1):
        h = c.beginPath()
        h.moveTo(50 + side * 26, 88)
        h.curveTo(50 + side * 44, 88, 50 + side * 44, 62, 50 + side * 20, 56)
        c.drawPath(h, fill=0, stroke=1)
    _fill(c, p, _poly(c, [(45, 46), (55, 46), (57, 20), (43, 20)]))
    _fill(c, p, _round_rect(c, 28, 4, 44, 14, 3))
    c.setFillColor(p.knockout)
    c.drawPath(_poly(c, _star_points(50, 72, 12, 5)), fill=1, stroke=0)


def _card(c, p):
    c.saveState()
    c.translate(50, 50)
    c.rotate(-8)
    _fill(c, p, _round_rect(c, -30, -44, 60, 88, 7))
    _stroke(c, p.knockout, 4)
    c.roundRect(-22, -36, 44, 72, 4, stroke=1, fill=0)
    c.restoreState()


def _crossed_swords(c, p):
    for angle in (-38, 38):
        c.saveState()
        c.translate(50, 50)
        c.rotate(angle)
        c.scale(0.95, 0.95)
        c.translate(-50, -50)
        _sword(c, p)
        c.restoreState()


def _check(c, p):
    _stroke(c, p.colour, 16)
    c.drawPath(_poly(c, [(12, 52), (38, 24), (88, 80)], close=False), fill=0, stroke=1)


def _cross(c, p):
    _stroke(c, p.colour, 16)
    c.line(18, 18, 82, 82)
    c.line(18, 82, 82, 18)


def _ribbon(c, p):
    _fill(c, p, _poly(c, [(50, 56), (8, 84), (4, 56), (10, 26), (50, 46)]))
    _fill(c, p, _poly(c, [(50, 56), (92, 84), (96, 56), (90, 26), (50, 46)]))
    _fill(c, p, _poly(c, [(44, 50), (28, 6), (40, 10), (48, 2)]), fill=p.accent)
    _fill(c, p, _poly(c, [(56, 50), (72, 6), (60, 10), (52, 2)]), fill=p.accent)
    _fill(c, p, _round_rect(c, 40, 40, 20, 22, 6), fill=p.accent)


def _magnifier(c, p):
    _stroke(c, p.colour, 11)
    c.circle(40, 60, 28, stroke=1, fill=0)
    c.setLineWidth(16)
    c.line(62, 38, 88, 12)
    _stroke(c, p.knockout, 4)
    c.arc(22, 42, 58, 78, 110, 60)


def _hat(c, p):
    """A top hat: the Mad Hatter's, for Wonderland."""
    _fill(c, p, _round_rect(c, 4, 14, 92, 12, 6))
    _fill(c, p, _poly(c, [(22, 22), (78, 22), (84, 92), (16, 92)]))
    _fill(c, p, _poly(c, [(20, 32), (80, 32), (81, 44), (19, 44)]), fill=p.accent)


def _eye(c, p):
    path = c.beginPath()
    path.moveTo(2, 50)
    path.curveTo(22, 84, 78, 84, 98, 50)
    path.curveTo(78, 16, 22, 16, 2, 50)
    path.close()
    _fill(c, p, path)
    c.setFillColor(p.knockout)
    c.circle(50, 50, 19, stroke=0, fill=1)
    c.setFillColor(p.accent if p.accent is not p.colour else p.colour)
    c.circle(50, 50, 10, stroke=0, fill=1)


def _envelope(c, p):
    _fill(c, p, _round_rect(c, 4, 18, 92, 64, 5))
    _stroke(c, p.knockout, 4)
    c.drawPath(_poly(c, [(8, 78), (50, 44), (92, 78)], close=False), fill=0, stroke=1)
    c.setFillColor(p.accent)
    c.drawPath(_heart_path(c, 0.26, 50, 46), fill=1, stroke=0)


def _diamond(c, p):
    _fill(c, p, _poly(c, [(50, 98), (88, 50), (50, 2), (12, 50)]))


def _circle_icon(c, p):
    _fill(c, p, _circle(c, 50, 50, 48))


def _ring(c, p):
    _stroke(c, p.colour, float(p.get("width", 6)))
    c.circle(50, 50, 46, stroke=1, fill=0)


def _suit_heart(c, p):
    _fill(c, p, _heart_path(c))


# --- standard playing-card suits (the standard-deck sheet and corner indices) -----------------

def _tangent_points(px: float, py: float, cx: float, cy: float, r: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two points where lines from (px, py) touch the circle (cx, cy, r)."""
    dx, dy = px - cx, py - cy
    d = math.hypot(dx, dy)
    a = math.acos(r / d)
    base = math.atan2(dy, dx)
    return ((cx + r * math.cos(base + a), cy + r * math.sin(base + a)),
            (cx + r * math.cos(base - a), cy + r * math.sin(base - a)))


def _lobes(canvas, cx: float, cy: float, s: float, tip_y: float, lobe_y: float) -> None:
    """A heart-like shape of height s centred at (cx, cy): two lobes and a tip (tip up or down)."""
    r = 0.27 * s
    lx, rx, ly = cx - 0.235 * s, cx + 0.235 * s, cy + lobe_y * s
    tx, ty = cx, cy + tip_y * s
    canvas.circle(lx, ly, r, stroke=0, fill=1)
    canvas.circle(rx, ly, r, stroke=0, fill=1)
    outer_l = min(_tangent_points(tx, ty, lx, ly, r), key=lambda p: p[0])
    outer_r = max(_tangent_points(tx, ty, rx, ly, r), key=lambda p: p[0])
    path = canvas.beginPath()
    path.moveTo(tx, ty)
    path.lineTo(*outer_l)
    path.lineTo(lx, ly)
    path.lineTo(rx, ly)
    path.lineTo(*outer_r)
    path.close()
    canvas.drawPath(path, stroke=0, fill=1)


def _stem(canvas, cx: float, cy: float, s: float, top: float) -> None:
    path = canvas.beginPath()
    path.moveTo(cx - 0.03 * s, cy + top * s)
    path.curveTo(cx - 0.04 * s, cy - 0.3 * s, cx - 0.12 * s, cy - 0.44 * s, cx - 0.19 * s, cy - 0.5 * s)
    path.lineTo(cx + 0.19 * s, cy - 0.5 * s)
    path.curveTo(cx + 0.12 * s, cy - 0.44 * s, cx + 0.04 * s, cy - 0.3 * s, cx + 0.03 * s, cy + top * s)
    path.close()
    canvas.drawPath(path, stroke=0, fill=1)


def _suit_star(canvas, cx: float, cy: float, s: float) -> None:
    path = canvas.beginPath()
    for i in range(10):
        radius = 0.5 * s if i % 2 == 0 else 0.2 * s
        angle = math.pi / 2 + i * math.pi / 5
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle) - 0.03 * s
        path.moveTo(x, y) if i == 0 else path.lineTo(x, y)
    path.close()
    canvas.drawPath(path, stroke=0, fill=1)


def draw_suit(canvas, suit: str | None, cx: float, cy: float, size: float, fill) -> None:
    """Draw a suit symbol of height `size` centred on (cx, cy) as filled vector shapes.

    `suit` is spades, hearts, diamonds or clubs; anything else (a joker) draws a star. The fill
    colour is set here and restored afterwards.
    """
    canvas.saveState()
    canvas.setFillColor(fill)
    s = size
    if suit == "diamonds":
        path = canvas.beginPath()
        path.moveTo(cx, cy + 0.5 * s)
        path.lineTo(cx + 0.37 * s, cy)
        path.lineTo(cx, cy - 0.5 * s)
        path.lineTo(cx - 0.37 * s, cy)
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
    elif suit == "hearts":
        _lobes(canvas, cx, cy, s, tip_y=-0.5, lobe_y=0.23)
    elif suit == "spades":
        _lobes(canvas, cx, cy + 0.08 * s, s * 0.86, tip_y=0.5 / 0.86 * 0.92, lobe_y=-0.14)
        _stem(canvas, cx, cy, s, top=0.0)
    elif suit == "clubs":
        r = 0.2 * s
        canvas.circle(cx, cy + 0.27 * s, r, stroke=0, fill=1)
        canvas.circle(cx - 0.23 * s, cy - 0.06 * s, r, stroke=0, fill=1)
        canvas.circle(cx + 0.23 * s, cy - 0.06 * s, r, stroke=0, fill=1)
        canvas.circle(cx, cy + 0.05 * s, 0.12 * s, stroke=0, fill=1)
        _stem(canvas, cx, cy, s, top=0.05)
    else:
        _suit_star(canvas, cx, cy, s)
    canvas.restoreState()


def suit_width(size: float) -> float:
    """The width `draw_suit` uses at this height (for layout)."""
    return 0.8 * size


def _standard_suit(suit: str) -> IconFn:
    """A standard suit as a layout icon, filling the unit square in the box's colour."""
    def draw(c, p):
        draw_suit(c, suit, 50, 50, 100, p.colour)
    return draw


ICONS: dict[str, IconFn] = {
    "star": _star,
    "person": _person,
    # requiem's seven suits
    "sword": _sword,
    "skull": _skull,
    "shield": _shield,
    "banner": _banner,
    "medal": _medal,
    "hourglass": _hourglass,
    "coffin": _coffin,
    # crimes (alice)
    "knife": _knife,
    "weapon": _knife,
    "pin": _pin,
    "place": _pin,
    "heart": _heart,
    "motive": _heart,
    # ohanatsumi
    "drop": _drop,
    "urge": _drop,
    "flower": _flower,
    "toilet": _toilet,
    "restroom": _toilet,
    "watering_can": _watering_can,
    "elf": _watering_can,
    "scroll": _scroll,
    "quest": _scroll,
    "trophy": _trophy,
    "fame": _trophy,
    "card": _card,
    "event": _card,
    "crossed_swords": _crossed_swords,
    "boss": _crossed_swords,
    "check": _check,
    "cross": _cross,
    # alice and generic
    "ribbon": _ribbon,
    "magnifier": _magnifier,
    "hat": _hat,
    "eye": _eye,
    "envelope": _envelope,
    "diamond": _diamond,
    "circle": _circle_icon,
    "ring": _ring,
    # standard suits (suit_heart is the rounder heart of the alice back)
    "suit_spade": _standard_suit("spades"),
    "suit_club": _standard_suit("clubs"),
    "suit_diamond": _standard_suit("diamonds"),
    "suit_heart": _suit_heart,
}

#: Patterns fill their whole box (tiled, clipped to it): for card backs.
PATTERNS = ("lattice", "dots", "stripes", "checker", "tile")


def icon_names() -> list[str]:
    return sorted(ICONS) + list(PATTERNS)


def draw_icon(c, name: str, x: float, y: float, w: float, h: float, params: Mapping[str, Any], game=None) -> None:
    """Draw icon `name` (or a row of `count` of them) into the box (x, y, w, h) in points; with `game`,
    its folder's icons/<name>.svg comes first (see `icon_fn`)."""
    if name in PATTERNS:
        _draw_pattern(c, name, x, y, w, h, Params(params))
        return
    fn = icon_fn(name, game)
    if fn is None:
        raise KeyError(f"unknown icon {name!r}; known icons: {', '.join(icon_names())}")
    p = Params(params)
    count = int(p.get("count", 1) or 0)
    if count <= 0:
        return
    gap = float(p.get("gap", 0.15))
    per_row = int(p.get("per_row", count) or count)
    rows = math.ceil(count / per_row)
    cols = min(count, per_row)
    # The largest square icon such that `cols` of them with gaps fit the width and `rows` the height.
    side = min(w / (cols + gap * (cols - 1)), h / (rows + gap * (rows - 1)))
    step = side * (1 + gap)
    _spend(fn, name, count)
    form = _icon_form(c, name, fn, p)
    align = p.get("align", "center")
    valign = p.get("valign", "middle")
    block_h = rows * side + (rows - 1) * side * gap
    if valign == "top":
        top = y + h
    elif valign == "bottom":
        top = y + block_h
    else:
        top = y + (h + block_h) / 2
    for index in range(count):
        row, col = divmod(index, per_row)
        in_row = min(per_row, count - row * per_row)
        row_w = in_row * side + (in_row - 1) * side * gap
        if align == "left":
            left = x
        elif align == "right":
            left = x + w - row_w
        else:
            left = x + (w - row_w) / 2
        ix = left + col * step
        iy = top - side - row * step
        c.saveState()
        c.transform(side / 100.0, 0, 0, side / 100.0, ix, iy)  # one `cm`: translate, then scale
        if form is not None:
            c.doForm(form)
        else:
            fn(c, p)
        c.restoreState()


_DRAWING_KEYS = ("colour", "accent", "knockout", "outline", "outline_width", "width")


def _icon_form(c, name: str, fn: IconFn, p: Params) -> str | None:
    """On a ReportLab canvas, draw each icon (per colours) once per file as a form XObject."""
    if not (hasattr(c, "beginForm") and hasattr(c, "doForm")):
        return None
    key = (name, getattr(fn, "source", None)) + tuple(str(p.raw.get(k)) for k in _DRAWING_KEYS)
    return form_once(c, "icon", key, "CardgenIcon", (-40, -40, 140, 140), lambda: fn(c, p))


def _draw_pattern(c, name: str, x: float, y: float, w: float, h: float, p: Params) -> None:
    cell = max(float(p.get("cell", 14)), 1.0)  # points
    width = float(p.get("width", 0.6))
    c.saveState()
    clip = c.beginPath()
    clip.rect(x, y, w, h)
    c.clipPath(clip, stroke=0, fill=0)
    if name in ("lattice", "stripes"):
        _stroke(c, plate_colour(c, p.colour, width, THIN_RULE_PT), width)  # thin lines: K only in the CMYK file
        path = c.beginPath()
        n = int((w + h) / cell) + 2
        for k in range(-n, n + 1):
            x0 = x + k * cell
            path.moveTo(x0, y)
            path.lineTo(x0 + h, y + h)
            if name == "lattice":
                path.moveTo(x0, y + h)
                path.lineTo(x0 + h, y)
        c.drawPath(path, stroke=1, fill=0)
    elif name == "checker":
        _tiled_rows(c, x, y, w, h, 2 * cell, cell, cell, ("checker", cell, str(p.colour)),
                    lambda: (c.setFillColor(p.colour), c.rect(-cell / 2, -cell / 2, cell, cell, stroke=0, fill=1)),
                    shift=cell, margin=cell)
    elif name == "dots":
        r = float(p.get("radius", 1.2))
        _tiled_rows(c, x, y, w, h, cell, cell * 0.866, r, ("dots", r, str(p.colour)),
                    lambda: (c.setFillColor(p.colour), c.circle(0, 0, r, stroke=0, fill=1)),
                    shift=cell / 2, margin=cell)
    elif name == "tile":
        motif = str(p.get("motif", "diamond"))
        fn = ICONS.get(motif, _diamond)
        side = cell * float(p.get("motif_size", 0.45))

        def draw_motif():
            c.translate(-side / 2, -side / 2)
            c.scale(side / 100, side / 100)
            fn(c, p)

        key = ("tile", motif, side, str(p.colour), str(p.accent), str(p.knockout))
        _tiled_rows(c, x, y, w, h, cell, cell * 0.866, side, key, draw_motif, shift=cell / 2, margin=cell)
    c.restoreState()


def _tiled_rows(c, x, y, w, h, dx, dy, extent, key, draw_motif, shift, margin) -> None:
    """Repeat a motif (drawn around the origin) every dx along rows dy apart, odd rows shifted.

    On a ReportLab canvas one row of motifs becomes a form XObject, drawn once per file, so a
    patterned back costs a few dozen operators instead of thousands of paths.
    """
    cols = int((w + 2 * margin) / dx) + 2
    rows = int((h + 2 * margin) / dy) + 2
    use_forms = hasattr(c, "beginForm") and hasattr(c, "doForm")
    if not use_forms:
        for j in range(rows):
            for i in range(cols):
                c.saveState()
                c.translate(x - margin + i * dx + (shift if j % 2 else 0), y - margin + j * dy)
                draw_motif()
                c.restoreState()
        return
    def draw_row() -> None:
        for i in range(cols):
            c.saveState()
            c.translate(i * dx, 0)
            draw_motif()
            c.restoreState()

    pad = extent * 2 + 2
    row = form_once(c, "pattern", ("row", cols, dx) + key, "CardgenRow", (-pad, -pad, cols * dx + pad, pad), draw_row)
    for j in range(rows):
        c.saveState()
        c.translate(x - margin + (shift if j % 2 else 0), y - margin + j * dy)
        c.doForm(row)
        c.restoreState()


# --- icons inside text ------------------------------------------------------------------------------
# An icon in a text (`:coin:` or `{icon:coin}`, see cardgen.text.mark_icons) is one em wide, like an
# ideograph, and drawn as a square of INLINE_SIDE em standing on the baseline in the text's colour.
# It comes from the game folder's icons/<name>.svg (monochrome: every fill and stroke takes the text's
# colour), else from the bundled ICONS.

GAME_ICONS = "icons"  # a game's own inline icons: <game folder>/icons/<name>.svg
INLINE_SIDE = 0.88  # em: an ideograph's ascent, so the icon reaches as high as the text does


# Each loaded game's icon files by name. A Game is a snapshot of its folder (`cardgen watch`
# loads a new one on a change), and a build draws thousands of icons: the lookup resolves paths.
_GAME_ICON = Memo(4096)


def _game_icon(game, name: str):
    """The game folder's icons/<name>.svg, or None."""
    if game is None or getattr(game, "root", None) is None:
        return None
    return _GAME_ICON((name,), lambda: _find_game_icon(game, name), (game,))


def _find_game_icon(game, name: str):
    from ...io import paths

    found = paths.inside(game.root, f"{GAME_ICONS}/{name}.svg") if (game.root / GAME_ICONS).is_dir() else None
    return found if found is not None and found.is_file() else None


def inline_known(game, name: str) -> bool:
    """Whether `name` can be drawn inside text for `game` (its icons/ folder or the bundled set)."""
    return name in ICONS or _game_icon(game, name) is not None


def inline_names(game) -> list[str]:
    """Every icon name usable inside text for `game`, for error messages."""
    own = []
    if game is not None and getattr(game, "root", None) is not None and (game.root / GAME_ICONS).is_dir():
        own = [p.stem for p in sorted((game.root / GAME_ICONS).glob("*.svg"))[:200]]
    return sorted(set(ICONS) | set(own))


def draw_inline(c, name: str, x: float, baseline_y: float, size: float, colour: str, game=None) -> float:
    """Draw inline icon `name` with its advance starting at `x` on the baseline `baseline_y` (points),
    for text of `size` pt in `colour` ("#rrggbb" or "#rrggbbaa"); return the advance (size * text.ICON_EM).

    This is what card text uses for every "icon" run of `cardgen.text.runs`; a rulebook paragraph
    can call it the same way. KeyError for a name neither `game`'s icons/ nor the bundled set has
    (check with `inline_known` first to report it at a file:line).
    """
    from ...text import ICON_EM

    advance = ICON_EM * size
    side = INLINE_SIDE * size
    fn = icon_fn(name, game)
    if fn is None:
        raise KeyError(f"unknown icon {name!r}; known icons: {', '.join(inline_names(game))}")
    c.saveState()
    c.transform(side / 100.0, 0, 0, side / 100.0, x + (advance - side) / 2, baseline_y)  # one `cm`, as draw_icon
    p = Params({"colour": colour})
    form = _icon_form(c, name, fn, p)
    if form is not None:
        c.doForm(form)
    else:
        fn(c, p)
    c.restoreState()
    return advance


def icon_fn(name: str, game=None) -> IconFn | None:
    """What draws icon `name` into the 100-unit square: the game folder's icons/<name>.svg first, then
    the bundled ICONS; None for neither."""
    path = _game_icon(game, name)
    if path is None:
        return ICONS.get(name)

    def draw(c, p: Params) -> None:
        _draw_svg_unit(c, path, name, p.colour)

    draw.source = str(path)  # type: ignore[attr-defined]  # its forms are not the bundled icon's of that name
    draw.path = path  # type: ignore[attr-defined]
    return draw


def spend_uses(name: str, game, uses: int) -> None:
    """Count `uses` of icon `name` on the face being drawn (art.spend_segments), before any is drawn:
    a game's SVG icon is drawn once per file as a form, but a rasteriser redraws it at every use."""
    fn = icon_fn(name, game)
    if fn is not None:
        _spend(fn, name, uses)


def _spend(fn: IconFn, name: str, uses: int) -> None:
    path = getattr(fn, "path", None)
    if path is None or uses <= 0:
        return  # a bundled icon: a few dozen segments
    from .art import spend_segments

    stat = path.stat()
    segments = _svg_icon_segments(path, stat.st_mtime_ns, stat.st_size, name)
    spend_segments(segments, _icon_at(path), f"icon '{name}'", uses)


@lru_cache(maxsize=64)
def _svg_icon_segments(path, mtime_ns: int, size: int, name: str) -> int:
    """What one use of a game's SVG icon costs to draw, per version of the file (read, not converted)."""
    from .art import _parse_svg, svg_segments

    return svg_segments(_parse_svg(_svg_icon_bytes(path, name), f"{GAME_ICONS}/{name}.svg", _icon_at(path)))


def _icon_at(path):
    from ...io.reader import display_path
    from ...model import Location

    return Location(display_path(path), 1, 1)


def _svg_icon_bytes(path, name: str) -> bytes:
    from ...errors import DataError, Problem
    from ...io import limits

    with path.open("rb") as f:
        data = f.read(limits.MAX_FILE_BYTES + 1)
    if len(data) > limits.MAX_FILE_BYTES:
        raise DataError([Problem(_icon_at(path), f"icon '{name}' is larger than {limits.MAX_FILE_BYTES // 1024 // 1024} MB")])
    return data


def _svg_icon_drawing(path, name: str):
    """A game's SVG icon file as a ReportLab drawing (validated as art is)."""
    from .art import svg_drawing

    return svg_drawing(_svg_icon_bytes(path, name), path, f"{GAME_ICONS}/{name}.svg", _icon_at(path))


def _draw_svg_unit(c, path, name: str, ink) -> None:
    """A game's SVG icon, every fill and stroke in `ink`, fitted and centred in the 100-unit square."""
    from .art import draw_drawing

    drawing = _svg_icon_drawing(path, name)  # parsed afresh: recolouring changes it
    _recolour(drawing, ink)
    scale = 100.0 / max(drawing.width, drawing.height)
    c.saveState()
    c.translate((100 - drawing.width * scale) / 2, (100 - drawing.height * scale) / 2)
    c.scale(scale, scale)
    draw_drawing(c, drawing)
    c.restoreState()


def _recolour(node, ink) -> None:
    """Every fill and stroke of a ReportLab drawing (and its groups) in `ink`; 'none' stays none."""
    for attr in ("fillColor", "strokeColor"):
        if getattr(node, attr, None) is not None:
            setattr(node, attr, ink)
    for child in getattr(node, "contents", ()) or ():
        _recolour(child, ink)
