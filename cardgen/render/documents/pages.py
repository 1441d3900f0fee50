"""Shared drawing for document pages (A4 or Letter) (playtest sheets, reports): header, footer, text, grids.

Sizes are in mm at the call site; the helpers convert. Paragraphs and grids are the document
kit's (`paragraph.TextBlock`, `table.text_table`), placed down the page by a cursor: the same
line breaking, Japanese justification and tables as the rulebooks.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from ...fonts import GOTHIC, draw_string
from ...model import Game, Text
from ..print.sheet import PAPERS, new_canvas
from .paragraph import TextBlock, TStyle
from .table import text_table

A4_MM = PAPERS["a4"]
PAGE_W, PAGE_H = A4_MM[0] * mm, A4_MM[1] * mm
MARGIN = 15 * mm
INK = (0.15, 0.15, 0.15)
RULE = (0.55, 0.55, 0.55)
SHADE = (0.92, 0.92, 0.92)


@dataclass
class PageWriter:
    """A canvas with a cursor that flows blocks down A4 pages and numbers them."""

    canvas: Canvas
    game: Game
    lang: str
    document_title: str
    page: int = 0
    y: float = 0.0

    font: str = GOTHIC
    page_w: float = PAGE_W  # points
    page_h: float = PAGE_H
    paper: str = "a4"
    # False: only lay out (move the cursor, start pages), for a scratch writer that measures how
    # much room blocks take; drawing them is most of the cost and nobody sees a scratch page.
    draws: bool = True

    @classmethod
    def create(cls, buffer, game: Game, lang: str, document_title: str, paper: str = "a4",
               subject: str | None = None) -> "PageWriter":
        """A writer on an A4 or Letter canvas set up like every other cardgen PDF (see sheet.new_canvas);
        `subject` (the document properties' subject) is for what belongs in the file but not on paper."""
        size = PAPERS[paper]
        canvas = new_canvas(buffer, size, f"{game.title.get(lang)} — {document_title}", lang)
        if subject:
            canvas.setSubject(subject)
        writer = cls(canvas, game, lang, document_title, page_w=size[0] * mm, page_h=size[1] * mm, paper=paper)
        writer.new_page()
        return writer

    @property
    def width(self) -> float:
        return self.page_w - 2 * MARGIN

    def new_page(self, heading: str | None = None) -> None:
        if self.page and self.draws:
            self.canvas.showPage()
        self.page += 1
        c = self.canvas
        if self.draws:
            c.setFillColorRGB(*INK)
            c.setFont(self.font, 8)
            draw_string(c, MARGIN, self.page_h - 10 * mm, f"{self.game.title.get(self.lang)} — {self.document_title}", self.lang)
            draw_string(c, self.page_w - MARGIN, 8 * mm, str(self.page), self.lang, "right")
            draw_string(c, MARGIN, 8 * mm, "cardgen", self.lang)  # the game's title heads the page; its id is internal
        self.y = self.page_h - 18 * mm
        if heading:
            self.heading(heading)

    def ensure(self, height: float) -> None:
        """Start a new page unless `height` points still fit above the footer."""
        if self.y - height < 15 * mm:
            self.new_page()

    def heading(self, text: str, size: float = 16) -> None:
        self.ensure(size * 2)
        if self.draws:
            self.canvas.setFillColorRGB(*INK)
            self.canvas.setFont(self.font, size)
            draw_string(self.canvas, MARGIN, self.y - size, text, self.lang)
        self.y -= size * 1.6

    def style(self, size: float, leading: float | None = None, **kw) -> TStyle:
        """The writer's text style at `size` points (for a paragraph or a table cell)."""
        return TStyle(self.font, self.font, size, leading or size * 1.45, INK, **kw)

    def paragraph(self, text: str, size: float = 9.5, indent: float = 0.0, gap: float = 4.0) -> None:
        """A paragraph of plain text (`**` is printed as typed), broken and justified by the kit."""
        block = TextBlock([(text, False)], self.lang, self.style(size, left=indent))
        block.wrap(self.width, self.y)
        leading = block.style.leading
        ascent = size * 0.88
        for index in range(len(block.lines)):
            self.ensure(leading)
            if self.draws:
                block.draw_line(self.canvas, index, MARGIN, self.y - (leading - size) / 2 - ascent)
            self.y -= leading
        self.y -= gap

    def grid(self, headers: list[str], rows: list[list[str]], widths: list[float] | None = None,
             row_height: float = 7.5 * mm, group_headers: list[tuple[str, int]] | None = None,
             size: float = 8.5) -> None:
        """Draw a ruled table (the kit's, boxed); empty cells are boxes to write in. Widths are
        fractions or None (equal); the header rows repeat on every page the table runs onto."""
        count = len(headers)
        fractions = widths or [1.0 / count] * count
        total = sum(fractions)
        col_w = [self.width * f / total for f in fractions]
        def cell(text: str, strong: bool = False, align: str = "left") -> TextBlock:
            return TextBlock([(text, False)], self.lang, self.style(size, size * 1.25, align=align, justify=False))

        data: list[list[object]] = []
        spans: list[tuple[int, int, int]] = []
        if group_headers:
            row: list[object] = []
            for label, span in group_headers:
                spans.append((0, len(row), span))
                row += [cell(label, align="center")] + [""] * (span - 1)
            data.append(row)
        data.append(list(headers))
        head = len(data)
        data += [list(r) + [""] * (count - len(r)) for r in rows]

        def table_of(rows_: list[list[object]]):
            return text_table(rows_, cell, {"rule": RULE, "accent": RULE, "header_fill": SHADE, "zebra_fill": SHADE},
                              self.font, self.width, header_rows=head, widths=col_w, boxed=True,
                              row_height=row_height, spans=spans, pad=1 * mm)

        table = table_of(data)
        # Start where the header and a few rows fit, then run the table over as many pages as it needs.
        _, needed = table_of(data[:head + min(len(rows), 3)]).wrap(self.width, self.page_h)
        self.ensure(needed)
        while table is not None:
            avail = self.y - 15 * mm
            _, height = table.wrapOn(self.canvas, self.width, avail)
            if height <= avail:
                if self.draws:
                    table.drawOn(self.canvas, MARGIN, self.y - height)
                self.y -= height
                break
            parts = table.split(self.width, avail)
            if len(parts) < 2:
                self.new_page()
                continue
            first, table = parts[0], parts[1]
            _, height = first.wrapOn(self.canvas, self.width, avail)
            if self.draws:
                first.drawOn(self.canvas, MARGIN, self.y - height)
            self.new_page()
        self.y -= 5 * mm

    def finish(self) -> None:
        self.canvas.showPage()
        self.canvas.save()


def text_of(value: Text | dict | str, lang: str) -> str:
    if isinstance(value, Text):
        return value.get(lang)
    if isinstance(value, dict):
        return str(value.get(lang, value.get("en", "")))
    return str(value)
