"""Home-print sheets: imposition (duplex, gutterfold, simplex), bleed, crop marks, footer,
a card checklist and a duplex calibration page.

All geometry is in millimetres with the PDF's origin (lower-left of the page); only the
drawing converts to points.

How a sheet is laid out (what prints best on a home printer)
------------------------------------------------------------

- **Printer margin** (`--margin`, default 5 mm).  Nothing is placed closer than the margin
  to a paper edge: not the cards' bleed, not the footer, not a crop mark.  Most inkjet and
  laser printers cannot print the outer 3-5 mm.
- **Grid.** Per axis, `n = floor((paper - 2*margin + gutter) / (card + 2*bleed + gutter))`;
  the block is centred (a footer strip aside, see below), so a duplex back sheet (the mirror
  image) lands on the same grid.  No fit is a `CardgenError` that says what to change.
- **Home bleed, default on** (`bleed=None`).  The grid is the one that fits without bleed
  (3 x 3 poker cards on A4 and Letter), and whatever room is left along each axis becomes
  bleed: `b = (paper - 2*margin - footer - n*card - (n-1)*gutter) / (2n)`, capped at
  `HOME_BLEED_MAX_MM`.  Neighbouring cards are `2b` apart, so their backgrounds meet in the
  middle of the gutter and the outer cards' backgrounds reach the printable edge.  Poker on
  A4: 1.58 mm left/right, 2.78 mm top/bottom; on Letter (the footer turns to run along a
  side): 1.97 mm left/right and (279.4 - 10 - 266.7) / 6 = 0.45 mm top/bottom.
  An explicit `--bleed N` is a minimum: the grid shrinks until N fits (A4 and Letter take 6
  poker cards with `--bleed 3`); `--bleed 0` gives the old shared cut lines.
- **Crop marks** run along every cut line, in the free space beside the cards: outward from
  the block up to the printer margin, and across the gutters (where neighbours' bleeds
  meet) when the margins are too thin, so every cut has a mark that prints.  Marks are
  never on a card and never within the margin of the paper edge; they have a white halo so
  they show on a dark bleed.  `corners` = marks up to `MARK_LEN_MM`, `lines` = full length,
  `none`.
- **Footer**: game, sheet n of m, front/back, card ids, card size (measure a card to check
  the scale), the flip and "print at 100 % / actual size", in a strip the grid leaves free
  (rotated along a side when that keeps more bleed, as on Letter).
- **Imposition.**  `duplex`: each front sheet is followed by its back sheet; `long` puts the
  back of the card at (x, y) at (paper_w - x - card_w, y), `short` at (x, paper_h - y -
  card_h), `none` at the same place; the back offset moves every back (`calibration_pdf`
  measures it).  `gutterfold`: one side of the paper; fronts on one half, each card's back
  on the other half at its mirror image across a fold line, bleeds meeting at the fold; fold,
  glue, cut.  The page (portrait or landscape) and the fold direction are chosen to fit the
  most cards.  On a horizontal fold the backs are drawn upside down so that a card turned
  over sideways shows its back upright, as on a long-edge duplex.  `simplex`: every front
  sheet, then every back sheet at the same positions (print single-sided; cut fronts and
  backs apart and sleeve or glue them together, or print only the fronts).
- After the sheets, a **checklist** page lists every card (id, name, copy of count, a box
  to tick).  `ink_saver` draws the faces with pale fills, no full-bleed backgrounds and dark
  text, on the same geometry; `corner_guides` draws rounded-corner cut guides.
"""

from __future__ import annotations

import functools
import io
import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from reportlab import rl_config
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from ... import printed, words
from ...errors import CardgenError
from ...fonts import GOTHIC, draw_string, register_fonts, string_width
from ...langs import pdf_lang
from ...text import break_lines

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAPER_NAMES = {"a4": "A4", "letter": "Letter"}
CROP_MARKS = ("corners", "lines", "none")
DUPLEX = ("long", "short", "none")
IMPOSITIONS = ("duplex", "gutterfold", "simplex")

DEFAULT_MARGIN_MM = 5.0
HOME_BLEED_MAX_MM = 3.0  # automatic home bleed stops here (more only wastes ink)
# Less than this on a cut edge is no real bleed: half the 3 mm standard, just over the ±1 mm a
# duplex printer misregisters (DESIGN.md), so a cut a little off still shows no white edge.
REAL_BLEED_MM = 1.5
FITS = ("count", "bleed")  # --fit: the most cards a sheet, or the most that keep REAL_BLEED_MM
MARK_WIDTH_PT = 0.4
MARK_HALO_PT = 1.4  # white under each mark, so it shows on a dark bleed
MARK_GAP_MM = 0.5  # between a card's trim (or its bleed, where there is room) and the start of a mark
MARK_LEN_MM = 5.0  # corners mode
MIN_MARK_MM = 2.0  # an outer mark shorter than this starts at the trim instead of outside the bleed
FOLD_WIDTH_PT = 0.5
CORNER_RADIUS_MM = 3.0
FOOTER_PT = 6.0
FOOTER_MIN_PT = 4.5
FOOTER_H_MM = 2.6  # the strip a 6 pt line needs
FOOTER_CLEAR_MM = 1.0  # between the footer strip and the cards or marks
FOOTER_NEED_MM = FOOTER_H_MM + FOOTER_CLEAR_MM


