"""Home-print sheets: imposition, crop marks, duplex backs, footer and a calibration page.

All geometry is in millimetres with the PDF's origin (lower-left of the page); only the
drawing converts to points.

How a sheet is laid out (what prints best on a home printer)
------------------------------------------------------------

- **Printer margin.** Nothing that matters (cards, footer) is placed closer than
  `margin_mm` (default `DEFAULT_MARGIN_MM` = 5 mm) to a paper edge: most inkjet and laser
  printers cannot print the outer 3-5 mm.  Crop marks are the one exception: they start
  outside the cards and run outward, and may reach into that band (up to 2 mm from the
  edge), where a printer that cannot print simply drops them; the part inside the margin
  always prints.
- **Default: no per-card bleed, gutter 0, shared cut lines.**  Three by three poker cards
  (190.5 x 266.7 mm) then fit A4 and Letter with room for the printer margin, and one cut
  separates two cards.  With 3 mm bleed on every card the 3 x 3 block needs 208.5 mm of
  width, which leaves A4 0.75 mm at each side (far less than printers print), so the
  computed grid drops to 2 x 3 = 6 cards (Letter: 2 x 2).  Per-card bleed pays off at a print shop, whose
  files (`printshop.py`) carry 1/8 in bleed by default; at home a slightly imprecise
  scissor cut beside the neighbour's edge looks better than losing a third of every sheet.
  Pass `--bleed`/`--gutter` for separated cards; the grid is recomputed, never clipped.
- **Grid.** `cols = floor((paper - 2*margin + gutter) / (card + 2*bleed + gutter))`, the
  same for rows; the block is centred on the paper, so a duplex back sheet (the mirror
  image) lands on the same grid.  `gutter` is the gap between the bleed areas of two
  neighbouring cards.  No fit is a `CardgenError` that says what to change.
- **Crop marks** are drawn only outside the block of cards (and their bleed), at every cut
  position: `corners` = 5 mm marks, `lines` = lines across the whole margin for a
  guillotine or a long ruler, `none`.  0.4 pt black (>= 0.25 pt prints visibly).
- **Footer**: game, sheet n of m, front/back, card ids, card size (measure a card to check
  the scale), the duplex flip and "print at 100 % / actual size".  It goes in the margin
  with the most room (rotated along a side on Letter, whose top and bottom margins are
  only 6.35 mm); if no margin has room, a strip is reserved at the bottom and the grid
  recomputed.
- **Duplex.** Each front sheet is followed by its back sheet.  `long`: the back of the
  card at (x, y) is at (paper_w - x - card_w, y) (mirror left-right); `short`: at
  (x, paper_h - y - card_h) (mirror top-bottom); `none`: at the front's own position, for
  single-sided printing where fronts and backs are cut separately and sleeved together.
  The back offset (x, y) then moves every back by x mm right and y mm up as the back page
  is laid out (as a PDF viewer shows it).  `calibration_pdf` prints a page whose scales
  read that offset directly.
"""

from __future__ import annotations

import functools
import io
import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from reportlab import rl_config
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from ..errors import CardgenError
from ..fonts import GOTHIC, register_fonts

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAPER_NAMES = {"a4": "A4", "letter": "Letter"}
CROP_MARKS = ("corners", "lines", "none")
DUPLEX = ("long", "short", "none")

DEFAULT_MARGIN_MM = 5.0
MARK_WIDTH_PT = 0.4
MARK_GAP_MM = 0.5  # between the cards' outer (bleed) edge and the start of a mark
MARK_LEN_MM = 5.0  # corners mode
MARK_EDGE_MM = 2.0  # marks stop this far from the paper edge
MIN_MARK_MM = 2.0  # a footer must leave at least this much mark on its side
FOOTER_PT = 6.0
FOOTER_MIN_PT = 4.5
FOOTER_H_MM = 2.6  # the strip a 6 pt line needs
FOOTER_CLEAR_MM = 1.0  # between the footer strip and the crop marks


