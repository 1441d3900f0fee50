"""The page template of a document: running head, folio "n / total", and the canvases of multiBuild."""

from __future__ import annotations

from typing import Any, Callable

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable
from reportlab.platypus.doctemplate import BaseDocTemplate

from ...fonts import draw_string, register_fonts


class _PageTotal(Flowable):
    """Remembers the page count of the previous pass, so pages can say "n / total".

    It is an indexing flowable: multiBuild runs another pass until the count is stable.
    """

    def __init__(self, doc: BaseDocTemplate) -> None:
        super().__init__()
        self.doc = doc
        self.last: int | None = None
        self.current: int | None = None

    def isIndexing(self) -> int:
        return 1

    def isSatisfied(self) -> bool:
        return self.last is not None and self.last == self.current

    def beforeBuild(self) -> None:
        self.last = self.current

    def afterBuild(self) -> None:
        self.current = self.doc.page

    def notify(self, kind: str, stuff: Any) -> None:
        pass

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        pass


def _page_decorator(header: str, footer_fmt: str, style: dict, fonts: tuple[str, str], total: _PageTotal,
                    lang: str) -> Callable:
    page = style["page"]
    colours = style["colours"]
    gothic, _ = fonts

    def decorate(canv: Canvas, doc: BaseDocTemplate) -> None:
        if layout_only(canv):
            return
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
        shown = total.last if total.last is not None else "?"
        draw_string(canv, w / 2, page["footer_offset"] * mm, footer_fmt.format(page=number, total=shown), lang, "centre")
        canv.restoreState()

    return decorate


class _Canvas(Canvas):
    """A canvas whose initial font is an embedded one (never the non-embedded Helvetica)."""

    layout_only = False

    def __init__(self, *args, **kwargs):
        kwargs["initialFontName"] = register_fonts()[0]
        kwargs["initialFontSize"] = 9
        super().__init__(*args, **kwargs)


class _LayoutCanvas(_Canvas):
    """The canvas of multiBuild's first pass, which only finds where headings fall and how many
    pages there are: that pass is never the one saved (the page total is unknown until it
    ends), so our flowables skip their drawing on it (see `_layout_only`)."""

    layout_only = True


def layout_only(canv) -> bool:
    return getattr(canv, "layout_only", False)


class SkipsLayoutPass:
    """Mixed into a flowable before Flowable: on the layout-only pass it is not placed at all (no
    graphics state saved, moved and restored around a draw that would do nothing, nor a draw)."""

    def drawOn(self, canvas, x, y, _sW=0):
        if not layout_only(canvas):
            super().drawOn(canvas, x, y, _sW)  # type: ignore[misc]


def _canvas_maker() -> Callable:
    """multiBuild's canvasmaker: a layout-only canvas for the first pass, real ones after."""
    made = []

    def make(*args, **kwargs):
        made.append(None)
        return (_LayoutCanvas if len(made) == 1 else _Canvas)(*args, **kwargs)

    return make

