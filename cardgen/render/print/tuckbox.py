"""A tuck box for the deck: one flat net per page, cut on the solid lines, fold on the dashed.

Sizes come from the cards and the deck:

- front and back panels: card width + clearance by card height + clearance;
- sides, top lid, bottom and the dust flaps: the deck's depth, card count x per-card
  thickness (default 0.30 mm, a 300 gsm card) + clearance;
- a tuck flap on the lid, a glue flap on the side of the back.

The net is laid out  side | front | side | back | glue  from left to right, lid and tuck flap
above the front, bottom flap below it, dust flaps on the sides.  A deck too thick for one box
on the paper is split into equal boxes (one page each), and the page says so.  The front
shows the game's title over its back art (the deck's common back, drawn as on the cards).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from reportlab.lib.units import mm

from ... import words
from ...errors import CardgenError
from ...fonts import GOTHIC, MINCHO, register_fonts
from .sheet import PAPERS, binary_streams, new_canvas

CARD_THICKNESS_MM = 0.30
CLEARANCE_MM = 1.0  # play around the deck, in width, height and depth
GLUE_MM = 10.0
TUCK_MAX_MM = 18.0
MARGIN_MM = 8.0  # from the paper edge: printers' margin and room for the label


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class TuckBox:
    """The net of one tuck box on a page, in mm from the page's lower-left corner."""

    page: tuple[float, float]
    cards: int  # cards in this box
    thickness: float  # per card
    inner: tuple[float, float, float]  # width, height, depth the deck gets
    panels: dict[str, Rect]

    @property
    def outline(self) -> Rect:
        xs = [p.x for p in self.panels.values()] + [p.x + p.w for p in self.panels.values()]
        ys = [p.y for p in self.panels.values()] + [p.y + p.h for p in self.panels.values()]
        return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def deck_depth(cards: int, thickness: float = CARD_THICKNESS_MM, clearance: float = CLEARANCE_MM) -> float:
    return cards * thickness + clearance


def tuckbox_geometry(card_size: tuple[float, float], cards: int, paper: str = "a4", thickness: float = CARD_THICKNESS_MM,
                     clearance: float = CLEARANCE_MM) -> list[TuckBox]:
    """The boxes (one per page) that hold `cards` cards of `card_size` mm on `paper`.

    The page turns to landscape when the net is wider than it is tall; a deck too deep for one
    net splits into the fewest equal boxes that fit.
    """
    if paper not in PAPERS:
        raise CardgenError(f"tuck box: paper {paper!r} is unknown; use {' or '.join(PAPERS)}")
    if not 0.05 <= thickness <= 2.0:
        raise CardgenError(f"--card-thickness {thickness:g} mm is out of range; use 0.05 to 2 mm (0.30 is a 300 gsm card)")
    pw, ph = PAPERS[paper]
    for boxes in range(1, max(1, cards) + 1):
        per_box = math.ceil(cards / boxes)
        net = _net(card_size, per_box, thickness, clearance)
        w, h = net
        for page in ((pw, ph), (ph, pw)):
            if w <= page[0] - 2 * MARGIN_MM and h <= page[1] - 2 * MARGIN_MM:
                out = []
                left = cards
                for _ in range(boxes):
                    n = min(per_box, left)
                    left -= n
                    out.append(_place(card_size, per_box, n, thickness, clearance, page))
                return out
        if per_box == 1:
            break
    raise CardgenError(f"tuck box: a {card_size[0]:g} x {card_size[1]:g} mm card does not fit a tuck box on "
                       f"{paper} paper; use larger paper or smaller cards")


def _dims(card_size, per_box, thickness, clearance):
    W = card_size[0] + clearance
    H = card_size[1] + clearance
    D = deck_depth(per_box, thickness, clearance)
    tuck = min(TUCK_MAX_MM, max(8.0, H / 5))
    return W, H, D, tuck


def _net(card_size, per_box, thickness, clearance) -> tuple[float, float]:
    W, H, D, tuck = _dims(card_size, per_box, thickness, clearance)
    return 2 * D + 2 * W + GLUE_MM, H + 2 * D + tuck


def _place(card_size, per_box, n, thickness, clearance, page) -> TuckBox:
    W, H, D, tuck = _dims(card_size, per_box, thickness, clearance)
    nw, nh = _net(card_size, per_box, thickness, clearance)
    x0 = (page[0] - nw) / 2
    y0 = (page[1] - nh) / 2 + D  # bottom of the body row (the bottom flap hangs below)
    dust = min(D, W / 2) * 0.9
    panels = {
        "side_left": Rect(x0, y0, D, H),
        "front": Rect(x0 + D, y0, W, H),
        "side_right": Rect(x0 + D + W, y0, D, H),
        "back": Rect(x0 + 2 * D + W, y0, W, H),
        "glue": Rect(x0 + 2 * D + 2 * W, y0 + 2, GLUE_MM, H - 4),
        "lid": Rect(x0 + D, y0 + H, W, D),
        "tuck": Rect(x0 + D, y0 + H + D, W, tuck),
        "bottom": Rect(x0 + D, y0 - D, W, D),
        "dust_top_left": Rect(x0, y0 + H, D, dust),
        "dust_top_right": Rect(x0 + D + W, y0 + H, D, dust),
        "dust_bottom_left": Rect(x0, y0 - dust, D, dust),
        "dust_bottom_right": Rect(x0 + D + W, y0 - dust, D, dust),
    }
    return TuckBox(page, n, thickness, (W, H, D), panels)