@dataclass(frozen=True)
class SheetLayout:
    """Where cards go on a home-print sheet.  All values in mm, origin lower-left."""

    paper: str
    page_w: float
    page_h: float
    card_w: float
    card_h: float
    bleed: float
    gutter: float
    margin: float
    cols: int
    rows: int
    block_left: float  # outer (bleed) edge of the card block
    block_bottom: float
    footer_side: str  # "bottom", "top", "left", "right"
    crop_marks: str = "corners"

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def pitch_x(self) -> float:
        return self.card_w + 2 * self.bleed + self.gutter

    @property
    def pitch_y(self) -> float:
        return self.card_h + 2 * self.bleed + self.gutter

    @property
    def block_w(self) -> float:
        return self.cols * (self.card_w + 2 * self.bleed) + (self.cols - 1) * self.gutter

    @property
    def block_h(self) -> float:
        return self.rows * (self.card_h + 2 * self.bleed) + (self.rows - 1) * self.gutter

    def front_position(self, slot: int) -> tuple[float, float]:
        """Lower-left corner of the trimmed card in `slot` (0 = top-left, row by row)."""
        row, col = divmod(slot, self.cols)
        x = self.block_left + self.bleed + col * self.pitch_x
        top = self.block_bottom + self.block_h
        y = top - self.bleed - self.card_h - row * self.pitch_y
        return x, y

    def back_position(self, slot: int, duplex: str, offset: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
        """Lower-left corner of the trimmed back of the card in `slot` on the back sheet."""
        return mirror_position(self.front_position(slot), (self.card_w, self.card_h), (self.page_w, self.page_h), duplex, offset)

    def describe(self) -> str:
        bleed = f"{_num(self.bleed)} mm bleed" if self.bleed else "no bleed"
        return (
            f"{self.cols} x {self.rows} cards of {_num(self.card_w)} x {_num(self.card_h)} mm per "
            f"{PAPER_NAMES.get(self.paper, self.paper)} sheet ({bleed}, gutter {_num(self.gutter)} mm, "
            f"printer margin {_num(self.margin)} mm)"
        )


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


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _fit(available: float, cell: float, gutter: float) -> int:
    return max(0, math.floor((available + gutter + 1e-6) / (cell + gutter)))


def footer_need_mm(crop_marks: str) -> float:
    """Room a margin needs to take the footer (beside the marks on that side)."""
    if crop_marks == "none":
        return FOOTER_H_MM + MARK_GAP_MM
    return FOOTER_H_MM + FOOTER_CLEAR_MM + MARK_GAP_MM + MIN_MARK_MM


def compute_layout(
    paper: str,
    card_w: float,
    card_h: float,
    bleed: float = 0.0,
    gutter: float = 0.0,
    margin: float = DEFAULT_MARGIN_MM,
    crop_marks: str = "corners",
) -> SheetLayout:
    """Fit as many cards as the paper takes; raise CardgenError (saying what to change) if none fits."""
    if paper not in PAPERS:
        raise CardgenError(f"paper {paper!r} is unknown; use {' or '.join(PAPERS)}")
    if crop_marks not in CROP_MARKS:
        raise CardgenError(f"crop marks {crop_marks!r} are unknown; use {', '.join(CROP_MARKS)}")
    for name, value in (("bleed", bleed), ("gutter", gutter), ("printer margin", margin)):
        if not math.isfinite(value) or value < 0:
            raise CardgenError(f"{name} must be 0 mm or more, got {value}")
    if card_w <= 0 or card_h <= 0:
        raise CardgenError(f"card size must be positive, got {card_w} x {card_h} mm")
    page_w, page_h = PAPERS[paper]
    cell_w, cell_h = card_w + 2 * bleed, card_h + 2 * bleed
    cols = _fit(page_w - 2 * margin, cell_w, gutter)
    rows = _fit(page_h - 2 * margin, cell_h, gutter)
    if cols < 1 or rows < 1:
        raise CardgenError(
            f"a {_num(card_w)} x {_num(card_h)} mm card with {_num(bleed)} mm bleed "
            f"({_num(cell_w)} x {_num(cell_h)} mm) does not fit on {PAPER_NAMES[paper]} "
            f"({_num(page_w)} x {_num(page_h)} mm) inside {_num(margin)} mm printer margins; "
            f"use less bleed (--bleed 0), a smaller card size, the other paper, or a smaller margin"
        )
    need = footer_need_mm(crop_marks)

    def make(cols: int, rows: int, reserve: str | None) -> SheetLayout:
        block_w = cols * cell_w + (cols - 1) * gutter
        block_h = rows * cell_h + (rows - 1) * gutter
        left = (page_w - block_w) / 2
        bottom = (page_h - block_h) / 2
        if reserve == "bottom":
            bottom = margin + need + (page_h - 2 * margin - need - block_h) / 2
        elif reserve == "right":
            left = margin + (page_w - 2 * margin - need - block_w) / 2
        free = {
            "bottom": bottom - margin,
            "right": page_w - margin - (left + block_w),
            "left": left - margin,
            "top": page_h - margin - (bottom + block_h),
        }
        side = reserve or max(free, key=lambda s: (free[s] >= need - 1e-6, s == "bottom", free[s]))
        return SheetLayout(paper, page_w, page_h, card_w, card_h, bleed, gutter, margin, cols, rows, left, bottom, side, crop_marks)

    layout = make(cols, rows, None)
    free = _free_space(layout)
    if free[layout.footer_side] >= need - 1e-6:
        return layout
    # No margin takes the footer: reserve a strip, keeping as many cards as possible.
    rows_b = _fit(page_h - 2 * margin - need, cell_h, gutter)
    cols_r = _fit(page_w - 2 * margin - need, cell_w, gutter)
    if max(rows_b * cols, rows * cols_r) < 1:
        raise CardgenError(
            f"a {_num(card_w)} x {_num(card_h)} mm card with {_num(bleed)} mm bleed leaves no room for the "
            f"sheet footer on {PAPER_NAMES[paper]}; use less bleed, a smaller card size or a smaller margin"
        )
    if rows_b * cols >= rows * cols_r:
        return make(cols, rows_b, "bottom")
    return make(cols_r, rows, "right")


def _free_space(layout: SheetLayout, dx: float = 0.0, dy: float = 0.0) -> dict[str, float]:
    left, bottom = layout.block_left + dx, layout.block_bottom + dy
    return {
        "bottom": bottom - layout.margin,
        "right": layout.page_w - layout.margin - (left + layout.block_w),
        "left": left - layout.margin,
        "top": layout.page_h - layout.margin - (bottom + layout.block_h),
    }


# --- placements ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """One card on one sheet: its index in card order, slot, and front/back positions (mm)."""

    index: int
    slot: int
    front: tuple[float, float]
    back: tuple[float, float]


def plan_sheets(layout: SheetLayout, n_cards: int, duplex: str, offset: tuple[float, float] = (0.0, 0.0)) -> list[list[Placement]]:
    """Cards in order, filling each sheet row by row from the top-left; the last sheet may be partial."""
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


def new_canvas(buffer: io.BytesIO, pagesize_mm: tuple[float, float], title: str) -> Canvas:
    """A canvas whose output depends only on what is drawn (fixed dates and ids)."""
    register_fonts()
    # The initial font is the embedded Gothic: ReportLab's default (Helvetica) would put a
    # non-embedded font on every page.
    c = Canvas(buffer, pagesize=(pagesize_mm[0] * mm, pagesize_mm[1] * mm), invariant=1, pageCompression=1,
               initialFontName=GOTHIC, initialFontSize=10, initialLeading=12)
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
    from . import card as card_render

    group = getattr(card_render, "back_group", None)
    return str(group(game, face.card)) if group else "default"


class FaceForms:
    """Draws each card face once into a form XObject (clipped to card + bleed) and reuses it.

    A shared back (the deck's common back, or one per back group) is drawn once and reused
    by every card that shows it.  Forms make each card's position readable from the PDF (a
    `cm` then a `Do`), and the file smaller and faster to write.
    """

    def __init__(self, canvas: Canvas, game, size: tuple[float, float], bleed: float, lang: str, overflows: list | None,
                 corner_index: bool = False):
        self.c = canvas
        self.corner_index = corner_index
        self.game = game
        self.w, self.h = size
        self.bleed = bleed
        self.lang = lang
        self.overflows = overflows
        self.defined: set[str] = set()

    def name(self, index: int, face) -> str:
        group = shared_back(self.game, face)
        if group is not None:
            return "back_" + _NAME_UNSAFE.sub("_", group)
        return form_name(index, face.card.id, face.side)

    def define(self, index: int, face) -> str:
        from . import card as card_render  # the colleague's renderer; looked up at call time

        name = self.name(index, face)
        if name in self.defined:
            return name
        b = self.bleed
        c = self.c
        c.beginForm(name, 0, 0, (self.w + 2 * b) * mm, (self.h + 2 * b) * mm)
        card_render.draw_face(c, self.game, face, b, b, self.w, self.h, b, self.lang, self.overflows)
        if self.corner_index and face.side == "front":
            card_render.draw_corner_index(c, self.game, face.card, b, b, self.w, self.h)
        c.endForm()
        self.defined.add(name)
        return name

    def place(self, name: str, x: float, y: float) -> None:
        """Draw a defined face with its trimmed lower-left corner at (x, y) mm."""
        c = self.c
        c.saveState()
        c.translate((x - self.bleed) * mm, (y - self.bleed) * mm)
        c.doForm(name)
        c.restoreState()


# --- crop marks ---------------------------------------------------------------------------


def crop_mark_lines(layout: SheetLayout, positions: Sequence[tuple[float, float]], dx: float = 0.0, dy: float = 0.0) -> list[tuple[float, float, float, float]]:
    """Line segments (x1, y1, x2, y2 in mm) of the crop marks for cards at `positions`.

    The block of the full grid, shifted by (dx, dy), bounds the cards; marks are drawn only
    outside it, at every distinct trim edge of the cards present, never crossing the footer.
    """
    if layout.crop_marks == "none" or not positions:
        return []
    W, H, m = layout.page_w, layout.page_h, layout.margin
    left = layout.block_left + dx
    bottom = layout.block_bottom + dy
    right = left + layout.block_w
    top = bottom + layout.block_h
    xs = _distinct([x for x, _ in positions] + [x + layout.card_w for x, _ in positions])
    ys = _distinct([y for _, y in positions] + [y + layout.card_h for _, y in positions])
    reach = MARK_LEN_MM if layout.crop_marks == "corners" else max(W, H)
    footer_inner = m + FOOTER_H_MM + FOOTER_CLEAR_MM

    def limit(side: str) -> float:
        # Distance from the paper edge at which marks on `side` stop.
        return footer_inner if layout.footer_side == side else MARK_EDGE_MM

    segs = []
    start, end = top + MARK_GAP_MM, min(top + MARK_GAP_MM + reach, H - limit("top"))
    if end - start > 0.2:
        segs += [(x, start, x, end) for x in xs]
    start, end = bottom - MARK_GAP_MM, max(bottom - MARK_GAP_MM - reach, limit("bottom"))
    if start - end > 0.2:
        segs += [(x, start, x, end) for x in xs]
    start, end = left - MARK_GAP_MM, max(left - MARK_GAP_MM - reach, limit("left"))
    if start - end > 0.2:
        segs += [(start, y, end, y) for y in ys]
    start, end = right + MARK_GAP_MM, min(right + MARK_GAP_MM + reach, W - limit("right"))
    if end - start > 0.2:
        segs += [(start, y, end, y) for y in ys]
    return segs


def _distinct(values: Iterable[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > 0.01:
            out.append(v)
    return out


def draw_lines(c: Canvas, segs: Sequence[tuple[float, float, float, float]], width_pt: float = MARK_WIDTH_PT) -> None:
    if not segs:
        return
    c.saveState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(width_pt)
    c.lines([(x1 * mm, y1 * mm, x2 * mm, y2 * mm) for x1, y1, x2, y2 in segs])
    c.restoreState()


# --- footer -------------------------------------------------------------------------------

_WORDS = {
    "en": {
        "sheet": "sheet {n} of {m}",
        "front": "front",
        "back": "back",
        "card": "cards {w} x {h} mm",
        "long": "double-sided, flip on long edge",
        "short": "double-sided, flip on short edge",
        "none": "single-sided: cut fronts and backs apart",
        "scale": "print at 100 % / actual size (not fit to page)",
    },
    "ja": {
        "sheet": "シート {n}/{m}",
        "front": "表",
        "back": "裏",
        "card": "カード {w}×{h} mm",
        "long": "両面印刷・長辺とじ",
        "short": "両面印刷・短辺とじ",
        "none": "片面印刷：表と裏を別々に切る",
        "scale": "100 %（実際のサイズ）で印刷、用紙に合わせない",
    },
}


def footer_text(game, layout: SheetLayout, n: int, m: int, side: str, ids: Sequence[str], duplex: str, lang: str, max_len_mm: float) -> tuple[str, float]:
    """The footer line and its font size, shortened (ids as a range, smaller type) until it fits."""
    w = _WORDS.get(lang, _WORDS["en"])
    title = game.title.get(lang)
    head = f"{title} ({game.id}) · {w['sheet'].format(n=n, m=m)} {w[side]}"
    tail = f"{w['card'].format(w=_num(layout.card_w), h=_num(layout.card_h))} · {w[duplex]} · {w['scale']}"
    id_forms = [" ".join(ids)]
    if len(ids) > 1:
        id_forms.append(f"{ids[0]}–{ids[-1]}")
    for ids_text in id_forms:
        text = f"{head} · {ids_text} · {tail}"
        for size in (FOOTER_PT, 5.5, 5.0, FOOTER_MIN_PT):
            if stringWidth(text, GOTHIC, size) <= max_len_mm * mm:
                return text, size
    text = f"{head} · {id_forms[-1]} · {w['scale']}"
    while stringWidth(text, GOTHIC, FOOTER_MIN_PT) > max_len_mm * mm and len(text) > 10:
        text = text[:-2] + "…"
    return text, FOOTER_MIN_PT


def draw_footer(c: Canvas, layout: SheetLayout, text: str, size: float) -> None:
    W, H, m = layout.page_w, layout.page_h, layout.margin
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setFont(GOTHIC, size)
    descent = 0.22 * size / mm * 1.0  # mm
    ascent = 0.88 * size / mm * 1.0
    side = layout.footer_side
    if side == "bottom":
        c.drawCentredString(W / 2 * mm, (m + descent + 0.2) * mm, text)
    elif side == "top":
        c.drawCentredString(W / 2 * mm, (H - m - ascent - 0.2) * mm, text)
    else:
        x = (W - m - descent - 0.2) if side == "right" else (m + ascent + 0.2)
        c.translate(x * mm, H / 2 * mm)
        c.rotate(90)
        c.drawCentredString(0, 0, text)
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
) -> bytes:
    """Front sheet, then its back sheet, for every sheet of cards.  Returns the PDF bytes."""
    if duplex not in DUPLEX:
        raise CardgenError(f"--duplex {duplex!r} is unknown; use long, short or none")
    buffer = io.BytesIO()
    c = new_canvas(buffer, (layout.page_w, layout.page_h), f"{game.title.get(lang)} — {PAPER_NAMES[layout.paper]}")
    forms = FaceForms(c, game, (layout.card_w, layout.card_h), layout.bleed, lang, overflows, corner_index)
    sheets = plan_sheets(layout, len(pairs), duplex, offset)
    along = footer_length_mm(layout)
    back_dx, back_dy = _back_shift(layout, duplex, offset)
    for n, sheet in enumerate(sheets, start=1):
        ids = [pairs[p.index][0].card.id for p in sheet]
        # front
        names = [forms.define(p.index, pairs[p.index][0]) for p in sheet]
        for p, name in zip(sheet, names):
            forms.place(name, *p.front)
        draw_lines(c, crop_mark_lines(layout, [p.front for p in sheet]))
        draw_footer(c, layout, *footer_text(game, layout, n, len(sheets), "front", ids, duplex, lang, along))
        c.showPage()
        # back
        names = [forms.define(p.index, pairs[p.index][1]) for p in sheet]
        for p, name in zip(sheet, names):
            forms.place(name, *p.back)
        draw_lines(c, crop_mark_lines(layout, [p.back for p in sheet], back_dx, back_dy))
        back_ids = [pairs[p.index][1].card.id for p in sheet]
        draw_footer(c, layout, *footer_text(game, layout, n, len(sheets), "back", back_ids, duplex, lang, along))
        c.showPage()
        if progress:
            progress(len(sheet))
    c.save()
    return buffer.getvalue()


def _back_shift(layout: SheetLayout, duplex: str, offset: tuple[float, float]) -> tuple[float, float]:
    """How the whole block moves on the back page (mirroring a centred block keeps it in place)."""
    x0, y0 = layout.block_left, layout.block_bottom
    bx, by = mirror_position((x0, y0), (layout.block_w, layout.block_h), (layout.page_w, layout.page_h), duplex, offset)
    return bx - x0, by - y0


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


_CAL_TEXT = {
    "en": {
        "title": "Duplex calibration: front",
        "back_title": "Duplex calibration: back",
        "steps": [
            "1. Print this file double-sided at 100 % (actual size), flipping on the {edge} edge, on the printer and settings you will use for the cards.",
            "2. Hold the sheet up to a bright light with this side facing you. The lines printed on the back show through below (X) and left of (Y) the ticks.",
            "3. On each scale, find the tick that a line from the back continues in a straight line, and read its number.",
            "4. Build with --back-offset X,Y (for example --back-offset 0.5,-0.75). To check, print this page again with that offset: both scales then read the same numbers, and the backs land behind their fronts.",
        ],
        "back_steps": ["This is the back. Read the scales on the other side, against a light."],
        "x": "X: the first number of --back-offset X,Y (mm)",
        "y": "Y: the second number (mm)",
        "now": "This page was printed with --back-offset {x},{y}.",
        "long": "long", "short": "short",
    },
    "ja": {
        "title": "両面印刷の位置合わせ：表",
        "back_title": "両面印刷の位置合わせ：裏",
        "steps": [
            "1. このファイルを、カードを印刷するときと同じプリンターと設定で両面印刷する（100 %・実際のサイズ、{edge}とじ）。",
            "2. この面を手前にして明るい光にかざす。裏に印刷された線が、目盛りの下（X）と左（Y）に透けて見える。",
            "3. それぞれの目盛りで、裏の線と一直線につながる目盛りを探し、その数字を読む。",
            "4. その数字で --back-offset X,Y を指定してビルドする（例：--back-offset 0.5,-0.75）。確かめるには、その値でこのページをもう一度印刷する。同じ数字が読め、カードの裏は表のちょうど裏に来る。",
        ],
        "back_steps": ["こちらは裏面。反対の面から光にかざして目盛りを読む。"],
        "x": "X：--back-offset X,Y の1つめの数（mm）",
        "y": "Y：2つめの数（mm）",
        "now": "このページは --back-offset {x},{y} で印刷された。",
        "long": "長辺", "short": "短辺",
    },
}


@binary_streams
def calibration_pdf(layout: SheetLayout, duplex: str, offset: tuple[float, float] = (0.0, 0.0), lang: str = "ja") -> bytes:
    """Two pages (front, back) whose verniers read the --back-offset for this printer."""
    geo = calibration_geometry(layout, duplex, offset)
    t = _CAL_TEXT.get(lang, _CAL_TEXT["en"])
    W, H = layout.page_w, layout.page_h
    buffer = io.BytesIO()
    c = new_canvas(buffer, (W, H), t["title"])
    # front
    _cal_text_block(c, layout, t["title"], [s.format(edge=t[duplex]) for s in t["steps"]] + [t["now"].format(x=_num(offset[0]), y=_num(offset[1]))])
    c.saveState()
    c.setLineWidth(0.5)
    xb, yb = geo.x_base, geo.y_base
    c.line(geo.x_ticks[0] * mm, xb * mm, geo.x_ticks[-1] * mm, xb * mm)
    c.line(yb * mm, geo.y_ticks[0] * mm, yb * mm, geo.y_ticks[-1] * mm)
    for v, xt, yt in zip(geo.values, geo.x_ticks, geo.y_ticks):
        length = CAL_TICK_MM + (2.0 if v == 0 else 0.0)
        c.setFont(GOTHIC, 7 if v == 0 else 5.5)
        c.line(xt * mm, xb * mm, xt * mm, (xb + length) * mm)
        c.drawCentredString(xt * mm, (xb + length + 1.2) * mm, _signed(v))
        c.line(yb * mm, yt * mm, (yb + length) * mm, yt * mm)
        c.drawString((yb + length + 1.2) * mm, (yt - 0.7) * mm, _signed(v))
    c.setFont(GOTHIC, 9)
    c.drawCentredString(W / 2 * mm, (xb + 12) * mm, t["x"])
    c.drawString((yb + 16) * mm, (geo.y_ticks[len(geo.y_ticks) // 2] - 1.2) * mm, t["y"])
    c.restoreState()
    c.showPage()
    # back: one line per tick, placed like every back
    _cal_text_block(c, layout, t["back_title"], t["back_steps"])
    c.saveState()
    c.setLineWidth(0.5)
    c.lines([tuple(v * mm for v in seg) for seg in geo.x_lines + geo.y_lines])
    c.restoreState()
    c.showPage()
    c.save()
    return buffer.getvalue()


def _signed(v: float) -> str:
    return "0" if v == 0 else f"{v:+g}".replace("-", "−")


def _cal_text_block(c: Canvas, layout: SheetLayout, title: str, lines: Sequence[str]) -> None:
    W, H, m = layout.page_w, layout.page_h, layout.margin
    width = W - 2 * m - 20
    x = m + 10
    y = H - m - 10
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setFont(GOTHIC, 13)
    c.drawString(x * mm, y * mm, title)
    y -= 8
    c.setFont(GOTHIC, 8.5)
    for paragraph in lines:
        for line in wrap(paragraph, GOTHIC, 8.5, width):
            c.drawString(x * mm, y * mm, line)
            y -= 4.2
        y -= 1.5
    c.restoreState()


def wrap(text: str, font: str, size: float, width_mm: float) -> list[str]:
    """Break a line for the instructions: between words, or between any characters in CJK runs."""
    limit = width_mm * mm
    tokens = re.findall(r"[\u3000-\u9fff\uff00-\uffef]|\S+\s*|\s+", text)
    lines, current = [], ""
    for token in tokens:
        if current and stringWidth(current + token, font, size) > limit:
            lines.append(current.rstrip())
            current = token.lstrip()
        else:
            current += token
    if current.strip():
        lines.append(current.rstrip())
    return lines
