"""The table of contents and the PDF outline, in one pass: the contents lists the story's headings
before they are laid out, and each of its pages is one late form (see `page_template`), its lines'
text, leaders and page numbers drawn when every heading has its page."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable, Iterator

from reportlab.platypus import Flowable, KeepTogether

from ...fonts import draw_string, string_width

from .page_template import OnePassDocTemplate
from .paragraph import Heading, TextBlock, TStyle

# The width kept for a page number: three digits (a rulebook is shorter than 1,000 pages).
_PAGE_DIGITS = "000"




class _TocMark(Flowable):
    """An invisible contents entry, for a part that draws its own heading (the mapping appendix)."""

    def __init__(self, text: str, level: int, key: str) -> None:
        super().__init__()
        self.toc_text, self.level, self.key = text, level, key

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        pass



class _TocLine:
    """One line of the contents: measured like a flowable as the contents is laid out, drawn by
    the contents' late form (`draw_finished`), never placed by platypus itself."""

    def __init__(self, block: TextBlock, key: str, level: int, style: TStyle, pages: dict[str, int]) -> None:
        self.block, self.key, self.level, self.style, self.pages = block, key, level, style, pages
        self.width = self.height = 0.0

    def wrap(self, aw, ah):
        self.width = aw
        room = string_width(_PAGE_DIGITS, self.style.font, self.style.size, self.block.lang) + 4
        _, h = self.block.wrap(aw - room - 14, ah)
        self.height = h
        return aw, h

    def draw_finished(self, canv) -> None:
        """The line's text, its page number and the dotted leader to it (the page now known)."""
        self.block.drawOn(canv, 0, 0)
        last = self.block._lines[-1] if self.block._lines else None
        x_end = self.style.left + (last.width if last else 0) + 4
        st, lang = self.style, self.block.lang
        page = str(self.pages[self.key])
        y = (st.leading - st.size) / 2 + st.size * 0.12
        x_num = self.width - string_width(page, st.font, st.size, lang)
        canv.setFillColorRGB(*st.color)
        canv.setFont(st.font, st.size)
        draw_string(canv, self.width, y, page, lang, "right")
        canv.setFillColorRGB(0.6, 0.6, 0.6)
        dot = "."
        gap = 2.2
        dw = string_width(dot, st.font, st.size, lang) + gap
        # Align the dots on a grid so the leaders of all lines line up; one string with
        # character spacing puts the dots where one drawString per dot did.
        x = (int((x_end + 2) / dw) + 1) * dw
        count = max(0, math.ceil((x_num - dw - x) / dw))
        if count:
            draw_string(canv, x, y, dot * count, lang, char_space=gap)


class Contents(Flowable):
    """The table of contents: a line per heading of levels 1 and 2, in the order of the story
    (`_DocTemplate` gives it the headings and, as they are placed, their pages)."""

    def __init__(self, lang: str, styles: dict[int, TStyle]) -> None:
        super().__init__()
        self.lang = lang
        self.styles = styles
        self.entries: list[tuple[int, str, str]] = []  # level, text, key
        self.pages: dict[str, int] = {}
        self._parts: list[_TocLine] = []

    def _lines(self) -> list[_TocLine]:
        out = []
        for level, text, key in self.entries:
            st = replace(self.styles[level], justify=False)  # a contents line is not a paragraph
            out.append(_TocLine(TextBlock([(text, level == 1)], self.lang, st), key, level, st, self.pages))
        return out

    def wrap(self, aw, ah):
        self._parts = self._lines()
        h = 0.0
        for part in self._parts:
            h += part.wrap(aw, ah)[1] + part.style.space_before
        self.width, self.height = aw, max(h, 1.0)
        return aw, self.height

    def split(self, aw, ah):
        parts = self._lines()
        used, first = 0.0, []
        while parts:
            h = parts[0].wrap(aw, ah)[1] + parts[0].style.space_before
            if used + h > ah:
                break
            used += h
            first.append(parts.pop(0))
        if not first:
            return []
        return [_Stack(first), _Stack(parts)] if parts else [_Stack(first)]

    def draw(self):
        _draw_lines(self.canv, self._parts, self.height)


class _Stack(Flowable):
    def __init__(self, parts: list[_TocLine]) -> None:
        super().__init__()
        self.parts = parts

    def wrap(self, aw, ah):
        self.width = aw
        self.height = sum(p.wrap(aw, ah)[1] + p.style.space_before for p in self.parts)
        return aw, self.height

    def draw(self):
        _draw_lines(self.canv, self.parts, self.height)


def _draw_lines(canv, parts: list[_TocLine], height: float) -> None:
    """Contents lines from the top: each a link to its heading now, and all their text, page
    numbers and leaders in one late form (one form per page of contents, not one per line)."""
    placed = []
    y = height
    for part in parts:
        y -= part.style.space_before + part.height
        canv.linkRect("", part.key, (0, y, part.width, y + part.height), relative=1, thickness=0)
        placed.append((part, y))

    def finish(c) -> None:
        for part, at in placed:
            c.saveState()
            c.translate(0, at)
            part.draw_finished(c)
            c.restoreState()

    canv.draw_later(finish)


def _walk(flowables: Iterable[Flowable]) -> Iterator[Flowable]:
    """The story's flowables in order, into what platypus unpacks when placing them (KeepTogether)."""
    for flowable in flowables:
        if isinstance(flowable, KeepTogether):
            yield from _walk(flowable._content)
        else:
            yield flowable


def _in_contents(flowable: Flowable) -> bool:
    return isinstance(flowable, (Heading, _TocMark)) and flowable.level <= 2


class _DocTemplate(OnePassDocTemplate):
    """A document with contents and an outline: a heading is bookmarked where it is placed."""

    def build(self, flowables) -> None:  # type: ignore[override]
        headings = [(f.level, f.toc_text, f.key) for f in _walk(flowables) if _in_contents(f)]
        self.heading_pages: dict[str, int] = {}
        for contents in (f for f in flowables if isinstance(f, Contents)):
            contents.entries, contents.pages = headings, self.heading_pages
        super().build(flowables)

    def afterFlowable(self, flowable: Flowable) -> None:
        if _in_contents(flowable):
            self.canv.bookmarkPage(flowable.key)
            self.canv.addOutlineEntry(flowable.toc_text, flowable.key, flowable.level - 1, closed=flowable.level > 1)
            self.heading_pages[flowable.key] = self.page
