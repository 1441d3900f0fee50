"""The paragraph flowable of every document: text broken into lines by `cardgen.text`, and headings."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Sequence

from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Flowable

from ...text import break_lines
from .page_template import layout_only as _layout_only


@dataclass(frozen=True)
class TStyle:
    """How one block of text is set."""

    font: str
    strong: str
    size: float
    leading: float
    color: tuple[float, float, float]
    left: float = 0.0
    right: float = 0.0
    space_before: float = 0.0
    space_after: float = 0.0
    align: str = "left"          # left, center, right
    bullet_width: float = 0.0    # room for the bullet, left of `left`
    all_strong: bool = False



@lru_cache(maxsize=200_000)
def _char_width(ch: str, font: str, size: float) -> float:
    return pdfmetrics.stringWidth(ch, font, size)


def _split_runs(text: str) -> list[tuple[str, bool]]:
    """`a **b** c` -> [("a ", False), ("b", True), (" c", False)]."""
    runs: list[tuple[str, bool]] = []
    strong = False
    for i, part in enumerate(text.split("**")):
        if part:
            runs.append((part, strong))
        if i < text.count("**"):
            strong = not strong
    return runs


@dataclass(frozen=True)
class _Line:
    segments: tuple[tuple[str, str], ...]  # (text, font)
    width: float                           # natural width
    char_space: float = 0.0                # negative to squeeze a line that measures too wide


class TextBlock(Flowable):
    """A paragraph broken with `cardgen.text.break_lines` (Japanese) or at spaces (English).

    Splits between lines across pages (at least two lines on each side when it can).
    """

    def __init__(self, text: str | Sequence[tuple[str, bool]], lang: str, style: TStyle,
                 bullet: str | None = None, lines: tuple[_Line, ...] | None = None) -> None:
        super().__init__()
        self.runs = _split_runs(text) if isinstance(text, str) else list(text)
        if style.all_strong:
            self.runs = [(t, True) for t, _ in self.runs]
        self.lang = lang
        self.style = style
        self.bullet = bullet
        self._fixed = lines
        self._lines: tuple[_Line, ...] = lines or ()
        self._width_for: float | None = None

    # -- layout ------------------------------------------------------------------------
    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.runs)

    def _fonts(self) -> list[str]:
        out: list[str] = []
        for t, strong in self.runs:
            out.extend([self.style.strong if strong else self.style.font] * len(t))
        return out

    def _measure(self, text: str, fonts: Sequence[str]) -> float:
        size = self.style.size
        return sum(_char_width(ch, f, size) for ch, f in zip(text, fonts))

    def _break(self, width: float) -> tuple[_Line, ...]:
        plain = self.plain
        fonts = self._fonts()
        spans: list[tuple[int, int]] = []
        offset = 0
        for para in plain.split("\n"):
            if self.lang == "ja":
                cursor = 0
                for line in break_lines(para, self.style.font, self.style.size, width, "ja"):
                    if not line:
                        spans.append((offset + cursor, offset + cursor))
                        continue
                    at = para.find(line, cursor)
                    if at < 0:  # cannot happen: lines are substrings; keep going safely
                        at = cursor
                    spans.append((offset + at, offset + at + len(line)))
                    cursor = at + len(line)
            else:
                spans.extend(self._break_latin(para, fonts[offset:offset + len(para)], width, offset))
            offset += len(para) + 1
        lines = []
        for a, b in spans:
            segs: list[tuple[str, str]] = []
            for i in range(a, b):
                if segs and segs[-1][1] == fonts[i]:
                    segs[-1] = (segs[-1][0] + plain[i], fonts[i])
                else:
                    segs.append((plain[i], fonts[i]))
            natural = self._measure(plain[a:b], fonts[a:b])
            squeeze = 0.0
            if natural > width + 0.01 and b - a > 1:
                squeeze = (width - natural) / (b - a)
                natural = width
            lines.append(_Line(tuple(segs), natural, squeeze))
        return tuple(lines)

    def _break_latin(self, text: str, fonts: Sequence[str], width: float, offset: int) -> list[tuple[int, int]]:
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        if not words:
            return [(offset, offset)]
        space = _char_width(" ", self.style.font, self.style.size)
        spans: list[tuple[int, int]] = []
        start = end = None
        used = 0.0
        for a, b in words:
            w = self._measure(text[a:b], fonts[a:b])
            if start is not None and used + space + w <= width + 0.01:
                end, used = b, used + space + w
                continue
            if start is not None:
                spans.append((offset + start, offset + end))
                start = None
            if w <= width + 0.01:
                start, end, used = a, b, w
                continue
            # A word longer than the line: break it between characters.
            piece_start, acc = a, 0.0
            for i in range(a, b):
                cw = _char_width(text[i], fonts[i], self.style.size)
                if acc + cw > width and i > piece_start:
                    spans.append((offset + piece_start, offset + i))
                    piece_start, acc = i, 0.0
                acc += cw
            start, end, used = piece_start, b, acc
        if start is not None:
            spans.append((offset + start, offset + end))
        return spans

    def _text_width(self, avail: float) -> float:
        return max(avail - self.style.left - self.style.right, 1.0)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        if self._fixed is None:
            width = self._text_width(availWidth)
            if self._width_for != width:
                self._lines = self._break(width)
                self._width_for = width
        self.width = availWidth
        self.height = len(self._lines) * self.style.leading
        return availWidth, self.height

    def natural_width(self) -> float:
        """Width of the longest hard line, unbroken (for sizing table columns)."""
        plain, fonts = self.plain, self._fonts()
        best, pos = 0.0, 0
        for para in plain.split("\n"):
            best = max(best, self._measure(para, fonts[pos:pos + len(para)]))
            pos += len(para) + 1
        return best + self.style.left + self.style.right

    def min_width(self) -> float:
        """Width of the longest unbreakable piece (a Latin word, or four Japanese characters)."""
        plain, fonts = self.plain, self._fonts()
        best = 0.0
        for m in re.finditer(r"[!-~]+", plain):
            best = max(best, self._measure(m.group(0), fonts[m.start():m.end()]))
        if self.lang == "ja" and any(ord(c) > 0x2E80 for c in plain):
            best = max(best, 4 * self.style.size)
        return best + self.style.left + self.style.right

    def getSpaceBefore(self) -> float:
        return self.style.space_before

    def getSpaceAfter(self) -> float:
        return self.style.space_after

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        self.wrap(availWidth, availHeight)
        n = len(self._lines)
        fit = int((availHeight + 1e-6) // self.style.leading)
        if fit >= n:
            return [self]
        if n - fit < 2:
            fit = n - 2
        if fit < 2:
            return []
        first = TextBlock(self.runs, self.lang, replace(self.style, space_after=0), self.bullet, self._lines[:fit])
        rest = TextBlock(self.runs, self.lang, replace(self.style, space_before=0), None, self._lines[fit:])
        return [first, rest]

    # -- drawing -----------------------------------------------------------------------
    def draw(self) -> None:
        canv = self.canv
        if _layout_only(canv):
            return
        st = self.style
        canv.setFillColorRGB(*st.color)
        inner = self.width - st.left - st.right
        ascent = st.size * 0.88
        y = self.height - (st.leading - st.size) / 2 - ascent
        for index, line in enumerate(self._lines):
            x = st.left
            if st.align == "center":
                x += (inner - line.width) / 2
            elif st.align == "right":
                x += inner - line.width
            if index == 0 and self.bullet:
                canv.setFont(st.font, st.size)
                canv.drawString(st.left - st.bullet_width, y, self.bullet)
            if line.segments:
                t = canv.beginText(x, y)
                t.setCharSpace(line.char_space)
                for text, font in line.segments:
                    t.setFont(font, st.size)
                    t.textOut(text)
                canv.drawText(t)
            y -= st.leading
        self.draw_extra()

    def draw_extra(self) -> None:
        pass


class Heading(TextBlock):
    """A chapter (level 1), section (2) or subsection (3); levels 1–2 go into the contents."""

    def __init__(self, text: str, lang: str, style: TStyle, level: int, key: str, number: str,
                 rule_color: tuple[float, float, float] | None = None) -> None:
        shown = f"{number}　{text}" if number and lang == "ja" else (f"{number}  {text}" if number else text)
        super().__init__([(shown, True)], lang, style)
        self.level = level
        self.key = key
        self.toc_text = shown
        self.rule_color = rule_color

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        return []

    def draw_extra(self) -> None:
        if self.rule_color:
            self.canv.setStrokeColorRGB(*self.rule_color)
            self.canv.setLineWidth(0.8)
            self.canv.line(0, -2.5, self.width, -2.5)