@dataclass(frozen=True)
class SheetLayout:
    """Where cards go on a home-print page.  All values in mm, origin lower-left.

    For gutterfold (`fold` "h" or "v"), the grid is the fronts' half; each back is the
    front's mirror image across the fold line at `fold_at`.
    """

    paper: str
    page_w: float
    page_h: float
    card_w: float
    card_h: float
    bleed_x: float  # bleed on the left and right edge of every card
    bleed_y: float  # on the top and bottom edge
    gutter: float  # between the bleed areas of two neighbours
    margin: float
    cols: int
    rows: int
    block_left: float  # outer (bleed) edge of the card block
    block_bottom: float
    footer_side: str  # "bottom", "top", "left", "right"
    crop_marks: str = "corners"
    imposition: str = "duplex"
    fold: str = ""  # gutterfold: "h" (fold line across the page) or "v" (down the page)
    fold_at: float = 0.0  # its y (h) or x (v)
    auto_bleed: bool = False
    turned: bool = False  # cards lie on their side: card_w x card_h is the slot, the face is card_h x card_w

    @property
    def face_size(self) -> tuple[float, float]:
        """The card face's own width and height (the slot's, turned back upright)."""
        return (self.card_h, self.card_w) if self.turned else (self.card_w, self.card_h)

    @property
    def face_bleed(self) -> tuple[float, float]:
        """The face's bleed on its own left/right and top/bottom edges."""
        return (self.bleed_y, self.bleed_x) if self.turned else (self.bleed_x, self.bleed_y)

    @property
    def bleed(self) -> float:
        """The smallest bleed on any cut edge."""
        return min(self.bleed_x, self.bleed_y)

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def pitch_x(self) -> float:
        return self.card_w + 2 * self.bleed_x + self.gutter

    @property
    def pitch_y(self) -> float:
        return self.card_h + 2 * self.bleed_y + self.gutter

    @property
    def block_w(self) -> float:
        return self.cols * (self.card_w + 2 * self.bleed_x) + (self.cols - 1) * self.gutter

    @property
    def block_h(self) -> float:
        return self.rows * (self.card_h + 2 * self.bleed_y) + (self.rows - 1) * self.gutter

    @property
    def landscape(self) -> bool:
        return self.page_w > self.page_h

    def front_position(self, slot: int) -> tuple[float, float]:
        """Lower-left corner of the trimmed card in `slot` (row by row from the top-left;
        on a gutterfold page, the slot nearest the fold first)."""
        row, col = divmod(slot, self.cols)
        x = self.block_left + self.bleed_x + col * self.pitch_x
        if self.fold == "h":  # fronts above the fold: the first row sits on the fold
            y = self.block_bottom + self.bleed_y + row * self.pitch_y
        else:
            top = self.block_bottom + self.block_h
            y = top - self.bleed_y - self.card_h - row * self.pitch_y
        if self.fold == "v":  # fronts left of the fold: the first column sits on it
            right = self.block_left + self.block_w
            x = right - self.bleed_x - self.card_w - col * self.pitch_x
        return x, y

    def back_position(self, slot: int, duplex: str = "long", offset: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
        """Lower-left corner of the trimmed back of the card in `slot` (on the back sheet;
        on a gutterfold page, across the fold)."""
        x, y = self.front_position(slot)
        if self.fold == "h":
            return x, 2 * self.fold_at - y - self.card_h
        if self.fold == "v":
            return 2 * self.fold_at - x - self.card_w, y
        if self.imposition == "simplex":
            return x, y
        return mirror_position((x, y), (self.card_w, self.card_h), (self.page_w, self.page_h), duplex, offset)

    def bleed_edges(self) -> dict[str, float]:
        return {"left": self.bleed_x, "right": self.bleed_x, "top": self.bleed_y, "bottom": self.bleed_y}

    def describe(self) -> str:
        if self.bleed_x or self.bleed_y:
            if abs(self.bleed_x - self.bleed_y) < 0.005:
                bleed = f"bleed {_num2(self.bleed_x)} mm on every edge"
            else:
                bleed = f"bleed {_num2(self.bleed_x)} mm left/right, {_num2(self.bleed_y)} mm top/bottom"
            if self.auto_bleed:
                bleed += " (what the paper leaves)"
        else:
            bleed = "no bleed"
        paper = PAPER_NAMES.get(self.paper, self.paper) + (" landscape" if self.landscape else "")
        if self.fold:
            head = (f"gutterfold: {self.per_sheet} cards ({self.cols} x {self.rows} fronts and their backs, "
                    f"fold {'across' if self.fold == 'h' else 'down'} the page)")
        else:
            head = f"{self.imposition}: {self.cols} x {self.rows} cards" + (" on their side" if self.turned else "")
        gutter = f", gutter {_num(self.gutter)} mm" if self.gutter else ""
        return (f"{head} of {_num(self.card_w)} x {_num(self.card_h)} mm per {paper} page; {bleed}{gutter}, "
                f"printer margin {_num(self.margin)} mm")


def mirror_position(pos: tuple[float, float], size: tuple[float, float], page: tuple[float, float], duplex: str, offset: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Where the back of a card whose front is at `pos` goes on the back page.

    long: mirror left-right; short: mirror top-bottom; none: same place (no offset: the
    sheets are not printed back to back).
    """
    (x, y), (w, h), (pw, ph) = pos, size, page
    if duplex == "long":
        return pw - x - w + offset[0], y + offset[1]
    if duplex == "short":
        return x + offset[0], ph - y - h + offset[1]
    if duplex == "none":
        return x, y
    raise CardgenError(f"--duplex {duplex!r} is unknown; use long, short or none")


def mirror_side(side: str, duplex: str) -> str:
    """Which side of the back page the footer goes to (the front's footer side, mirrored)."""
    if duplex == "long":
        return {"left": "right", "right": "left"}.get(side, side)
    if duplex == "short":
        return {"top": "bottom", "bottom": "top"}.get(side, side)
    return side


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _num2(value: float) -> str:
    return f"{value:.2f}"


def _fit(available: float, cell: float, gutter: float) -> int:
    return max(0, math.floor((available + gutter + 1e-6) / (cell + gutter)))


def footer_need_mm(crop_marks: str = "corners") -> float:
    """Room the footer strip takes beside the cards."""
    return FOOTER_NEED_MM


def _axis(avail: float, card: float, bleed: float | None, gutter: float, cap: float) -> tuple[int, float]:
    """(cards, bleed) along one axis: a fixed bleed shrinks the count; automatic bleed is what remains."""
    if bleed is not None:
        return _fit(avail, card + 2 * bleed, gutter), bleed
    n = _fit(avail, card, gutter)
    if n < 1:
        return 0, 0.0
    return n, max(0.0, min(cap, (avail - n * card - (n - 1) * gutter) / (2 * n)))


def _validate(paper: str, card_w: float, card_h: float, bleed: float | None, gutter: float, margin: float, crop_marks: str) -> None:
    if paper not in PAPERS:
        raise CardgenError(f"paper {paper!r} is unknown; use {' or '.join(PAPERS)}")
    if crop_marks not in CROP_MARKS:
        raise CardgenError(f"crop marks {crop_marks!r} are unknown; use {', '.join(CROP_MARKS)}")
    for name, value in (("bleed", 0.0 if bleed is None else bleed), ("gutter", gutter), ("printer margin", margin)):
        if not math.isfinite(value) or value < 0:
            raise CardgenError(f"{name} must be 0 mm or more, got {value}")
    if card_w <= 0 or card_h <= 0:
        raise CardgenError(f"card size must be positive, got {card_w} x {card_h} mm")


def _no_fit(paper: str, card_w: float, card_h: float, bleed: float | None, margin: float, what: str = "") -> CardgenError:
    b = 0.0 if bleed is None else bleed
    page_w, page_h = PAPERS[paper]
    return CardgenError(
        f"{what}a {_num(card_w)} x {_num(card_h)} mm card with {_num(b)} mm bleed "
        f"({_num(card_w + 2 * b)} x {_num(card_h + 2 * b)} mm) does not fit on {PAPER_NAMES[paper]} "
        f"({_num(page_w)} x {_num(page_h)} mm) inside {_num(margin)} mm printer margins and the footer; "
        f"use less bleed (--bleed 0), a smaller card size, the other paper, a smaller margin"
        + (" or --imposition duplex" if what else "")
    )


def compute_layout(
    paper: str,
    card_w: float,
    card_h: float,
    bleed: float | None = 0.0,
    gutter: float = 0.0,
    margin: float = DEFAULT_MARGIN_MM,
    crop_marks: str = "corners",
    imposition: str = "duplex",
    fit: str = "count",
) -> SheetLayout:
    """Fit as many cards as the paper takes; raise CardgenError (saying what to change) if none fits.

    `bleed=None` is the automatic home bleed: the grid that fits without bleed, and what
    the paper leaves as bleed (see the module notes).  `imposition="gutterfold"` gives a
    fold layout (`compute_fold_layout`).  `fit="bleed"` (duplex and simplex): the most cards
    a sheet whose every cut edge keeps `REAL_BLEED_MM`, upright or on their side (poker on
    Letter: 8 on their side with 3 / 1.92 mm, where the upright 9 keep 0.45 mm top and bottom).
    """
    if fit not in FITS:
        raise CardgenError(f"--fit {fit!r} is unknown; use {' or '.join(FITS)}")
    if fit == "bleed" and imposition != "gutterfold":
        upright = compute_layout(paper, card_w, card_h, bleed, gutter, margin, crop_marks, imposition)
        try:
            turned = replace(compute_layout(paper, card_h, card_w, bleed, gutter, margin, crop_marks, imposition), turned=True)
        except CardgenError:
            return upright
        # the most cards with real bleed; else the most bleed; upright on a tie
        return max((upright, turned), key=lambda l: (l.bleed >= REAL_BLEED_MM - 1e-9, l.per_sheet if l.bleed >= REAL_BLEED_MM - 1e-9 else 0,
                                                      round(l.bleed, 3), not l.turned))
    if imposition == "gutterfold":
        return compute_fold_layout(paper, card_w, card_h, bleed, gutter, margin, crop_marks)
    if imposition not in IMPOSITIONS:
        raise CardgenError(f"--imposition {imposition!r} is unknown; use {', '.join(IMPOSITIONS)}")
    _validate(paper, card_w, card_h, bleed, gutter, margin, crop_marks)
    page_w, page_h = PAPERS[paper]
    aw, ah = page_w - 2 * margin, page_h - 2 * margin
    cap = HOME_BLEED_MAX_MM
    best = None
    # Where the footer goes: in room the grid leaves free, or in a strip reserved at the bottom or along the right.
    for reserve in (None, "bottom", "right"):
        cols, bx = _axis(aw - (FOOTER_NEED_MM if reserve == "right" else 0), card_w, bleed, gutter, cap)
        rows, by = _axis(ah - (FOOTER_NEED_MM if reserve == "bottom" else 0), card_h, bleed, gutter, cap)
        if cols < 1 or rows < 1:
            continue
        block_w = cols * (card_w + 2 * bx) + (cols - 1) * gutter
        block_h = rows * (card_h + 2 * by) + (rows - 1) * gutter
        left, bottom = (page_w - block_w) / 2, (page_h - block_h) / 2
        if reserve == "bottom":
            bottom = margin + FOOTER_NEED_MM + (ah - FOOTER_NEED_MM - block_h) / 2
            side = "bottom"
        elif reserve == "right":
            left = margin + (aw - FOOTER_NEED_MM - block_w) / 2
            side = "right"
        else:
            free = {"bottom": bottom - margin, "top": bottom - margin, "left": left - margin, "right": left - margin}
            fits = [s for s in ("bottom", "right") if free[s] >= FOOTER_NEED_MM - 1e-6]
            if not fits:
                continue
            side = fits[0]
        score = (cols * rows, round(min(bx, by), 3), reserve is None, reserve == "bottom")
        if best is None or score > best[0]:
            best = (score, SheetLayout(paper, page_w, page_h, card_w, card_h, bx, by, gutter, margin, cols, rows,
                                       left, bottom, side, crop_marks, imposition, auto_bleed=bleed is None))
    if best is None:
        raise _no_fit(paper, card_w, card_h, bleed, margin)
    return best[1]


def compute_fold_layout(
    paper: str,
    card_w: float,
    card_h: float,
    bleed: float | None = None,
    gutter: float = 0.0,
    margin: float = DEFAULT_MARGIN_MM,
    crop_marks: str = "corners",
) -> SheetLayout:
    """A gutterfold page: fronts on one half, backs mirrored across the fold on the other.

    Tries the paper portrait and landscape with the fold across and down the page and keeps
    the one with the most cards (then the most bleed); the bleeds of a front and its back
    meet at the fold.  The footer takes a strip along the bottom edge.
    """
    _validate(paper, card_w, card_h, bleed, gutter, margin, crop_marks)
    pw, ph = PAPERS[paper]
    cap = HOME_BLEED_MAX_MM
    best = None
    for W, H in ((ph, pw), (pw, ph)) if pw < ph else ((pw, ph), (ph, pw)):
        for fold in ("h", "v"):
            if fold == "h":
                # each half: from the fold to the printer margin (the bottom half also holds the footer)
                half = H / 2 - margin - FOOTER_NEED_MM
                cols, bx = _axis(W - 2 * margin, card_w, bleed, gutter, cap)
                rows, by = _axis(half, card_h, bleed, gutter, cap)
                if cols < 1 or rows < 1:
                    continue
                block_w = cols * (card_w + 2 * bx) + (cols - 1) * gutter
                left, bottom, fold_at = (W - block_w) / 2, H / 2, H / 2
            else:
                half = W / 2 - margin
                cols, bx = _axis(half, card_w, bleed, gutter, cap)
                rows, by = _axis(H - 2 * margin - FOOTER_NEED_MM, card_h, bleed, gutter, cap)
                if cols < 1 or rows < 1:
                    continue
                block_w = cols * (card_w + 2 * bx) + (cols - 1) * gutter
                block_h = rows * (card_h + 2 * by) + (rows - 1) * gutter
                left, fold_at = W / 2 - block_w, W / 2
                bottom = margin + FOOTER_NEED_MM + (H - 2 * margin - FOOTER_NEED_MM - block_h) / 2
            score = (cols * rows, round(min(bx, by), 3), W > H, fold == "h")
            if best is None or score > best[0]:
                best = (score, SheetLayout(paper, W, H, card_w, card_h, bx, by, gutter, margin, cols, rows, left, bottom,
                                           "bottom", crop_marks, "gutterfold", fold, fold_at, bleed is None))
    if best is None:
        raise _no_fit(paper, card_w, card_h, bleed, margin, "gutterfold: ")
    return best[1]


# --- placements ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """One card on one sheet: its index in card order, slot, and front/back positions (mm)."""

    index: int
    slot: int
    front: tuple[float, float]
    back: tuple[float, float]


def card_pages(layout: SheetLayout, n_cards: int) -> list[tuple[int, int]]:
    """(front page, back page), 1-based, of every card in `sheets_pdf`'s order of pages: duplex
    a front sheet then its back sheet, simplex every front sheet then every back sheet,
    gutterfold a front and its back on one page."""
    sheets = -(-n_cards // layout.per_sheet)
    out = []
    for index in range(n_cards):
        sheet = index // layout.per_sheet
        if layout.imposition == "gutterfold":
            out.append((sheet + 1, sheet + 1))
        elif layout.imposition == "simplex":
            out.append((sheet + 1, sheets + sheet + 1))
        else:
            out.append((2 * sheet + 1, 2 * sheet + 2))
    return out


def plan_sheets(layout: SheetLayout, n_cards: int, duplex: str = "long", offset: tuple[float, float] = (0.0, 0.0)) -> list[list[Placement]]:
    """Cards in order, filling each sheet slot by slot; the last sheet may be partial."""
    sheets: list[list[Placement]] = []
    for start in range(0, n_cards, layout.per_sheet):
        sheet = []
        for slot in range(min(layout.per_sheet, n_cards - start)):
            sheet.append(Placement(start + slot, slot, layout.front_position(slot), layout.back_position(slot, duplex, offset)))
        sheets.append(sheet)
    return sheets


# --- PDF plumbing shared with printshop.py -----------------------------------------------


def binary_streams(fn):
    """Run `fn` with ReportLab writing plain Flate streams instead of Flate + ASCII85.

    ASCII85 (ReportLab's default) makes every stream 25 % larger and costs ~15 % of the
    build time in ReportLab's pure-Python encoder; binary PDF is fine everywhere.  The
    setting is process-wide in ReportLab, so it is restored afterwards.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        saved = rl_config.useA85
        rl_config.useA85 = 0
        try:
            return fn(*args, **kwargs)
        finally:
            rl_config.useA85 = saved

    return wrapper


def new_canvas(buffer: io.BytesIO, pagesize_mm: tuple[float, float], title: str, lang: str) -> Canvas:
    """A canvas whose output depends only on what is drawn (fixed dates and ids), its text in `lang`."""
    register_fonts()
    # The initial font is the embedded Gothic: ReportLab's default (Helvetica) would put a
    # non-embedded font on every page.
    c = Canvas(buffer, pagesize=(pagesize_mm[0] * mm, pagesize_mm[1] * mm), invariant=1, pageCompression=1,
               initialFontName=GOTHIC, initialFontSize=10, initialLeading=12, lang=pdf_lang(lang))
    c.setTitle(title)
    c.setAuthor("cardgen")
    c.setCreator("cardgen")
    c.setSubject(title)
    return c


_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def form_name(index: int, card_id: str, side: str) -> str:
    """A PDF-safe XObject name that still shows the card id: `c0003_LL04_front`."""
    return f"c{index:04d}_{_NAME_UNSAFE.sub('_', card_id)}_{side}"


def shared_back(game, face) -> str | None:
    """The name of the shared back `face` shows ("default", "events", ...), or None when the
    face is a front or a card's own back.  Faces with the same shared back look the same."""
    if face.side != "back" or face.own_back:
        return None
    from ..cards import card as card_render

    group = getattr(card_render, "back_group", None)
    return str(group(game, face.card)) if group else "default"


class FaceForms:
    """Draws each card face once into a form XObject (clipped to card + bleed) and reuses it.

    A shared back (the deck's common back, or one per back group) is drawn once and reused
    by every card that shows it.  Forms make each card's position readable from the PDF (a
    `cm` then a `Do`), and the file smaller and faster to write.  `bleed` is one number or
    (left/right, top/bottom); `ink_saver` draws through `InkSaverCanvas`.
    """

    def __init__(self, canvas: Canvas, game, size: tuple[float, float], bleed, lang: str, overflows: list | None,
                 corner_index: bool = False, ink_saver: bool = False):
        self.c = canvas
        self.corner_index = corner_index
        self.game = game
        self.w, self.h = size
        self.bleed_x, self.bleed_y = (bleed, bleed) if isinstance(bleed, (int, float)) else bleed
        self.bleed = max(self.bleed_x, self.bleed_y)  # what the face is drawn with; the form's box clips it
        self.lang = lang
        self.overflows = overflows
        self.defined: set[str] = set()
        self.draw_on = InkSaverCanvas(canvas, (self.bleed, self.bleed, self.w, self.h)) if ink_saver else canvas

    def name(self, index: int, face) -> str:
        group = shared_back(self.game, face)
        if group is not None:
            return "back_" + _NAME_UNSAFE.sub("_", group)
        return form_name(index, face.card.id, face.side)

    def define(self, index: int, face) -> str:
        from ..cards import card as card_render  # the colleague's renderer; looked up at call time

        name = self.name(index, face)
        if name in self.defined:
            return name
        b, bx, by = self.bleed, self.bleed_x, self.bleed_y
        c = self.c
        c.beginForm(name, (b - bx) * mm, (b - by) * mm, (b + self.w + bx) * mm, (b + self.h + by) * mm)
        card_render.draw_face(self.draw_on, self.game, face, b, b, self.w, self.h, b, self.lang, self.overflows)
        if self.corner_index and face.side == "front":
            card_render.draw_corner_index(self.draw_on, self.game, face.card, b, b, self.w, self.h, self.lang)
        c.endForm()
        self.defined.add(name)
        return name

    def place(self, name: str, x: float, y: float, rotate: bool = False, turn: int = 0) -> None:
        """Draw a defined face with its trimmed lower-left corner at (x, y) mm (`rotate`: turned
        180 degrees about the card's centre, the trimmed card still at (x, y); `turn` 90 or -90:
        on its side, its top to the left or right, the trimmed card's lower-left still at (x, y))."""
        c = self.c
        c.saveState()
        if turn == 90:
            c.translate((x + self.h + self.bleed) * mm, (y - self.bleed) * mm)
            c.rotate(90)
        elif turn == -90:
            c.translate((x - self.bleed) * mm, (y + self.w + self.bleed) * mm)
            c.rotate(-90)
        elif rotate:
            c.translate((x + self.w + self.bleed) * mm, (y + self.h + self.bleed) * mm)
            c.rotate(180)
        else:
            c.translate((x - self.bleed) * mm, (y - self.bleed) * mm)
        c.doForm(name)
        c.restoreState()


# --- ink saver ----------------------------------------------------------------------------

INK_FILL_KEEP = 0.3  # a small fill keeps this much of its colour (the rest is white)
INK_STROKE_KEEP = 0.6
INK_TEXT_DARK = (0.12, 0.12, 0.12)
INK_BIG_FILL = 0.45  # a fill covering this share of the card is a background: not filled, a pale frame instead
INK_ART_KEEP = 0.4  # a raster picture keeps this much of its colour, so it is still recognised


def _rgb(colour) -> tuple[float, float, float]:
    from reportlab.lib.colors import toColor

    col = toColor(colour)
    return tuple(col.rgb())  # type: ignore[return-value]


def _pale(rgb, keep: float) -> tuple[float, float, float]:
    return tuple(1 - keep * (1 - v) for v in rgb)  # type: ignore[return-value]


def _pale_image(source, keep: float):
    """A raster picture (a file path: an art file the loader has read and bounded) with every pixel
    moved towards white, its transparency kept, for ReportLab's drawImage; anything else as it is."""
    from pathlib import Path

    from PIL import Image
    from reportlab.lib.utils import ImageReader

    if not isinstance(source, (str, Path)):
        return source
    with Image.open(source) as image:
        rgba = image.convert("RGBA")
    table = [round(255 - keep * (255 - v)) for v in range(256)]
    r, g, b, a = rgba.split()
    return ImageReader(Image.merge("RGBA", (r.point(table), g.point(table), b.point(table), a)))


def _dark_text(rgb) -> tuple[float, float, float]:
    r, g, b = rgb
    return rgb if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else INK_TEXT_DARK


class InkSaverCanvas:
    """A canvas for `card.draw_face` that saves ink: fills are pale, a background (a fill
    covering most of the card, usually out to the bleed) becomes a pale frame inside the
    trim, strokes are lighter, text is dark (light text on a dark fill turns dark) and raster
    art is paled (vector art through its colours), so every face reads the same on white.  Geometry is untouched: it only changes colours and
    which rectangles are filled.  Everything else goes to the real canvas."""

    def __init__(self, canvas: Canvas, trim_mm: tuple[float, float, float, float]):
        self._c = canvas
        self._trim = trim_mm
        self._fill = (0.0, 0.0, 0.0)
        self._stroke = (0.0, 0.0, 0.0)
        self._stack: list = []

    def __getattr__(self, name):
        return getattr(self._c, name)

    def saveState(self):
        self._stack.append((self._fill, self._stroke))
        self._c.saveState()

    def restoreState(self):
        self._fill, self._stroke = self._stack.pop()
        self._c.restoreState()

    def setFillColor(self, colour, alpha=None):
        self._fill = _rgb(colour)
        self._c.setFillColorRGB(*_pale(self._fill, INK_FILL_KEEP))

    def setFillColorRGB(self, r, g, b, alpha=None):
        self.setFillColor(_rgb_tuple(r, g, b))

    def setStrokeColor(self, colour, alpha=None):
        self._stroke = _rgb(colour)
        self._c.setStrokeColorRGB(*_pale(self._stroke, INK_STROKE_KEEP))

    def setStrokeColorRGB(self, r, g, b, alpha=None):
        self.setStrokeColor(_rgb_tuple(r, g, b))

    def drawImage(self, image, x, y, width=None, height=None, mask=None, **kw):
        """A raster picture (card art), paled like a fill; vector art (SVG) is paled by the colour setters."""
        return self._c.drawImage(_pale_image(image, INK_ART_KEEP), x, y, width, height, mask=mask, **kw)

    def _big(self, w: float, h: float) -> bool:
        _, _, tw, th = self._trim
        return abs(w * h) >= INK_BIG_FILL * tw * th * mm * mm

    def _frame(self) -> None:
        x, y, w, h = self._trim
        c = self._c
        c.saveState()
        c.setStrokeColorRGB(*_pale(self._fill, 0.5))
        c.setLineWidth(1.0)
        inset = 1.2
        c.roundRect((x + inset) * mm, (y + inset) * mm, (w - 2 * inset) * mm, (h - 2 * inset) * mm, 1.5 * mm, stroke=1, fill=0)
        c.restoreState()

    def rect(self, x, y, w, h, stroke=1, fill=0):
        if fill and self._big(w, h):
            self._frame()
            if stroke:
                self._c.rect(x, y, w, h, stroke=1, fill=0)
            return
        self._c.rect(x, y, w, h, stroke=stroke, fill=fill)

    def roundRect(self, x, y, w, h, radius, stroke=1, fill=0):
        if fill and self._big(w, h):
            self._frame()
            if stroke:
                self._c.roundRect(x, y, w, h, radius, stroke=1, fill=0)
            return
        self._c.roundRect(x, y, w, h, radius, stroke=stroke, fill=fill)

    def _text(self, method, *args, **kwargs):
        c = self._c
        c.saveState()
        c.setFillColorRGB(*_dark_text(self._fill))
        c.setStrokeColorRGB(*_dark_text(self._stroke))
        try:
            return method(*args, **kwargs)
        finally:
            c.restoreState()

    def drawText(self, text_object):
        return self._text(self._c.drawText, text_object)

    def drawString(self, *args, **kwargs):
        return self._text(self._c.drawString, *args, **kwargs)

    def drawCentredString(self, *args, **kwargs):
        return self._text(self._c.drawCentredString, *args, **kwargs)

    def drawRightString(self, *args, **kwargs):
        return self._text(self._c.drawRightString, *args, **kwargs)


def _rgb_tuple(r, g, b):
    from reportlab.lib.colors import Color

    return Color(r, g, b)


# --- crop marks, fold line, corner guides -------------------------------------------------


def _printable(layout: SheetLayout, footer_side: str | None) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) where marks may go: inside the printer margin, clear of the footer strip."""
    m, W, H = layout.margin, layout.page_w, layout.page_h
    x0, y0, x1, y1 = m, m, W - m, H - m
    if footer_side == "bottom":
        y0 += FOOTER_H_MM + FOOTER_CLEAR_MM
    elif footer_side == "top":
        y1 -= FOOTER_H_MM + FOOTER_CLEAR_MM
    elif footer_side == "left":
        x0 += FOOTER_H_MM + FOOTER_CLEAR_MM
    elif footer_side == "right":
        x1 -= FOOTER_H_MM + FOOTER_CLEAR_MM
    return x0, y0, x1, y1


def crop_mark_lines(layout: SheetLayout, positions: Sequence[tuple[float, float]], footer_side: str | None = None) -> list[tuple[float, float, float, float]]:
    """Line segments (x1, y1, x2, y2 in mm) of the crop marks for cards at `positions`.

    Along every cut line (each distinct trim edge of the cards present), marks fill the free
    stretches of that line: outward from the outermost card up to the printable edge, and
    across every gap between two cards (the gutters, the fold, an empty slot).  A mark never
    touches a card, never enters the printer margin and never crosses the footer strip.
    An outer mark starts outside the bleed when that leaves at least `MIN_MARK_MM` of it,
    otherwise at `MARK_GAP_MM` from the trim (drawn over the bleed, which is cut off).
    """
    if layout.crop_marks == "none" or not positions:
        return []
    side = layout.footer_side if footer_side is None else footer_side
    px0, py0, px1, py1 = _printable(layout, side)
    w, h = layout.card_w, layout.card_h
    rects = [(x, y, x + w, y + h) for x, y in positions]
    xs = _distinct([r[0] for r in rects] + [r[2] for r in rects])
    ys = _distinct([r[1] for r in rects] + [r[3] for r in rects])
    lines = layout.crop_marks == "lines"
    segs = []
    for X in xs:
        if not px0 <= X <= px1:
            continue
        spans = [(r[1], r[3]) for r in rects if r[0] - 0.01 <= X <= r[2] + 0.01]
        for a, b in _marks_along(spans, py0, py1, layout.bleed_y, lines):
            segs.append((X, a, X, b))
    for Y in ys:
        if not py0 <= Y <= py1:
            continue
        spans = [(r[0], r[2]) for r in rects if r[1] - 0.01 <= Y <= r[3] + 0.01]
        for a, b in _marks_along(spans, px0, px1, layout.bleed_x, lines):
            segs.append((a, Y, b, Y))
    return segs


def _marks_along(spans: list[tuple[float, float]], lo: float, hi: float, bleed: float, lines: bool) -> list[tuple[float, float]]:
    """The mark segments on one cut line, given the stretches cards occupy on it.

    Outer marks run from the first and last card to the printable edge.  Marks across a gap
    between two cards are drawn when they stay clear of both bleeds, or when an outer end of
    the line has no room for a mark of `MIN_MARK_MM` (then over the bleed, which is cut off).
    """
    merged: list[list[float]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1] + 0.01:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    outer: list[tuple[float, float]] = []
    inner: list[tuple[float, float, bool]] = []  # (from, to, clear of the bleed)
    thin = False
    cursor, after_card = lo, False
    for a, b in merged + [[hi, hi]]:
        gap_lo, gap_hi = max(cursor, lo), min(a, hi)
        before_card = a < hi
        length = gap_hi - gap_lo
        both = after_card and before_card
        if not both and (after_card or before_card) and length < MIN_MARK_MM + MARK_GAP_MM:
            thin = True
        if length >= 0.3 and (after_card or before_card):
            room = length / 2 if both else length
            clear = room - bleed - MARK_GAP_MM >= MIN_MARK_MM
            s = bleed + MARK_GAP_MM if clear else min(MARK_GAP_MM, 0.15 * length)
            if both and (lines or length - 2 * s <= 2 * MARK_LEN_MM + 1.0):
                inner.append((gap_lo + s, gap_hi - s, clear))
            else:
                reach = length if lines else MARK_LEN_MM
                segs = []
                if after_card:
                    segs.append((gap_lo + s, min(gap_lo + s + reach, gap_hi)))
                if before_card:
                    segs.append((max(gap_hi - s - reach, gap_lo), gap_hi - s))
                if both:
                    inner += [(a_, b_, clear) for a_, b_ in segs]
                else:
                    outer += segs
        cursor, after_card = max(cursor, b), True
    out = outer + [(a, b) for a, b, clear in inner if clear or thin]
    return [(a, b) for a, b in out if b - a >= 0.25]


def _distinct(values: Iterable[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > 0.01:
            out.append(v)
    return out


def draw_lines(c: Canvas, segs: Sequence[tuple[float, float, float, float]], width_pt: float = MARK_WIDTH_PT, halo_pt: float = MARK_HALO_PT) -> None:
    """Black lines, each over a white halo (so a mark shows on a dark bleed too)."""
    if not segs:
        return
    pts = [(x1 * mm, y1 * mm, x2 * mm, y2 * mm) for x1, y1, x2, y2 in segs]
    c.saveState()
    if halo_pt:
        c.setStrokeColorRGB(1, 1, 1)
        c.setLineWidth(halo_pt)
        c.lines(pts)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(width_pt)
    c.lines(pts)
    c.restoreState()


def fold_line(layout: SheetLayout) -> tuple[float, float, float, float] | None:
    """The gutterfold fold line (mm), across the printable width or height."""
    if layout.fold == "h":
        return layout.margin, layout.fold_at, layout.page_w - layout.margin, layout.fold_at
    if layout.fold == "v":
        x0, y0, x1, y1 = _printable(layout, layout.footer_side)
        return layout.fold_at, y0, layout.fold_at, y1
    return None


def draw_fold(c: Canvas, layout: SheetLayout, lang: str) -> None:
    seg = fold_line(layout)
    if seg is None:
        return
    x1, y1, x2, y2 = seg
    c.saveState()
    c.setStrokeColorRGB(1, 1, 1)
    c.setLineWidth(FOLD_WIDTH_PT + 1.0)
    c.line(x1 * mm, y1 * mm, x2 * mm, y2 * mm)
    c.setStrokeColorRGB(0.35, 0.35, 0.35)
    c.setLineWidth(FOLD_WIDTH_PT)
    c.setDash([3, 2])
    c.line(x1 * mm, y1 * mm, x2 * mm, y2 * mm)
    c.restoreState()


def corner_guides(layout: SheetLayout, positions: Sequence[tuple[float, float]], radius: float = CORNER_RADIUS_MM) -> list[tuple[float, float, float, float, float]]:
    """Quarter circles (bbox x1, y1, x2, y2 mm and start angle) at each card's corners, to cut round."""
    w, h, r = layout.card_w, layout.card_h, radius
    arcs = []
    for x, y in positions:
        arcs += [(x, y, x + 2 * r, y + 2 * r, 180), (x + w - 2 * r, y, x + w, y + 2 * r, 270),
                 (x + w - 2 * r, y + h - 2 * r, x + w, y + h, 0), (x, y + h - 2 * r, x + 2 * r, y + h, 90)]
    return arcs


def draw_corner_guides(c: Canvas, arcs) -> None:
    if not arcs:
        return
    c.saveState()
    for colour, width in (((1, 1, 1), 1.0), ((0.3, 0.3, 0.3), 0.3)):
        c.setStrokeColorRGB(*colour)
        c.setLineWidth(width)
        for x1, y1, x2, y2, start in arcs:
            c.arc(x1 * mm, y1 * mm, x2 * mm, y2 * mm, start, 90)
    c.restoreState()


# --- footer -------------------------------------------------------------------------------



def footer_text(game, layout: SheetLayout, n: int, m: int, side: str, ids: Sequence[str], duplex: str, lang: str, max_len_mm: float) -> tuple[str, float]:
    """The footer line and its font size, shortened (ids as a range, smaller type) until it fits.

    `duplex` is the flip ("long", "short", "none") or the imposition ("simplex", "gutterfold")."""
    def w(key: str, **fields) -> str:
        return words.word(f"sheet.{key}", lang, game, **fields)

    title = game.heading(lang)
    head = f"{title} · {w('sheet', n=n, m=m)} {w(side)}"
    tail = f"{w('card', size=printed.size(layout.card_w, layout.card_h))} · {w(duplex)} · {w('scale')}"
    ids = list(ids) if game.numbered else []  # card numbers only: a generated id (sun-1) is internal
    id_forms = [" ".join(ids)]
    if len(ids) > 1:
        id_forms.append(f"{ids[0]}–{ids[-1]}")
    for ids_text in id_forms:
        text = " · ".join(part for part in (head, ids_text, tail) if part)
        for size in (FOOTER_PT, 5.5, 5.0, FOOTER_MIN_PT):
            if string_width(text, GOTHIC, size, lang) <= max_len_mm * mm:
                return text, size
    text = " · ".join(part for part in (head, id_forms[-1], w('scale')) if part)
    while string_width(text, GOTHIC, FOOTER_MIN_PT, lang) > max_len_mm * mm and len(text) > 10:
        text = text[:-2] + "…"
    return text, FOOTER_MIN_PT


def draw_footer(c: Canvas, layout: SheetLayout, lang: str, text: str, size: float, side: str | None = None) -> None:
    W, H, m = layout.page_w, layout.page_h, layout.margin
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setFont(GOTHIC, size)
    descent = 0.22 * size / mm * 1.0  # mm
    ascent = 0.88 * size / mm * 1.0
    side = side or layout.footer_side
    if side == "bottom":
        draw_string(c, W / 2 * mm, (m + descent + 0.2) * mm, text, lang, "centre")
    elif side == "top":
        draw_string(c, W / 2 * mm, (H - m - ascent - 0.2) * mm, text, lang, "centre")
    else:
        x = (W - m - descent - 0.2) if side == "right" else (m + ascent + 0.2)
        c.translate(x * mm, H / 2 * mm)
        c.rotate(90)
        draw_string(c, 0, 0, text, lang, "centre")
    c.restoreState()


def footer_length_mm(layout: SheetLayout) -> float:
    along = layout.page_w if layout.footer_side in ("bottom", "top") else layout.page_h
    return along - 2 * layout.margin


# --- the sheets PDF -----------------------------------------------------------------------


@binary_streams
def sheets_pdf(
    game,
    pairs: Sequence[tuple[object, object]],
    layout: SheetLayout,
    duplex: str = "long",
    offset: tuple[float, float] = (0.0, 0.0),
    lang: str = "ja",
    overflows: list | None = None,
    progress: Callable[[int], None] | None = None,
    corner_index: bool = False,
    ink_saver: bool = False,
    corner_radius: float | None = None,
    checklist: bool = True,
) -> bytes:
    """The home-print PDF in `layout.imposition`, then a checklist page.  Returns the PDF bytes.

    duplex: front sheet, then its back sheet, for every sheet; simplex: every front sheet,
    then every back sheet; gutterfold: one page per sheet with fronts and backs.
    `corner_radius` (mm) draws rounded-corner cut guides on the fronts.
    """
    if duplex not in DUPLEX:
        raise CardgenError(f"--duplex {duplex!r} is unknown; use long, short or none")
    imposition = layout.imposition
    if imposition == "simplex":
        duplex = "none"
    buffer = io.BytesIO()
    paper = PAPER_NAMES[layout.paper]
    c = new_canvas(buffer, (layout.page_w, layout.page_h), f"{game.heading(lang)} — {paper}", lang)
    forms = FaceForms(c, game, layout.face_size, layout.face_bleed, lang, overflows, corner_index, ink_saver)
    sheets = plan_sheets(layout, len(pairs), duplex, offset)
    # cards on their side: fronts' tops to the left; after a long-edge flip that edge is on the
    # right, so the backs turn the other way (a short-edge flip keeps left and right)
    front_turn = 90 if layout.turned else 0
    back_turn = -front_turn if duplex == "long" else front_turn
    along = footer_length_mm(layout)
    flip = imposition if imposition != "duplex" else duplex
    back_side = mirror_side(layout.footer_side, duplex) if imposition == "duplex" else layout.footer_side

    def fronts(n: int, sheet: list[Placement]) -> None:
        names = [forms.define(p.index, pairs[p.index][0]) for p in sheet]
        for p, name in zip(sheet, names):
            forms.place(name, *p.front, turn=front_turn)
        positions = [p.front for p in sheet]
        if corner_radius:
            draw_corner_guides(c, corner_guides(layout, positions, corner_radius))
        draw_lines(c, crop_mark_lines(layout, positions))
        ids = [pairs[p.index][0].card.id for p in sheet]
        draw_footer(c, layout, lang, *footer_text(game, layout, n, len(sheets), "front", ids, flip, lang, along))
        c.showPage()

    def backs(n: int, sheet: list[Placement]) -> None:
        names = [forms.define(p.index, pairs[p.index][1]) for p in sheet]
        for p, name in zip(sheet, names):
            forms.place(name, *p.back, turn=back_turn)
        draw_lines(c, crop_mark_lines(layout, [p.back for p in sheet], back_side))
        ids = [pairs[p.index][1].card.id for p in sheet]
        draw_footer(c, layout, lang, *footer_text(game, layout, n, len(sheets), "back", ids, flip, lang, along), back_side)
        c.showPage()

    if imposition == "gutterfold":
        for n, sheet in enumerate(sheets, start=1):
            front_names = [forms.define(p.index, pairs[p.index][0]) for p in sheet]
            back_names = [forms.define(p.index, pairs[p.index][1]) for p in sheet]
            for p, fname, bname in zip(sheet, front_names, back_names):
                forms.place(fname, *p.front)
                forms.place(bname, *p.back, rotate=layout.fold == "h")
            positions = [p.front for p in sheet]
            if corner_radius:
                draw_corner_guides(c, corner_guides(layout, positions, corner_radius))
            draw_fold(c, layout, lang)
            draw_lines(c, crop_mark_lines(layout, positions + [p.back for p in sheet]))
            ids = [pairs[p.index][0].card.id for p in sheet]
            draw_footer(c, layout, lang, *footer_text(game, layout, n, len(sheets), "fold", ids, flip, lang, along))
            c.showPage()
            if progress:
                progress(len(sheet))
    elif imposition == "simplex":
        for n, sheet in enumerate(sheets, start=1):
            fronts(n, sheet)
            if progress:
                progress(len(sheet))
        for n, sheet in enumerate(sheets, start=1):
            backs(n, sheet)
    else:
        for n, sheet in enumerate(sheets, start=1):
            fronts(n, sheet)
            backs(n, sheet)
            if progress:
                progress(len(sheet))
    if checklist:
        draw_checklist(c, game, pairs, layout, lang, len(sheets))
    c.save()
    return buffer.getvalue()


# --- checklist ----------------------------------------------------------------------------

CHECK_ROW_MM = 5.0
CHECK_COL_MIN_MM = 58.0


def checklist_rows(game, pairs, lang: str) -> list[tuple[str, str, str]]:
    """(id, name, "copy/count") for every physical card, in print order."""
    counts: dict[str, int] = {}
    for front, _ in pairs:
        counts[front.card.type_id] = counts.get(front.card.type_id, 0) + 1
    rows = []
    for front, _ in pairs:
        card = front.card
        rows.append((card.id, card.name.get(lang), f"{card.copy}/{counts[card.type_id]}"))
    return rows


def draw_checklist(c: Canvas, game, pairs, layout: SheetLayout, lang: str, n_sheets: int) -> None:
    """Pages (portrait, the sheets' paper) listing every card with a box to tick."""
    W, H = PAPERS[layout.paper]
    c.setPageSize((W * mm, H * mm))
    m = max(layout.margin, 10.0)
    rows = checklist_rows(game, pairs, lang)
    cols = max(1, int((W - 2 * m + 4) // (CHECK_COL_MIN_MM + 4)))
    col_w = (W - 2 * m - 4 * (cols - 1)) / cols
    top = H - m - 16
    per_col = max(1, int((top - m - 6) // CHECK_ROW_MM))
    per_page = per_col * cols
    pages = max(1, -(-len(rows) // per_page))
    for page in range(pages):
        c.setFillColorRGB(0, 0, 0)
        c.setFont(GOTHIC, 13)
        draw_string(c, m * mm, (H - m - 6) * mm, f"{game.heading(lang)} — {words.word('checklist.title', lang, game)}"
                    + (f" ({page + 1}/{pages})" if pages > 1 else ""), lang)
        c.setFont(GOTHIC, 8)
        draw_string(c, m * mm, (H - m - 11) * mm, words.word("checklist.intro", lang, game, n=len(rows), s=n_sheets), lang)
        chunk = rows[page * per_page:(page + 1) * per_page]
        # the number column is as wide as the widest card number; a game whose ids are generated
        # (sun-1) prints none: names only
        id_w = (max(string_width(r[0], GOTHIC, 7.5, lang) for r in rows) / mm + 2) if game.numbered else 0.0
        for i, (card_id, name, copy) in enumerate(chunk):
            col, row = divmod(i, per_col)
            x = m + col * (col_w + 4)
            y = top - (row + 1) * CHECK_ROW_MM
            c.setStrokeColorRGB(0, 0, 0)
            c.setLineWidth(0.5)
            c.rect((x + 0.5) * mm, (y + 0.9) * mm, 3.2 * mm, 3.2 * mm, stroke=1, fill=0)
            c.setStrokeColorRGB(0.75, 0.75, 0.75)
            c.setLineWidth(0.3)
            c.line(x * mm, y * mm, (x + col_w) * mm, y * mm)
            c.setFillColorRGB(0, 0, 0)
            c.setFont(GOTHIC, 7.5)
            if id_w:
                draw_string(c, (x + 5.5) * mm, (y + 1.5) * mm, card_id, lang)
            draw_string(c, (x + col_w - 0.5) * mm, (y + 1.5) * mm, copy, lang, "right")
            room = (col_w - 5.5 - id_w - 8) * mm
            text = name
            while text and string_width(text, GOTHIC, 7.5, lang) > room:
                text = text[:-2] + "…"
            draw_string(c, (x + 5.5 + id_w) * mm, (y + 1.5) * mm, text, lang)
        c.showPage()


# --- duplex calibration -------------------------------------------------------------------

CAL_STEP_MM = 0.25  # reading resolution
CAL_STEPS = 12  # ticks each side of 0: reads -3 .. +3 mm
CAL_PITCH_MM = 6.0  # distance between the front's ticks
CAL_TICK_MM = 4.0


@dataclass(frozen=True)
class Calibration:
    """Geometry of the calibration page (mm): two verniers, for X and for Y.

    The front has ticks `CAL_PITCH_MM` apart, labelled with offset values v_k = k * 0.25 mm.
    The back has one line per tick, placed like every back (mirrored, with the current
    offset) plus a shift of k * 0.25 mm in the sense that makes line k continue tick k
    exactly when v_k is the --back-offset that puts the backs behind their fronts.  So the
    reading is always the value to pass, whatever offset the page was printed with.
    """

    values: tuple[float, ...]
    x_ticks: tuple[float, ...]  # front x of each tick of the X vernier
    x_base: float  # front y of the X vernier's baseline (ticks go up, back lines go down)
    x_lines: tuple[tuple[float, float, float, float], ...]  # back-page segments of the X vernier
    y_ticks: tuple[float, ...]  # front y of each tick of the Y vernier
    y_base: float  # front x of the Y vernier's baseline (ticks go right, back lines go left)
    y_lines: tuple[tuple[float, float, float, float], ...]


def calibration_geometry(layout: SheetLayout, duplex: str, offset: tuple[float, float] = (0.0, 0.0)) -> Calibration:
    if duplex not in ("long", "short"):
        raise CardgenError("--calibration measures double-sided printing; use it with --duplex long or --duplex short")
    W, H = layout.page_w, layout.page_h
    ox, oy = offset
    # s: how a back line's displacement seen from the front relates to the offset that cancels it.
    sx, sy = (1, -1) if duplex == "long" else (-1, 1)
    ks = range(-CAL_STEPS, CAL_STEPS + 1)
    values = tuple(k * CAL_STEP_MM for k in ks)
    cx = W / 2
    x_base = H - layout.margin - 80.0
    y_base = W / 2
    span = CAL_STEPS * CAL_PITCH_MM
    y_mid = layout.margin + 12.0 + span + (x_base - 20.0 - span - (layout.margin + 12.0 + span)) / 2
    x_ticks = tuple(cx + k * CAL_PITCH_MM for k in ks)
    y_ticks = tuple(y_mid + k * CAL_PITCH_MM for k in ks)

    def back(point: tuple[float, float]) -> tuple[float, float]:
        return mirror_position(point, (0.0, 0.0), (W, H), duplex, offset)

    x_lines, y_lines = [], []
    for v, xt, yt in zip(values, x_ticks, y_ticks):
        fx = xt + sx * (ox - v)
        (x1, y1), (x2, y2) = back((fx, x_base)), back((fx, x_base - CAL_TICK_MM))
        x_lines.append((x1, y1, x2, y2))
        fy = yt + sy * (oy - v)
        (x1, y1), (x2, y2) = back((y_base, fy)), back((y_base - CAL_TICK_MM, fy))
        y_lines.append((x1, y1, x2, y2))
    return Calibration(values, x_ticks, x_base, tuple(x_lines), y_ticks, y_base, tuple(y_lines))


@binary_streams
def calibration_pdf(layout: SheetLayout, duplex: str, offset: tuple[float, float] = (0.0, 0.0), lang: str = "ja") -> bytes:
    """Two pages (front, back) whose verniers read the --back-offset for this printer."""
    geo = calibration_geometry(layout, duplex, offset)
    def t(key: str, **fields) -> str:
        return words.word(f"calibration.{key}", lang, **fields)

    W, H = layout.page_w, layout.page_h
    buffer = io.BytesIO()
    c = new_canvas(buffer, (W, H), t("title"), lang)
    # front
    steps = [t(f"step{i}", edge=t(duplex)) for i in range(1, 5)]
    _cal_text_block(c, layout, lang, t("title"), steps + [t("now", x=_num(offset[0]), y=_num(offset[1]))])
    c.saveState()
    c.setLineWidth(0.5)
    xb, yb = geo.x_base, geo.y_base
    c.line(geo.x_ticks[0] * mm, xb * mm, geo.x_ticks[-1] * mm, xb * mm)
    c.line(yb * mm, geo.y_ticks[0] * mm, yb * mm, geo.y_ticks[-1] * mm)
    for v, xt, yt in zip(geo.values, geo.x_ticks, geo.y_ticks):
        length = CAL_TICK_MM + (2.0 if v == 0 else 0.0)
        c.setFont(GOTHIC, 7 if v == 0 else 5.5)
        c.line(xt * mm, xb * mm, xt * mm, (xb + length) * mm)
        draw_string(c, xt * mm, (xb + length + 1.2) * mm, _signed(v), lang, "centre")
        c.line(yb * mm, yt * mm, (yb + length) * mm, yt * mm)
        draw_string(c, (yb + length + 1.2) * mm, (yt - 0.7) * mm, _signed(v), lang)
    c.setFont(GOTHIC, 9)
    draw_string(c, W / 2 * mm, (xb + 12) * mm, t("x"), lang, "centre")
    draw_string(c, (yb + 16) * mm, (geo.y_ticks[len(geo.y_ticks) // 2] - 1.2) * mm, t("y"), lang)
    c.restoreState()
    c.showPage()
    # back: one line per tick, placed like every back
    _cal_text_block(c, layout, lang, t("back_title"), [t("back_step")])
    c.saveState()
    c.setLineWidth(0.5)
    c.lines([tuple(v * mm for v in seg) for seg in geo.x_lines + geo.y_lines])
    c.restoreState()
    c.showPage()
    c.save()
    return buffer.getvalue()


def _signed(v: float) -> str:
    return "0" if v == 0 else f"{v:+g}".replace("-", "−")


def _cal_text_block(c: Canvas, layout: SheetLayout, lang: str, title: str, lines: Sequence[str]) -> None:
    W, H, m = layout.page_w, layout.page_h, layout.margin
    width = W - 2 * m - 20
    x = m + 10
    y = H - m - 10
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setFont(GOTHIC, 13)
    draw_string(c, x * mm, y * mm, title, lang)
    y -= 8
    c.setFont(GOTHIC, 8.5)
    for paragraph in lines:
        for line in wrap(paragraph, GOTHIC, 8.5, width, lang):
            draw_string(c, x * mm, y * mm, line, lang)
            y -= 4.2
        y -= 1.5
    c.restoreState()


def wrap(text: str, font: str, size: float, width_mm: float, lang: str) -> list[str]:
    """Break a line for the instructions with the one line breaker (kinsoku for Japanese)."""
    return [line for line in break_lines(text, font, size, width_mm * mm, lang) if line]
