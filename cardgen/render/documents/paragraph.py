"""The paragraph flowable of every document: text broken into lines by `cardgen.text`, and headings.

Japanese text set flush left is justified (両端揃え, JIS X 4051): every line but the last of a
paragraph is spaced out to the full measure between characters (never inside a run of Latin
letters or digits, see `cardgen.text.stretch_points`); the last line stays flush left. English
text is set ragged right, hyphenated at legal points. An inline icon (a character that
`cardgen.text.mark_icons` made of `:name:`) is one em wide, breaks like an ideograph and is drawn
by `cards.icons.draw_inline`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate, groupby
from typing import Any, Callable, Sequence

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Flowable

from ...fonts import face_of, face_runs
from ...memo import Memo
from ...text import ICON_EM, break_spans, has_icon, is_icon, runs, stretch_points, typographic_runs


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
    justify: bool = True         # Japanese flush-left text: lines spaced out to the full measure
    compounds: frozenset[str] = frozenset()  # terms a line must not split (a game's own words)
    # Characters drawn as shapes in their advance width, not from the font (the standard sheet's
    # suits ♠♥♦♣): draw_glyph(canvas, ch, x, baseline, size) draws one.
    glyphs: frozenset[str] = frozenset()
    draw_glyph: Callable[[Any, str, float, float, float], None] | None = None
    icons_of: Any = None  # the game whose icons/ inline icons (`:name:`, marked) are drawn from



def game_terms(game, lang: str) -> frozenset[str]:
    """The game's own words (card type and component names, field labels, labels of values) in
    `lang`: a line of its documents does not split them (`TStyle.compounds`)."""
    texts = [ct.name for ct in game.card_types] + [c.name for c in game.components]
    texts += [spec.label for spec in game.field_specs.values() if spec.label]
    texts += [text for per_kind in game.labels.values() for text in per_kind.values()]
    return terms_of((value.get(lang) if hasattr(value, "get") else str(value) for value in texts))


def defined_terms(markdown: str) -> frozenset[str]:
    """The terms a rules text defines in bold (`これが**山札**です`): short, one word, no punctuation."""
    return terms_of(m.group(1) for m in re.finditer(r"\*\*([^*\s、。，．,.()（）「」]{2,8})\*\*", markdown))


def terms_of(words) -> frozenset[str]:
    return frozenset(w for w in words if w and 2 <= len(w) <= 12 and not any(ch in w for ch in " \t\n"))


@lru_cache(maxsize=200_000)
def _char_width(ch: str, font: str, size: float) -> float:
    return pdfmetrics.stringWidth(ch, font, size)


class _Advances(dict):
    """Each character's advance in one font at one size, measured on first use: a paragraph's
    widths are looked up run by run (`map`), not one cached call per character."""

    def __init__(self, font: str, size: float) -> None:
        super().__init__()
        self.font, self.size = font, size

    def __missing__(self, ch: str) -> float:
        width = self[ch] = _char_width(ch, self.font, self.size)
        return width


@lru_cache(maxsize=1024)
def _advances(font: str, size: float) -> _Advances:
    return _Advances(font, size)


class _Faces(dict):
    """The font each character of a text in `base` and `lang` is set in, as `fonts.face_of`
    decides it, asked once per character (a rulebook sets a few hundred distinct ones)."""

    def __init__(self, base: str, lang: str, strong: bool) -> None:
        super().__init__()
        self.base, self.lang, self.strong = base, lang, strong

    def __missing__(self, ch: str) -> str:
        font = self[ch] = face_of(ch, self.base, self.lang, self.strong)
        return font


@lru_cache(maxsize=256)
def _faces(base: str, lang: str, strong: bool) -> _Faces:
    return _Faces(base, lang, strong)


def _widths(text: str, fonts: Sequence[str], size: float) -> list[float]:
    """The advance of every character of `text`, text[i] in fonts[i], at `size`."""
    out: list[float] = []
    at = 0
    for font, run in groupby(fonts):
        count = len(list(run))
        out += map(_advances(font, size).__getitem__, text[at:at + count])
        at += count
    return out


def _text_code(canv, pieces: Sequence[tuple[float, str, str, float]], x: float, baseline: float, size: float,
               char_space: float = 0.0) -> str:
    """The text operators (for inside BT ... ET) that set `pieces` ((x from `x`, text, font, room
    after each character), in order along one baseline) with `char_space` more after every glyph:
    each piece at its own origin, a font and a character spacing only where they change.
    ReportLab's textOut wrote a font, leading and spacing again for every piece, and a show per
    character of a justified line."""
    doc, escape = canv._doc, canv._escape
    ops = []
    current, spacing = None, None
    for px, text, font, room in pieces:
        face = pdfmetrics.getFont(font)
        if char_space + room != spacing:
            spacing = char_space + room
            ops.append(f"{fp_str(spacing)} Tc")
        ops.append(f"1 0 0 1 {fp_str(x + px, baseline)} Tm")
        for subset, chunk in face.splitString(text, doc):
            name = face.getSubsetInternalName(subset, doc)
            if name != current:
                ops.append(f"{name} {fp_str(size)} Tf")
                current = name
            ops.append(f"({escape(chunk)}) Tj")
    return " ".join(ops)


@lru_cache(maxsize=65536)
def _whole_units(ch: str, font: str) -> bool:
    """Whether `ch` is a whole number of thousandths of an em wide in `font` (as a PDF lists it)."""
    return _char_width(ch, font, 1000.0).is_integer()


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


#: Justification spaces characters out at most this many em apart (a quarter em in a measure of
#: 25 em or more, a tenth in a narrower one, such as a table cell; a line that needs more is left
#: ragged), and only in a measure of at least 10 em.
_MAX_STRETCH = 0.25
_MAX_STRETCH_NARROW = 0.1
_WIDE_EM = 25
_MIN_JUSTIFIED_EM = 10
_BROKEN = Memo()  # lines of a text block, by its text, the style its breaking reads, and width


@dataclass(frozen=True)
class _Line:
    # (x from the line's start, text, font, room added after each of its characters)
    pieces: tuple[tuple[float, str, str, float], ...]
    width: float                                # the width it is set to
    char_space: float = 0.0                     # negative to squeeze a line that measures too wide


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
        self.runs = typographic_runs(self.runs, lang, style.font)
        self.lang = lang
        self.style = style
        self.bullet = bullet
        self._fixed = lines
        self._lines: tuple[_Line, ...] = lines or ()
        self._width_for: float | None = None
        self._char_fonts: list[str] | None = None
        self._char_advances: list[float] | None = None

    # -- layout ------------------------------------------------------------------------
    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.runs)

    def _fonts(self) -> list[str]:
        """The font of each character: the style's, and in a Latin-script language the Latin face
        for each character it has (fonts by script: IPAex sets ’ „ “ full-width).  Worked out once
        per block: a table cell is measured twice for its column and broken at least once."""
        if self._char_fonts is None:
            self._char_fonts = self._new_fonts()
        return self._char_fonts

    def _advances(self) -> list[float]:
        """The advance of each character in its font (`_fonts`) at the style's size, once per block."""
        if self._char_advances is None:
            self._char_advances = _widths(self.plain, self._fonts(), self.style.size)
        return self._char_advances

    def _new_fonts(self) -> list[str]:
        out: list[str] = []
        glyphs = self.style.glyphs  # drawn as shapes in the style font's advance (`_draw_suit_glyph`)
        for t, strong in self.runs:
            base = self.style.strong if strong else self.style.font
            faces = _faces(base, self.lang, strong)
            if glyphs:
                out.extend(base if ch in glyphs else faces[ch] for ch in t)
            else:
                out.extend(map(faces.__getitem__, t))
        return out

    def _justified(self, width: float) -> bool:
        return (self.lang == "ja" and self.style.align == "left" and self.style.justify
                and width >= _MIN_JUSTIFIED_EM * self.style.size)

    def _break(self, width: float) -> tuple[_Line, ...]:
        plain = self.plain
        fonts = self._fonts()
        size = self.style.size
        glyphs = self.style.glyphs
        plain_text = not has_icon(plain) and not (glyphs and any(ch in glyphs for ch in plain))  # no piece of its own
        widths = self._advances()
        if has_icon(plain):
            widths = [ICON_EM * size if is_icon(ch) else w for ch, w in zip(plain, widths)]
        justify = self._justified(width)
        # A ragged measure of 10 em or more (a table cell) is filled like a justified one: a line
        # left several em short there reads as a hard break; only a narrow one prefers phrases.
        full = justify or width >= _MIN_JUSTIFIED_EM * size
        spans = break_spans(plain, widths, width, self.lang, size, _char_width("-", self.style.font, size),
                            self.style.compounds, justified=full)
        lines = []
        for span in spans:
            a, b = span.start, span.end
            natural = sum(widths[a:b]) + (_char_width("-", fonts[b - 1], size) if span.hyphen else 0.0)
            # Where the line is spaced out: a justified line that is not its paragraph's last.
            cuts = stretch_points(plain, a, b) if justify and not span.last and b - a > 1 else []
            extra = (width - natural) / len(cuts) if cuts else 0.0
            if extra > (_MAX_STRETCH if width >= _WIDE_EM * size else _MAX_STRETCH_NARROW) * size:
                # so few gaps for so much room: the line would fall apart, leave it ragged
                cuts, extra = [], 0.0
            squeeze = 0.0
            if not cuts and natural > width + 0.01 and b - a > 1:
                squeeze = (width - natural) / (b - a)
            # A piece is a run of characters in one font drawn as one show: set close (as the font
            # spaces them) or, on a justified line, spaced out by the same room after every
            # character (a run of ideographs), which the show's character spacing adds. A spaced
            # run goes on only after a character a whole number of font units wide (every
            # ideograph and kana), so a viewer that rounds glyph widths (PDFium) puts each
            # character where its own origin would.
            if plain_text and not cuts:
                # set close: a piece per run of one font, each character where the loop below puts it
                xs = list(accumulate((w + squeeze for w in widths[a:b]), initial=0.0))
                line_pieces = []
                at = a
                for font, run in groupby(fonts[a:b]):
                    count = len(list(run))
                    line_pieces.append((xs[at - a], plain[at:at + count], font, 0.0))
                    at += count
                if span.hyphen:
                    line_pieces.append((xs[-1], "-", fonts[b - 1], 0.0))
                lines.append(_Line(tuple(line_pieces), min(natural, width) if squeeze else natural, squeeze))
                continue
            pieces: list[list] = []  # [x, text, font, room after each character (None: one character yet)]
            x = 0.0
            cut_set = set(cuts)
            for i in range(a, b):
                ch = plain[i]
                gap = extra if i in cut_set else 0.0
                x += gap
                last = pieces[-1] if pieces else None
                if ch in glyphs or is_icon(ch):  # a piece of its own, font "" (see draw_line)
                    pieces.append([x, ch, "", 0.0])
                elif (last is not None and last[2] == fonts[i] and last[3] in (None, gap)
                      and (not gap or _whole_units(plain[i - 1], fonts[i - 1]))):
                    last[1] += ch
                    last[3] = gap
                else:
                    pieces.append([x, ch, fonts[i], None])
                x += widths[i] + squeeze
            if span.hyphen:
                pieces.append([x, "-", fonts[b - 1], 0.0])
            line_pieces = tuple((px, text, font, room or 0.0) for px, text, font, room in pieces)
            lines.append(_Line(line_pieces, width if cuts else min(natural, width) if squeeze else natural, squeeze))
        return tuple(lines)

    def _text_width(self, avail: float) -> float:
        return max(avail - self.style.left - self.style.right, 1.0)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        if self._fixed is None:
            width = self._text_width(availWidth)
            if self._width_for != width:
                st = self.style
                # A document breaks the same texts many times (a playtest sheet is laid out on
                # scratch pages at several row heights; table cells repeat): remember the lines.
                key = (tuple(self.runs), self.lang, st.font, st.strong, st.size, st.align, st.justify, st.compounds,
                       st.glyphs, width)
                self._lines = _BROKEN(key, lambda: self._break(width))
                self._width_for = width
        self.width = availWidth
        self.height = len(self._lines) * self.style.leading
        return availWidth, self.height

    def natural_width(self) -> float:
        """Width of the longest hard line, unbroken (for sizing table columns)."""
        advances = self._advances()
        best, pos = 0.0, 0
        for para in self.plain.split("\n"):
            best = max(best, sum(advances[pos:pos + len(para)]))
            pos += len(para) + 1
        return best + self.style.left + self.style.right

    def min_width(self) -> float:
        """Width of the longest unbreakable piece (a Latin word, or four Japanese characters)."""
        plain, advances = self.plain, self._advances()
        best = 0.0
        for m in re.finditer(r"[!-~]+", plain):
            best = max(best, sum(advances[m.start():m.end()]))
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
    @property
    def lines(self) -> tuple[_Line, ...]:
        """The lines of the last `wrap`."""
        return self._lines

    def draw(self) -> None:
        canv = self.canv
        st = self.style
        ascent = st.size * 0.88
        top = self.height - (st.leading - st.size) / 2 - ascent
        if all(piece[2] for line in self._lines for piece in line.pieces):
            # text only (no icon or drawn glyph between the lines' text): the whole block is one
            # text object, in one colour
            canv.setFillColorRGB(*st.color)
            code = []
            if self.bullet and self._lines:
                code.append(_text_code(canv, self._bullet_pieces(), st.left - st.bullet_width, top, st.size))
            for index, line in enumerate(self._lines):
                if line.pieces:
                    code.append(_text_code(canv, line.pieces, self._line_x(line, 0.0), top - index * st.leading, st.size,
                                           line.char_space))
            if code:
                canv._code.append(f"BT {' '.join(code)} ET")
        else:
            for index in range(len(self._lines)):
                self.draw_line(canv, index, 0.0, top - index * st.leading)
        self.draw_extra()

    def _bullet_pieces(self) -> tuple[tuple[float, str, str, float], ...]:
        """The list marker as `_text_code` pieces, each run in the face that sets it (`face_of`:
        a Latin language's "1." in its Latin face, as the text beside it)."""
        pieces, x = [], 0.0
        for piece, face in face_runs(self.bullet, self.style.font, self.lang):
            pieces.append((x, piece, face, 0.0))
            x += pdfmetrics.stringWidth(piece, face, self.style.size)
        return tuple(pieces)

    def _line_x(self, line: _Line, x0: float) -> float:
        """Where `line` starts, for the block's left edge at `x0`."""
        st = self.style
        x = x0 + st.left
        if st.align == "center":
            x += (self.width - st.left - st.right - line.width) / 2
        elif st.align == "right":
            x += self.width - st.left - st.right - line.width
        return x

    def draw_line(self, canv, index: int, x0: float, baseline: float) -> None:
        """Draw line `index` of the last `wrap` with the block's left edge at `x0` (for a page writer
        that places lines itself; `draw` calls it for a block with icons or drawn glyphs)."""
        st = self.style
        line = self._lines[index]
        canv.setFillColorRGB(*st.color)
        x = self._line_x(line, x0)
        code = []
        if index == 0 and self.bullet:
            code.append(_text_code(canv, self._bullet_pieces(), x0 + st.left - st.bullet_width, baseline, st.size))
        text_pieces = tuple(p for p in line.pieces if p[2])
        if text_pieces:
            code.append(_text_code(canv, text_pieces, x, baseline, st.size, line.char_space))
        if code:
            canv._code.append(f"BT {' '.join(code)} ET")
        for px, text, font, _ in line.pieces:
            if font:
                continue
            if is_icon(text):
                from ..cards.icons import draw_inline

                colour = "#%02x%02x%02x" % tuple(round(255 * c) for c in st.color)
                draw_inline(canv, runs(text)[0].value, x + px, baseline, st.size, colour, st.icons_of)
            elif st.draw_glyph is not None:
                st.draw_glyph(canv, text, x + px, baseline, st.size)

    def draw_extra(self) -> None:
        pass


class Heading(TextBlock):
    """A chapter (level 1), section (2) or subsection (3); levels 1–2 go into the contents."""

    def __init__(self, text: str, lang: str, style: TStyle, level: int, key: str, number: str,
                 rule_color: tuple[float, float, float] | None = None) -> None:
        shown = f"{number}　{text}" if number and lang == "ja" else (f"{number}  {text}" if number else text)
        super().__init__([(shown, True)], lang, replace(style, justify=False))
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
