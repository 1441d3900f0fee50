"""Line breaking and fitting for card text, Japanese and Latin.

Japanese text breaks between BudouX phrases (Google's phrase segmenter) so that words are not
split at arbitrary characters; a phrase too long for a line falls back to breaks between
characters. Every break obeys JIS X 4051 kinsoku: no line starts with a closing bracket,
punctuation, a small kana, an iteration or prolonged-sound mark, and no line ends with an
opening bracket. English text wraps at spaces; a word longer than a whole line is broken
between characters as a last resort. An explicit "\\n" always breaks.

Widths are measured with ReportLab's font metrics (the sum of the glyph advances, which is
what `pdfmetrics.stringWidth` computes), so what fits here fits on the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from reportlab.pdfbase import pdfmetrics

# --- kinsoku sets (JIS X 4051 character classes) ---------------------------------------------

#: cl-02 closing brackets (full and half width).
CLOSING_BRACKETS = "’”）〕］｝〉》」』】〙〗〟｠»)]}｣"
#: cl-03 hyphens; cl-10 prolonged sound mark.
HYPHENS = "‐゠–〜～ーｰ"
#: cl-04 dividing punctuation, including the combined marks.
DIVIDING = "？！‼⁇⁈⁉?!"
#: cl-05 middle dots and colons; cl-06 full stops; cl-07 commas.
MIDDLE_DOTS = "・：；:;･"
FULL_STOPS = "。．.｡"
COMMAS = "、，,､"
#: cl-08 inseparable characters: never split between two of them, never start a line.
INSEPARABLE = "…‥"
#: cl-09 iteration marks.
ITERATION = "ヽヾゝゞ々〻"
#: cl-11 small kana (hiragana, katakana, katakana phonetic extensions, half width).
SMALL_KANA = (
    "ぁぃぅぇぉっゃゅょゎゕゖ"
    "ァィゥェォッャュョヮヵヶ"
    "ㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"
    "ｧｨｩｪｫｯｬｭｮ"
)
#: cl-18 postfixed abbreviations: stay with the number before them.
POSTFIXED = "%‰°′″℃％￠"
#: Card-text custom: the "＞" of "行動＞" stays with its label.
CUSTOM_NO_START = "＞>"

#: Characters that must not start a line.
NO_LINE_START = frozenset(
    CLOSING_BRACKETS + HYPHENS + DIVIDING + MIDDLE_DOTS + FULL_STOPS + COMMAS + INSEPARABLE
    + ITERATION + SMALL_KANA + POSTFIXED + CUSTOM_NO_START
)
#: cl-01 opening brackets and prefixed abbreviations (cl-19): must not end a line.
NO_LINE_END = frozenset("‘“（〔［｛〈《「『【〘〖〝｟«([{｢＜<¥$£€＄￥＃#№")

_SPACES = " \u3000\t"
_AFTER_PUNCT = frozenset(CLOSING_BRACKETS + COMMAS + FULL_STOPS + DIVIDING + MIDDLE_DOTS)


@dataclass(frozen=True)
class Fitted:
    """Text broken into lines at the size where it fits (or at the floor size, overflowing)."""

    lines: tuple[str, ...]
    size: float
    leading: float
    overflow: bool


# --- measuring ---------------------------------------------------------------------------------

@lru_cache(maxsize=65536)
def _unit_width(ch: str, font_name: str) -> float:
    return pdfmetrics.stringWidth(ch, font_name, 1.0)


def _widths(text: str, font_name: str, size: float) -> list[float]:
    return [_unit_width(ch, font_name) * size for ch in text]


def text_width(text: str, font_name: str, size: float) -> float:
    """The advance width of `text` in points (same as `pdfmetrics.stringWidth`)."""
    return pdfmetrics.stringWidth(text, font_name, size)


# --- Japanese ----------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _parser():
    import budoux

    return budoux.load_default_japanese_parser()


@lru_cache(maxsize=8192)
def phrase_boundaries(text: str) -> frozenset[int]:
    """Indices i (0 < i < len) where BudouX puts a phrase boundary between text[i-1] and text[i]."""
    bounds: set[int] = set()
    pos = 0
    for phrase in _parser().parse(text):
        pos += len(phrase)
        if 0 < pos < len(text):
            bounds.add(pos)
    return frozenset(bounds)


def _is_latin_word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "'’-+.,")


def kinsoku_ok(text: str, i: int) -> bool:
    """May a line break fall between text[i-1] and text[i]?"""
    if i <= 0 or i >= len(text):
        return True
    before, after = text[i - 1], text[i]
    if after in NO_LINE_START:
        return False
    if before in NO_LINE_END:
        return False
    if before in INSEPARABLE and after in INSEPARABLE:
        return False
    return True


def _script(ch: str) -> str:
    o = ord(ch)
    if 0x3041 <= o <= 0x309F:
        return "hiragana"
    if 0x30A0 <= o <= 0x30FF or 0xFF66 <= o <= 0xFF9F or ch == "ー":
        return "katakana"
    if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or ch in "々〆ヶ":
        return "kanji"
    if ch.isalnum():
        return "alnum"
    return "other"


def _ja_break_classes(text: str) -> tuple[list[bool], list[bool], list[bool]]:
    """For every index i, whether a break before text[i] is a phrase break, a script change, allowed at all."""
    n = len(text)
    phrases = phrase_boundaries(text)
    preferred = [False] * (n + 1)
    secondary = [False] * (n + 1)
    allowed = [False] * (n + 1)
    for i in range(1, n):
        if not kinsoku_ok(text, i):
            continue
        before, after = text[i - 1], text[i]
        # Never split a Latin word or a number written in ASCII.
        if _is_latin_word_char(before) and _is_latin_word_char(after):
            continue
        allowed[i] = True
        if i in phrases or before in _SPACES:
            preferred[i] = True
        if _script(before) != _script(after) or before in _AFTER_PUNCT:
            secondary[i] = True
    preferred[n] = secondary[n] = allowed[n] = True
    return preferred, secondary, allowed


def _break_ja_paragraph(text: str, font_name: str, size: float, width: float) -> list[str]:
    n = len(text)
    if n == 0:
        return [""]
    widths = _widths(text, font_name, size)
    prefix = [0.0]
    for w in widths:
        prefix.append(prefix[-1] + w)
    preferred, secondary, allowed = _ja_break_classes(text)
    eps = 1e-6

    def span(a: int, b: int) -> float:
        # Trailing spaces hang past the margin; they are stripped from the line.
        while b > a and text[b - 1] in " \t":
            b -= 1
        return prefix[b] - prefix[a]

    lines: list[str] = []
    start = 0
    while start < n:
        # Skip ASCII spaces at the start of a line.
        while start < n and text[start] in " \t":
            start += 1
        if start >= n:
            break
        # The furthest end that fits.
        end = start + 1
        while end < n and span(start, end + 1) <= width + eps:
            end += 1
        if end >= n and span(start, n) <= width + eps:
            lines.append(text[start:n].rstrip(" \t"))
            break
        # Best phrase break within the line, unless the phrase after it cannot fit any line.
        brk = None
        for i in range(end, start, -1):
            if preferred[i]:
                nxt = next((j for j in range(i + 1, n + 1) if preferred[j]), n)
                if span(i, nxt) <= width + eps or i == end:
                    brk = i
                break
        if brk is None:
            # The phrase is longer than the line: break between characters, preferably where the
            # script changes (kanji / kana / Latin) if that still fills half the line.
            half = start + (end - start + 1) // 2
            brk = next((i for i in range(end, half - 1, -1) if secondary[i] and i > start), None)
            if brk is None:
                brk = next((i for i in range(end, start, -1) if allowed[i]), None)
        if brk is None:
            # Not even a kinsoku-legal character break fits (a very narrow box): force one.
            brk = end
        lines.append(text[start:brk].rstrip(" \t"))
        start = brk
    return lines or [""]


# --- Latin -------------------------------------------------------------------------------------

def _break_word(word: str, font_name: str, size: float, width: float) -> list[str]:
    pieces: list[str] = []
    current = ""
    for ch in word:
        if current and text_width(current + ch, font_name, size) > width + 1e-6:
            pieces.append(current)
            current = ch
        else:
            current += ch
    if current:
        pieces.append(current)
    return pieces


def _break_en_paragraph(text: str, font_name: str, size: float, width: float) -> list[str]:
    words = text.split()
    if not words:
        return [""]
    space = text_width(" ", font_name, size)
    lines: list[str] = []
    current: list[str] = []
    current_w = 0.0
    for word in words:
        w = text_width(word, font_name, size)
        if current and current_w + space + w <= width + 1e-6:
            current.append(word)
            current_w += space + w
            continue
        if current:
            lines.append(" ".join(current))
            current, current_w = [], 0.0
        if w <= width + 1e-6:
            current, current_w = [word], w
        else:
            pieces = _break_word(word, font_name, size, width)
            lines.extend(pieces[:-1])
            current, current_w = [pieces[-1]], text_width(pieces[-1], font_name, size)
    if current:
        lines.append(" ".join(current))
    return lines


# --- public API --------------------------------------------------------------------------------

def break_lines(text: str, font_name: str, size: float, width_pt: float, lang: str) -> list[str]:
    """Break `text` into lines no wider than `width_pt` at `size` points in `font_name`.

    `lang` is "ja" (phrase-aware breaks with kinsoku) or anything else (wrap at spaces).
    An explicit newline always breaks; an empty paragraph gives an empty line.
    """
    return list(_break_lines_cached(text, font_name, float(size), float(width_pt), lang))


@lru_cache(maxsize=16384)
def _break_lines_cached(text: str, font_name: str, size: float, width: float, lang: str) -> tuple[str, ...]:
    out: list[str] = []
    for paragraph in text.replace("\r\n", "\n").split("\n"):
        if lang == "ja":
            out.extend(_break_ja_paragraph(paragraph, font_name, size, width))
        else:
            out.extend(_break_en_paragraph(paragraph, font_name, size, width))
    return tuple(out)


def _fits(lines: tuple[str, ...], font_name: str, size: float, width: float, height: float, leading_ratio: float) -> bool:
    if len(lines) * size * leading_ratio > height + 1e-6:
        return False
    return all(text_width(line, font_name, size) <= width + 1e-6 for line in lines)


@lru_cache(maxsize=16384)
def fit_text(
    text: str,
    font_name: str,
    width_pt: float,
    height_pt: float,
    size: float,
    min_size: float,
    lang: str,
    leading_ratio: float = 1.25,
) -> Fitted:
    """Break `text` at the largest size (from `size` down to `min_size` in 0.25 pt steps) that fits the box.

    Fits means: the lines times the leading (size * leading_ratio) are no taller than the box,
    and no line is wider than it. If even `min_size` does not fit, the result is broken at
    `min_size` and has `overflow=True`.
    """
    min_size = min(min_size, size)
    steps = int(round((size - min_size) / 0.25))

    def attempt(k: int) -> tuple[tuple[str, ...], float, bool]:
        s = size - 0.25 * k if k < steps else min_size
        lines = _break_lines_cached(text, font_name, s, float(width_pt), lang)
        return lines, s, _fits(lines, font_name, s, width_pt, height_pt, leading_ratio)

    lines, s, ok = attempt(0)
    if ok:
        return Fitted(lines, s, s * leading_ratio, False)
    lines_min, s_min, ok_min = attempt(steps)
    if not ok_min:
        return Fitted(lines_min, s_min, s_min * leading_ratio, True)
    # Binary search for the smallest step k (largest size) that fits; k = steps fits, k = 0 does not.
    lo, hi = 0, steps
    best = (lines_min, s_min)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lines, s, ok = attempt(mid)
        if ok:
            hi, best = mid, (lines, s)
        else:
            lo = mid
    return Fitted(best[0], best[1], best[1] * leading_ratio, False)
