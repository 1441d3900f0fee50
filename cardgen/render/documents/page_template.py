"""The page template of a document: running head, folio "n / total", and the one-pass canvas and template."""

from __future__ import annotations

from typing import Callable

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus.doctemplate import BaseDocTemplate

from ...fonts import draw_string, register_fonts


def _page_decorator(header: str, footer_fmt: str, style: dict, fonts: tuple[str, str], lang: str) -> Callable:
    page = style["page"]
    colours = style["colours"]
    gothic, _ = fonts

    def decorate(canv: _Canvas, doc: BaseDocTemplate) -> None:
        w, h = doc.pagesize
        number = canv.getPageNumber()
        canv.saveState()
        canv.setFont(gothic, 8)
        canv.setFillColorRGB(*colours["muted"])
        if number > 1:
            draw_string(canv, page["margin_inner"] * mm, h - page["header_offset"] * mm, header, lang)
            canv.setStrokeColorRGB(*colours["rule"])
            canv.setLineWidth(0.4)
            y = h - page["header_offset"] * mm - 3
            canv.line(page["margin_inner"] * mm, y, w - page["margin_outer"] * mm, y)
        canv.restoreState()

        def folio(c: Canvas) -> None:  # "n / total": the total is known when the last page is done
            c.setFont(gothic, 8)
            c.setFillColorRGB(*colours["muted"])
            draw_string(c, w / 2, page["footer_offset"] * mm, footer_fmt.format(page=number, total=doc.page), lang, "centre")

        canv.draw_on_page_later(folio)

    return decorate


class _Canvas(Canvas):
    """A document's canvas: its initial font is an embedded one (never the non-embedded
    Helvetica), and what depends on the finished document (the page total, the page a heading
    falls on) is drawn when the last page is done (`draw_what_was_left`), so a document is laid
    out in one pass: into a form XObject placed where it goes (`draw_later`: a page of the
    contents), or at the end of its page's content (`draw_on_page_later`: the folio)."""

    def __init__(self, *args, **kwargs):
        kwargs["initialFontName"] = register_fonts()[0]
        kwargs["initialFontSize"] = 9
        super().__init__(*args, **kwargs)
        self._later: list[tuple[str, Callable[[Canvas], None]]] = []
        self._on_pages: list[tuple[int, Callable[[Canvas], None]]] = []

    def draw_later(self, draw: Callable[[Canvas], None]) -> None:
        """Place a form here, in the current graphics state, whose content `draw` makes at the end."""
        name = f"Later{len(self._later)}"
        self.doForm(name)
        self._later.append((name, draw))

    def draw_on_page_later(self, draw: Callable[[Canvas], None]) -> None:
        """Have `draw` draw on this page, untransformed (a page decoration: the folio), at the end:
        its operators go at the end of the page's own content, not into a form of its own (a form
        per page cost more than the folio itself)."""
        self._on_pages.append((self.getPageNumber(), draw))

    def draw_what_was_left(self) -> None:
        for name, draw in self._later:
            self.beginForm(name)
            draw(self)
            self.endForm()
        self._later = []
        pages = self._doc.Pages.pages
        for number, draw in self._on_pages:
            page_code, self._code = self._code, []
            self.init_graphics_state()  # nothing is assumed of the state the page's content left
            draw(self)
            # the page's content is balanced (q ... Q): its end is the page's own untransformed
            # space; the text state (spacing, scaling) is set, as q/Q keep it but do not reset it
            pages[number - 1].stream += "q 0 Tc 0 Tw 100 Tz 0 Ts 0 Tr\n" + "\n".join(self._code) + "\nQ\n"
            self._code = page_code
        self._on_pages = []


class OnePassDocTemplate(BaseDocTemplate):
    """A document template built in one pass on a `_Canvas`, its late forms drawn before saving."""

    def build(self, flowables) -> None:  # type: ignore[override]
        self._doSave = 0  # BaseDocTemplate saves at the end of build; what was left to draw comes first
        super().build(flowables, canvasmaker=_Canvas)  # the one canvas that can draw late
        self.canv.draw_what_was_left()
        self.canv.save()
