"""Shared drawing for document pages (A4 or Letter) (playtest sheets, reports): header, footer, text, grids.

Sizes are in mm at the call site; the helpers convert. Japanese text is broken with
`cardgen.text.break_lines`, the same line breaking as the cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from ...fonts import GOTHIC
from ...model import Game, Text
from ...text import break_lines
from ..print.sheet import PAPERS, new_canvas

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

    @classmethod
    def create(cls, buffer, game: Game, lang: str, document_title: str, paper: str = "a4") -> "PageWriter":
        """A writer on an A4 or Letter canvas set up like every other cardgen PDF (see sheet.new_canvas)."""
        size = PAPERS[paper]
        canvas = new_canvas(buffer, size, f"{game.title.get(lang)} — {document_title}")
        writer = cls(canvas, game, lang, document_title, page_w=size[0] * mm, page_h=size[1] * mm, paper=paper)
        writer.new_page()
        return writer

    @property
    def width(self) -> float:
        return self.page_w - 2 * MARGIN

    def new_page(self, heading: str | None = None) -> None:
        if self.page:
            self.canvas.showPage()
        self.page += 1
        c = self.canvas
        c.setFillColorRGB(*INK)
        c.setFont(self.font, 8)
        c.drawString(MARGIN, self.page_h - 10 * mm, f"{self.game.title.get(self.lang)} — {self.document_title}")
        c.drawRightString(self.page_w - MARGIN, 8 * mm, str(self.page))
        c.drawString(MARGIN, 8 * mm, f"cardgen · {self.game.id}")
        self.y = self.page_h - 18 * mm
        if heading:
            self.heading(heading)

    def ensure(self, height: float) -> None:
        """Start a new page unless `height` points still fit above the footer."""
        if self.y - height < 15 * mm:
            self.new_page()

    def heading(self, text: str, size: float = 16) -> None:
        self.ensure(size * 2)
        self.canvas.setFillColorRGB(*INK)
        self.canvas.setFont(self.font, size)
        self.canvas.drawString(MARGIN, self.y - size, text)
        self.y -= size * 1.6

    def paragraph(self, text: str, size: float = 9.5, indent: float = 0.0, gap: float = 4.0) -> None:
        leading = size * 1.45
        for line in break_lines(text, self.font, size, self.width - indent, self.lang):
            self.ensure(leading)
            self.canvas.setFont(self.font, size)
            self.canvas.setFillColorRGB(*INK)
            self.canvas.drawString(MARGIN + indent, self.y - size, line)
            self.y -= leading
        self.y -= gap

    def grid(self, headers: list[str], rows: list[list[str]], widths: list[float] | None = None,
             row_height: float = 7.5 * mm, group_headers: list[tuple[str, int]] | None = None,
             size: float = 8.5) -> None:
        """Draw a ruled table; empty cells are boxes to write in. Widths are fractions or None (equal)."""
        count = len(headers)
        fractions = widths or [1.0 / count] * count
        total = sum(fractions)
        col_w = [self.width * f / total for f in fractions]
        header_h = max(row_height, self._cell_height(headers, col_w, size))
        needed = header_h + row_height * min(len(rows), 3) + (row_height if group_headers else 0)
        self.ensure(needed)
        c = self.canvas

        def draw_header() -> None:
            if group_headers:
                x, first = MARGIN, 0
                for label, span in group_headers:
                    w = sum(col_w[first: first + span])
                    first += span
                    c.setFillColorRGB(*SHADE)
                    c.rect(x, self.y - row_height, w, row_height, stroke=1, fill=1)
                    c.setFillColorRGB(*INK)
                    c.setFont(self.font, size)
                    c.drawCentredString(x + w / 2, self.y - row_height + (row_height - size) / 2 + 1, label)
                    x += w
                self.y -= row_height
            x = MARGIN
            for text, w in zip(headers, col_w):
                c.setFillColorRGB(*SHADE)
                c.setStrokeColorRGB(*RULE)
                c.setLineWidth(0.5)
                c.rect(x, self.y - header_h, w, header_h, stroke=1, fill=1)
                self._cell_text(text, x, self.y, w, header_h, size)
                x += w
            self.y -= header_h

        draw_header()
        for row in rows:
            if self.y - row_height < 15 * mm:
                self.new_page()
                draw_header()
            x = MARGIN
            for text, w in zip(row, col_w):
                c.setStrokeColorRGB(*RULE)
                c.setLineWidth(0.5)
                c.rect(x, self.y - row_height, w, row_height, stroke=1, fill=0)
                if text:
                    self._cell_text(text, x, self.y, w, row_height, size)
                x += w
            self.y -= row_height
        self.y -= 5 * mm

    def _cell_height(self, texts: list[str], col_w: list[float], size: float) -> float:
        lines = max(len(break_lines(t, self.font, size, w - 2 * mm, self.lang)) for t, w in zip(texts, col_w))
        return lines * size * 1.25 + 2.5 * mm

    def _cell_text(self, text: str, x: float, top: float, w: float, h: float, size: float) -> None:
        lines = break_lines(text, self.font, size, w - 2 * mm, self.lang)
        leading = size * 1.25
        block = leading * len(lines)
        y = top - (h - block) / 2 - size
        self.canvas.setFillColorRGB(*INK)
        self.canvas.setFont(self.font, size)
        for line in lines:
            self.canvas.drawString(x + 1 * mm, y + 0.15 * size, line)
            y -= leading

    def finish(self) -> None:
        self.canvas.showPage()
        self.canvas.save()


def text_of(value: Text | dict | str, lang: str) -> str:
    if isinstance(value, Text):
        return value.get(lang)
    if isinstance(value, dict):
        return str(value.get(lang, value.get("en", "")))
    return str(value)
