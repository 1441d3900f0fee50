"""The table of contents and the PDF outline: headings notify the document, a Contents flowable
lists them with page numbers from the previous pass (multiBuild)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from reportlab.platypus import Flowable
from reportlab.platypus.doctemplate import BaseDocTemplate

from ...fonts import draw_string, string_width

from .page_template import layout_only as _layout_only
from .paragraph import Heading, TextBlock, TStyle




class _TocMark(Flowable):
    """An invisible contents entry, for a part that draws its own heading (the mapping appendix)."""

    def __init__(self, text: str, level: int, key: str) -> None:
        super().__init__()
        self.toc_text, self.level, self.key = text, level, key

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        pass



class _TocLine(Flowable):
    def __init__(self, block: TextBlock, page: int, key: str, level: int, style: TStyle) -> None:
        super().__init__()
        self.block, self.page, self.key, self.level, self.style = block, page, key, level, style

    def wrap(self, aw, ah):
        self.width = aw
        self.page_w = string_width(str(self.page), self.style.font, self.style.size, self.block.lang) + 4
        _, h = self.block.wrap(aw - self.page_w - 14, ah)
        self.height = h
        return aw, h

    def draw(self):
        canv = self.canv
        if _layout_only(canv):
            return
        self.block.drawOn(canv, 0, 0)
        st = self.style
        last = self.block._lines[-1] if self.block._lines else None
        y = (st.leading - st.size) / 2 + st.size * 0.12
        x_end = st.left + (last.width if last else 0) + 4
        x_num = self.width - self.page_w + 4
        canv.setFillColorRGB(*st.color)
        canv.setFont(st.font, st.size)
        draw_string(canv, self.width, y, str(self.page), self.block.lang, "right")
        canv.setFillColorRGB(0.6, 0.6, 0.6)
        dot = "."
        gap = 2.2
        dw = string_width(dot, st.font, st.size, self.block.lang) + gap
        x = x_end + 2
        # Align the dots on a grid so the leaders of all lines line up; one string with
        # character spacing puts the dots where one drawString per dot did.
        x = (int(x / dw) + 1) * dw
        count = max(0, math.ceil((x_num - dw - x) / dw))
        if count:
            draw_string(canv, x, y, dot * count, self.block.lang, char_space=gap)
        canv.linkRect("", self.key, (0, 0, self.width, self.height), relative=1, thickness=0)


class Contents(Flowable):
    """The table of contents: filled from the headings of the previous pass (multiBuild)."""

    def __init__(self, lang: str, styles: dict[int, TStyle]) -> None:
        super().__init__()
        self.lang = lang
        self.styles = styles
        self._entries: list[tuple[int, str, int, str]] = []
        self._last: list[tuple[int, str, int, str]] = []
        self._parts: list[_TocLine] = []

    def isIndexing(self) -> int:
        return 1

    def isSatisfied(self) -> bool:
        return self._entries == self._last

    def notify(self, kind: str, stuff: Any) -> None:
        if kind == "TOCEntry":
            self._entries.append(stuff)

    def beforeBuild(self) -> None:
        self._last = list(self._entries)
        self._entries = []

    def afterBuild(self) -> None:
        pass

    def _lines(self) -> list[_TocLine]:
        out = []
        for level, text, page, key in self._last:
            st = replace(self.styles[level], justify=False)  # a contents line is not a paragraph
            out.append(_TocLine(TextBlock([(text, level == 1)], self.lang, st), page, key, level, st))
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
        y = self.height
        for part in self._parts:
            y -= part.style.space_before + part.height
            part.drawOn(self.canv, 0, y)


class _Stack(Flowable):
    def __init__(self, parts: list[_TocLine]) -> None:
        super().__init__()
        self.parts = parts

    def wrap(self, aw, ah):
        self.width = aw
        self.height = sum(p.wrap(aw, ah)[1] + p.style.space_before for p in self.parts)
        return aw, self.height

    def draw(self):
        y = self.height
        for part in self.parts:
            y -= part.style.space_before + part.height
            part.drawOn(self.canv, 0, y)



class _DocTemplate(BaseDocTemplate):
    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, (Heading, _TocMark)) and flowable.level <= 2:
            self.canv.bookmarkPage(flowable.key)
            self.canv.addOutlineEntry(flowable.toc_text, flowable.key, flowable.level - 1, closed=flowable.level > 1)
            self.notify("TOCEntry", (flowable.level, flowable.toc_text, self.page, flowable.key))