@binary_streams
def tuckbox_pdf(game, card_size: tuple[float, float], paper: str = "a4", lang: str = "ja",
                thickness: float = CARD_THICKNESS_MM, clearance: float = CLEARANCE_MM) -> bytes:
    """The tuck box PDF: one net per page (see the module doc)."""
    from ..cards.card import draw_face, faces

    register_fonts()
    boxes = tuckbox_geometry(card_size, game.total, paper, thickness, clearance)
    buffer = io.BytesIO()
    title = game.title.get(lang)
    c = new_canvas(buffer, boxes[0].page, f"{title} — tuck box")
    pairs = faces(game)
    back_face = next((b for _, b in pairs if not b.own_back), pairs[0][1] if pairs else None)
    for number, box in enumerate(boxes, start=1):
        c.setPageSize((box.page[0] * mm, box.page[1] * mm))
        p = box.panels
        # art first, then the lines over it
        front = p["front"]
        if back_face is not None:
            cw, ch = card_size
            draw_face(c, game, back_face, front.x + (front.w - cw) / 2, front.y + (front.h - ch) / 2, cw, ch, 0.0, lang)
        _label(c, title, front, 12, band=True)
        back = p["back"]
        if game.min_players != game.max_players:
            players = words.word("tuckbox.players_range", lang, game, min=game.min_players, max=game.max_players)
        else:
            players = words.word("tuckbox.players_solo" if game.min_players == 1 else "tuckbox.players_one", lang, game, n=game.min_players)
        count = f"{box.cards} / {game.total}" if len(boxes) > 1 else f"{game.total}"
        lines = [title, words.word("tuckbox.cards", lang, game, n=count), players]
        for i, text in enumerate(lines):
            _label(c, text, Rect(back.x, back.y + back.h * (0.62 - 0.09 * i), back.w, 8), 12 if i == 0 else 9)
        for name in ("side_left", "side_right"):
            side = p[name]
            if side.w >= 5:
                c.saveState()
                c.translate((side.x + side.w / 2) * mm, (side.y + side.h / 2) * mm)
                c.rotate(90)
                size = min(9.0, side.w * 0.55 / 0.3528)
                c.setFont(MINCHO, size)
                c.setFillColorRGB(0, 0, 0)
                c.drawCentredString(0, -size * 0.35, title)
                c.restoreState()
        if p["lid"].h >= 5:
            _label(c, title, p["lid"], min(9.0, p["lid"].h * 0.5 / 0.3528))
        _lines(c, box)
        info = (f"{title} — tuck box {number}/{len(boxes)}: {box.cards} cards x {thickness:g} mm, inside "
                f"{box.inner[0]:g} x {box.inner[1]:g} x {box.inner[2]:.3g} mm. Cut solid lines, fold dashed lines, "
                f"glue the flap behind the left side. Print at 100 % (actual size).")
        c.setFont(GOTHIC, 6)
        c.setFillColorRGB(0.3, 0.3, 0.3)
        c.drawString(MARGIN_MM * mm, (MARGIN_MM - 2.5) * mm, info)
        c.showPage()
    c.save()
    return buffer.getvalue()


def _label(c, text: str, r: Rect, size: float, band: bool = False) -> None:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    while size > 4 and stringWidth(text, MINCHO, size) > (r.w - 4) * mm:
        size -= 0.5
    cy = r.y + r.h / 2
    if band:
        cy = r.y + r.h * 0.86
        c.setFillColorRGB(1, 1, 1)
        c.rect(r.x * mm, (cy - 4.5) * mm, r.w * mm, 9 * mm, stroke=0, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont(MINCHO, size)
    c.drawCentredString((r.x + r.w / 2) * mm, cy * mm - size * 0.35, text)


def _lines(c, box: TuckBox) -> None:
    """Cut lines (solid) around the net, fold lines (dashed) between panels."""
    p = box.panels
    W, H, D = box.inner
    c.saveState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.5)
    for name, r in p.items():
        folds = _folds(name, r, p)
        edges = {
            "bottom": ((r.x, r.y), (r.x + r.w, r.y)),
            "top": ((r.x, r.y + r.h), (r.x + r.w, r.y + r.h)),
            "left": ((r.x, r.y), (r.x, r.y + r.h)),
            "right": ((r.x + r.w, r.y), (r.x + r.w, r.y + r.h)),
        }
        for edge, ((x1, y1), (x2, y2)) in edges.items():
            if edge in folds:
                c.setDash([2, 1.5])
            else:
                c.setDash([])
            c.line(x1 * mm, y1 * mm, x2 * mm, y2 * mm)
    c.restoreState()


def _folds(name: str, r: Rect, p: dict[str, Rect]) -> set[str]:
    """Edges of a panel that are folds (shared with the body), not cuts."""
    return {
        "side_left": {"right", "top", "bottom"},
        "front": {"left", "right", "top", "bottom"},
        "side_right": {"left", "right", "top", "bottom"},
        "back": {"left", "right"},
        "glue": {"left"},
        "lid": {"bottom", "top"},
        "tuck": {"bottom"},
        "bottom": {"top"},
        "dust_top_left": {"bottom"},
        "dust_top_right": {"bottom"},
        "dust_bottom_left": {"top"},
        "dust_bottom_right": {"top"},
    }.get(name, set())
