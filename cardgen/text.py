"""Line breaking and fitting for card and document text, Japanese and Latin: the one line breaker.

Japanese text breaks at any boundary JIS X 4051 kinsoku allows (no line starts with a closing
bracket, punctuation, a small kana, an iteration or prolonged-sound mark; no line ends with an
opening bracket; never inside a run of Latin letters or digits, nor inside a group of numbers
such as 「（4・5）」), choosing BudouX phrase boundaries
(Google's phrase segmenter) over others and keeping compounds whole unless the line would be left
far short (see "the line breaker" below). English text wraps at spaces and hyphenates a word at a
point pyphen allows. An explicit "\\n" always breaks. `stretch_points` says where a Japanese line
may be spaced out to justify it.

Widths are measured with ReportLab's font metrics (the sum of the glyph advances, which is
what `pdfmetrics.stringWidth` computes), so what fits here fits on the page.

Inline icons (`:coin:` or `{icon:coin}` in a text) are turned by `mark_icons` into one
private-use character each before breaking: an icon is one ideograph to the Japanese breaker
(kinsoku applies to it as to a kanji), a word (or part of one) to the English breaker, and one
em wide to every width measured here. `runs` splits a broken line back into text and icon runs
for drawing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate, repeat
from typing import Callable, NamedTuple

from reportlab.pdfbase import pdfmetrics

from .fonts import face_of, string_width

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
    if is_icon(ch):
        return ICON_EM
    return pdfmetrics.stringWidth(ch, font_name, 1.0)


def _widths(text: str, font_name: str, size: float, lang: str) -> list[float]:
    """Each character's advance, in the face that sets it in `lang` (`fonts.face_of`)."""
    return [_unit_width(ch, face_of(ch, font_name, lang)) * size for ch in text]


def text_width(text: str, font_name: str, size: float, lang: str) -> float:
    """The advance width of `text` in points (same as `pdfmetrics.stringWidth` for a text set in
    `font_name` alone; in a Latin language each character in its face; an icon is ICON_EM wide)."""
    if _has_icon(text):
        return _icon_text_width(text, font_name, size, lang)
    return string_width(text, font_name, size, lang)


# --- Japanese ----------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _budoux_tables() -> tuple[float, tuple[dict[str, int], ...]]:
    """BudouX's default Japanese model: its parser's base score and its 13 feature tables, in the
    order UW1..UW6, BW1..BW3, TW1..TW4."""
    import budoux

    parser = budoux.load_default_japanese_parser()
    names = ("UW1", "UW2", "UW3", "UW4", "UW5", "UW6", "BW1", "BW2", "BW3", "TW1", "TW2", "TW3", "TW4")
    return parser._base_score, tuple(parser.model.get(name, {}) for name in names)


_PAD = "\0\0\0"  # no feature of the model holds NUL: a feature reaching past the text scores 0


@lru_cache(maxsize=8192)
def phrase_boundaries(text: str) -> frozenset[int]:
    """Indices i (0 < i < len) where BudouX puts a phrase boundary between text[i-1] and text[i].

    BudouX's own `Parser.parse` with its per-character bounds checks replaced by padding and
    each feature table looked up once per position (a third of its time, the same scores:
    `tests/test_text.py` compares the two)."""
    n = len(text)
    if n < 2:
        return frozenset()
    base, (uw1, uw2, uw3, uw4, uw5, uw6, bw1, bw2, bw3, tw1, tw2, tw3, tw4) = _budoux_tables()
    p = _PAD + text + _PAD  # text[i] is p[i + 3]
    zeros = repeat(0)
    u1, u2, u3, u4, u5, u6 = (list(map(table.get, p, zeros)) for table in (uw1, uw2, uw3, uw4, uw5, uw6))
    pairs = [p[k:k + 2] for k in range(len(p) - 1)]
    triples = [p[k:k + 3] for k in range(len(p) - 2)]
    b1, b2, b3 = (list(map(table.get, pairs, zeros)) for table in (bw1, bw2, bw3))
    t1, t2, t3, t4 = (list(map(table.get, triples, zeros)) for table in (tw1, tw2, tw3, tw4))
    # the features of a boundary before text[i], i = 1 .. n-1, each list cut to start at i = 1
    # (text[i] is p[i + 3]); BudouX adds them to its base score (integers: the order is exact)
    features = zip(u1[1:n], u2[2:n + 1], u3[3:n + 2], u4[4:n + 3], u5[5:n + 4], u6[6:n + 5],
                   b1[2:n + 1], b2[3:n + 2], b3[4:n + 3], t1[1:n], t2[2:n + 1], t3[3:n + 2], t4[4:n + 3])
    return frozenset(i for i, total in enumerate(map(sum, features), 1) if base + total > 0)


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


#: What joins two numbers into one group a line must not split: 「（4・5）」「3～5」「1/2」「10：30」.
_NUMBER_JOINERS = frozenset("・･：:～〜/／,，.．×＋+-−‐–")


def in_number_group(text: str, i: int) -> bool:
    """Whether a break between text[i-1] and text[i] would split a group of numbers: between two
    digits (full-width too), or either side of a joiner that has a digit on both sides (「（4・|5）」)."""
    if i <= 0 or i >= len(text):
        return False
    before, after = text[i - 1], text[i]
    if before.isdigit() and after.isdigit():
        return True
    if before in _NUMBER_JOINERS and after.isdigit() and i >= 2 and text[i - 2].isdigit():
        return True
    return after in _NUMBER_JOINERS and before.isdigit() and i + 1 < len(text) and text[i + 1].isdigit()


@lru_cache(maxsize=8192)
def _script(ch: str) -> str:
    if is_icon(ch):
        return "kanji"  # an inline icon breaks like an ideograph
    o = ord(ch)
    if 0x3041 <= o <= 0x309F:
        return "hiragana"
    if ch in "・･":  # in the katakana block, but punctuation (cl-05): between words of a list it separates
        return "other"
    if 0x30A0 <= o <= 0x30FF or 0xFF66 <= o <= 0xFF9F or ch == "ー":
        return "katakana"
    if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or ch in "々〆ヶ":
        return "kanji"
    if ch.isalnum():
        return "alnum"
    return "other"


# --- the line breaker: Japanese and Latin ------------------------------------------------------
# Every document and card breaks lines here. A paragraph is broken into spans of its own text
# (so a caller keeps its per-character fonts): `break_spans` takes the width of every character.
#
# Japanese (JIS X 4051 with words kept whole): a line may end at any kinsoku-legal character
# boundary, never inside a run of Latin letters or digits. Among the boundaries that fit, the
# breaker takes the cheapest, where a boundary costs its kind plus how short it leaves the line:
#   BudouX phrase boundary, after a space or punctuation   0
#   a change of script (kana / kanji / Latin)               1.5
#   any other boundary                                      3
#   between a kanji and its okurigana (行動済|み)              5
#   inside a compound                                      +6
#   inside a word the caller lists                         +10
# plus one per em the line falls short (justification spreads that shortfall between the
# characters, so a boundary one em back is fine, four em back is not; a ragged line, as on a
# card, pays a quarter of that, so BudouX phrases win there unless they leave six em). A compound
# is a run of kanji (容疑者), a run of katakana (プレイヤー), kanji joined by a single okurigana kana
# (捨て札置き場: 捨て札 and 置き場 chain), or a word the caller lists (a game's own terms), with a
# noun written against it (お花摘み|カード). So BudouX decides between near-equal boundaries, and a
# compound is split only when the line would otherwise fall six em short (ten for a listed word):
# a gap that wide would show however it is spread.
#
# Latin: lines break at spaces and after a hyphen already in a word; a word that does not fit is
# hyphenated at a point pyphen (the LibreOffice hyphenation patterns) allows, when the line would
# otherwise be left more than a seventh empty or the word is longer than a whole line; only a word
# with no legal point that fits is broken between characters.

_PHRASE_COST = 0.0
_SCRIPT_COST = 1.5
_OTHER_COST = 3.0
_OKURIGANA_COST = 5.0
_COMPOUND_COST = 6.0
_KNOWN_WORD_COST = 10.0
_SHORTFALL_COST = 1.0   # per em, in a justified line
#: A document paragraph's last line of fewer letters than this costs as much as a line 5 em short.
_SHORT_LAST_LINE = 4
_SHORT_LAST_LINE_COST = 5.0
_RAGGED_SHORTFALL_COST = 0.25  # per em, in a ragged line (a card's text): phrases matter more
#: Single kana that join two kanji as a particle (a word boundary), not as okurigana (捨て札).
_PARTICLES = frozenset("のをにがはでともへやか")
#: A Latin line is hyphenated when it would otherwise be left emptier than this fraction, the
#: word has this many letters and is not the paragraph's last ("acci-/dent..." alone on a line),
#: and the measure is this many em wide (a narrow table column is set ragged, not hyphenated:
#: "Next or-der" in a header helps nobody).
_HYPHENATE_WHEN_EMPTIER = 1 / 7
_HYPHENATE_MIN_LETTERS = 7
_HYPHENATE_MIN_MEASURE = 18
_EPS = 1e-6


@dataclass(frozen=True)
class LineSpan:
    """One line of a paragraph: `text[start:end]` (trailing spaces left out), a hyphen after it
    when `hyphen` (an English word broken at a legal point), `last` for the last line of a
    paragraph (before an explicit "\\n" or at the end), which is set flush left."""

    start: int
    end: int
    hyphen: bool = False
    last: bool = False


def _kind(ch: str) -> str:
    return "katakana" if ch == "ー" else _script(ch)


_COMPOUND_KINDS = frozenset(("kanji", "katakana"))
_UNWEIGHED = object()


class _JaCosts:
    """costs[i]: the cost of a line break before text[i] (None where kinsoku or a Latin word
    forbids one), each worked out when the breaker first weighs it: a line weighs the boundaries
    back from its end only until the room it would leave costs more than the best one found, a
    few em (the cost of every boundary of a long paragraph was a fifth of breaking it)."""

    __slots__ = ("text", "phrases", "starts", "kinds", "known", "costs")

    def __init__(self, text: str, compounds: frozenset[str]) -> None:
        n = len(text)
        self.text = text
        self.phrases = phrase_boundaries(text)
        self.starts = sorted(self.phrases)  # to find the phrase a boundary closes
        kinds = list(map(_kind, text))  # each character's script, worked out once
        if "・" in text or "･" in text:
            for i in range(1, n - 1):  # アクション・ポイント: a dot inside a katakana word joins it (a list's dot does not)
                if text[i] in "・･" and kinds[i - 1] == kinds[i + 1] == "katakana":
                    kinds[i] = "katakana"
        self.kinds = kinds
        known = [False] * (n + 1)
        for word in compounds:
            at = text.find(word)
            while at >= 0:
                end = at + len(word)
                for i in range(at + 1, end):
                    known[i] = True
                # a known word compounds with a noun written against it: お花摘み|カード, 山札|置き場
                if end < n and kinds[end] in _COMPOUND_KINDS:
                    known[end] = True
                if at > 0 and kinds[at - 1] in _COMPOUND_KINDS:
                    known[at] = True
                at = text.find(word, at + 1)
        self.known = known
        self.costs: list = [_UNWEIGHED] * (n + 1)
        self.costs[n] = 0.0

    def __getitem__(self, i: int) -> float | None:
        cost = self.costs[i]
        if cost is _UNWEIGHED:
            cost = self.costs[i] = self._weigh(i)
        return cost

    def _okurigana(self, j: int) -> bool:
        """text[j] is one kana joining two kanji (捨て札, 置き場; not 山札の下: の is a particle)."""
        kinds = self.kinds
        return (0 < j < len(kinds) - 1 and kinds[j] == "hiragana" and self.text[j] not in _PARTICLES
                and kinds[j - 1] == "kanji" and kinds[j + 1] == "kanji")

    def _weigh(self, i: int) -> float | None:
        text, kinds = self.text, self.kinds
        before, after = text[i - 1], text[i]
        # (a group of numbers has a digit on one side of each of its boundaries)
        if not kinsoku_ok(text, i) or ((before.isdigit() or after.isdigit()) and in_number_group(text, i)):
            return None
        if _is_latin_word_char(before) and _is_latin_word_char(after):
            return None
        kind_before, kind = kinds[i - 1], kinds[i]
        in_phrases = i in self.phrases
        if in_phrases and kind == "kanji" and self._doubled(i):
            cost = _COMPOUND_COST  # 気が|気でない, 日に|日に: a doubled phrase is one expression
        elif in_phrases or before in _SPACES or before in _AFTER_PUNCT or after in NO_LINE_END:
            cost = _PHRASE_COST
        elif kind_before == "kanji" and kind == "hiragana" and after not in _PARTICLES:
            cost = _OKURIGANA_COST
        elif kind_before == "kanji" and after.isdigit():
            cost = _OTHER_COST + _SCRIPT_COST  # 名声|6: a number read with the noun before it
        elif kind_before != kind:
            cost = _SCRIPT_COST
        else:
            cost = _OTHER_COST
        if self.known[i]:
            return cost + _KNOWN_WORD_COST
        # inside a run of kanji or of katakana, or either side of an okurigana kana
        inside = (kind_before == kind and kind in _COMPOUND_KINDS) or self._okurigana(i) or self._okurigana(i - 1)
        return cost + (_COMPOUND_COST if inside else 0.0)

    def _doubled(self, i: int) -> bool:
        """The short phrase ending at boundary i starts with the kanji text[i] starts the next with."""
        k = bisect_left(self.starts, i)
        start = self.starts[k - 1] if k else 0
        return i - start <= 3 and self.text[start] == self.text[i]


@lru_cache(maxsize=4096)
def _ja_costs(text: str, compounds: frozenset[str]) -> _JaCosts:
    return _JaCosts(text, compounds)


def _letters_before(text: str) -> list[int]:
    """counts[i]: how many of text[:i] are letters, not punctuation, brackets or spaces (so
    text[a:b] has counts[b] - counts[a], without counting it again for every break tried)."""
    counts = [0]
    for ch in text:
        counts.append(counts[-1] + (ch not in NO_LINE_START and ch not in NO_LINE_END and ch not in _SPACES))
    return counts


def _ja_spans(text: str, base: int, widths: list[float], width: float, em: float,
              compounds: frozenset[str], shortfall_cost: float) -> list[LineSpan]:
    n = len(text)
    # a filled measure (a document's) keeps a paragraph's last line from being a mere character
    # or two; a card's ragged box, which must not grow a line, is left as its phrases fall
    last_line_cost = _SHORT_LAST_LINE_COST if shortfall_cost >= _SHORTFALL_COST else 0.0
    prefix = list(accumulate(widths, initial=0.0))
    # worked out (BudouX's phrases, the letters) only for a text that needs a break
    costs: _JaCosts | None = None
    letters: list[int] = []

    def span(a: int, b: int) -> float:
        while b > a and text[b - 1] in " \t":  # trailing spaces hang past the margin
            b -= 1
        return prefix[b] - prefix[a]

    def trimmed(a: int, b: int) -> int:
        while b > a and text[b - 1] in " \t":
            b -= 1
        return b

    out: list[LineSpan] = []
    start = 0
    while True:
        while start < n and text[start] in " \t":
            start += 1
        if start >= n:
            break
        if span(start, n) <= width + _EPS:
            out.append(LineSpan(base + start, base + trimmed(start, n)))
            break
        end = start + 1
        while end < n and span(start, end + 1) <= width + _EPS:
            end += 1
        if costs is None:
            costs = _ja_costs(text, compounds)
        letters = letters or _letters_before(text)
        best, best_score = None, math.inf
        for i in range(end, start, -1):
            short = shortfall_cost * (width - span(start, i)) / em
            if short >= best_score - _EPS:
                break  # no boundary further back can win: each leaves at least this much room
            cost = costs[i]
            if cost is None:
                continue
            score = cost + short
            if last_line_cost and span(i, n) <= width + _EPS and letters[n] - letters[i] < _SHORT_LAST_LINE:
                score += last_line_cost  # the rest would be a last line of a character or two: 「獲得。」
            if score < best_score - _EPS:
                best, best_score = i, score
        brk = best if best is not None else end  # not even a kinsoku-legal break fits: force one
        out.append(LineSpan(base + start, base + trimmed(start, brk)))
        start = brk
    return out


@lru_cache(maxsize=16)
def _hyphenator(lang: str = "en"):
    """pyphen's patterns for `lang` (fr, de, ...: the LibreOffice dictionaries pyphen ships);
    English, and a language pyphen has none for, use en_US."""
    import pyphen

    found = None if lang == "en" else pyphen.language_fallback(lang.replace("-", "_"))
    return pyphen.Pyphen(lang=found or "en_US", left=2, right=3)


@lru_cache(maxsize=16384)
def hyphen_points(word: str, lang: str = "en") -> tuple[tuple[int, bool], ...]:
    """Where `word` may break: (index, needs a hyphen). After a hyphen already in the word, and
    inside each alphabetic part (accented letters included) at the points the language's
    pyphen patterns allow."""
    explicit = [(i + 1, False) for i, ch in enumerate(word[:-1]) if ch == "-" and i > 0]
    if explicit:  # rock-paper-scissors breaks at its own hyphens, not inside "paper"
        return tuple(explicit)
    points: list[tuple[int, bool]] = []
    for m in re.finditer(r"[^\W\d_]+", word):
        part = m.group(0)
        if len(part) >= 5:
            points.extend((m.start() + p, True) for p in _hyphenator(lang).positions(part))
    return tuple(points)


# CJK, kana and full-width forms (not an inline icon: that breaks as a word)
_has_cjk = re.compile("[\u2e80-\uffef]").search


def _is_cjk(ch: str) -> bool:
    return _has_cjk(ch) is not None


_WORD = re.compile(r"[^ \t]+")


def _latin_words(text: str) -> list[tuple[int, int]]:
    """The pieces a Latin line breaks between: words at spaces, and a Japanese quotation inside
    English text ("The source's 「山が尽きると敗北」") split at every kinsoku-legal boundary."""
    if not _has_cjk(text):  # English alone: the words are all
        return [m.span() for m in _WORD.finditer(text)]
    out: list[tuple[int, int]] = []
    for m in _WORD.finditer(text):
        start = m.start()
        for i in range(m.start() + 1, m.end()):
            if (_is_cjk(text[i - 1]) or _is_cjk(text[i])) and kinsoku_ok(text, i) \
                    and not (_is_latin_word_char(text[i - 1]) and _is_latin_word_char(text[i])):
                out.append((start, i))
                start = i
        out.append((start, m.end()))
    return out


def _latin_spans(text: str, base: int, widths: list[float], width: float, hyphen_width: float,
                 hyphenate: bool, em: float, balanced: bool = False, lang: str = "en") -> list[LineSpan]:
    hyphenate = hyphenate and width >= _HYPHENATE_MIN_MEASURE * em
    prefix = list(accumulate(widths, initial=0.0))
    first, last = len(text) - len(text.lstrip(" \t")), len(text.rstrip(" \t"))
    if first < last and prefix[last] - prefix[first] <= width + _EPS:
        return [LineSpan(base + first, base + last)]  # it fits: one line, from its first word to its last
    words = _latin_words(text)
    out: list[LineSpan] = []
    line_start: int | None = None
    line_end = 0
    k = 0
    piece = words[0][0] if words else 0  # where the current word's unset part begins
    while k < len(words):
        a, b = words[k]
        a = max(a, piece)
        if line_start is None:
            if prefix[b] - prefix[a] <= width + _EPS:
                line_start, line_end = a, b
                k += 1
                continue
            # a word longer than a line: a legal point, else between characters
            cut = _hyphen_cut(text, a, b, prefix, prefix[a], width, hyphen_width, lang)
            if cut is None:
                cut = a + 1
                while cut < b and prefix[cut + 1] - prefix[a] <= width + _EPS:
                    cut += 1
                out.append(LineSpan(base + a, base + cut))
            else:
                out.append(LineSpan(base + a, base + cut[0], cut[1]))
                cut = cut[0]
            piece = cut
            continue
        if prefix[b] - prefix[line_start] <= width + _EPS:
            line_end = b
            k += 1
            continue
        used = prefix[line_end] - prefix[line_start]
        cut = None
        if (hyphenate and width - used > _HYPHENATE_WHEN_EMPTIER * width and k < len(words) - 1
                and sum(ch.isalpha() for ch in text[a:b]) >= _HYPHENATE_MIN_LETTERS) or prefix[b] - prefix[a] > width:
            cut = _hyphen_cut(text, a, b, prefix, prefix[line_start], width, hyphen_width, lang)
        if cut is not None:
            out.append(LineSpan(base + line_start, base + cut[0], cut[1]))
            piece = cut[0]
        else:
            out.append(LineSpan(base + line_start, base + line_end))
        line_start = None
    if line_start is not None:
        out.append(LineSpan(base + line_start, base + line_end))
    return _balanced_spans(text, base, prefix, width, out) if balanced else out


#: A balanced block's last line of one word (a runt, "Gain 2 / fame.") costs more than any
#: raggedness can: it is set only when no other break gives the same number of lines.
_RUNT_COST = 1000.0
#: What a break costs besides the raggedness it makes: nothing after a sentence, a little after
#: a comma, more inside a clause, most between a number or an article and the word it belongs
#: to ("Gain 5 / fame", "a / hug"), so
#: that of two near-equal settings the one that breaks where a reader pauses wins (a quarter
#: of the width left empty costs 0.0625).
_SENTENCE_BREAK_COST = 0.0
_CLAUSE_BREAK_COST = 0.03
_WORD_BREAK_COST = 0.08
_BOUND_BREAK_COST = 0.2
_sentence_end = re.compile(r"[.!?…][\"'’”)]*$").search
_clause_end = re.compile(r"[,;:–—][\"'’”)]*$").search
_has_space = re.compile("[ \t]").search
_bound = re.compile(r"[+\-−]?\d+%?|[Aa]n?|[Tt]he").fullmatch


def _break_cost(word: str) -> float:
    """What a line break after `word` costs (see above)."""
    if _bound(word):
        return _BOUND_BREAK_COST
    if _sentence_end(word):
        return _SENTENCE_BREAK_COST
    if _clause_end(word):
        return _CLAUSE_BREAK_COST
    return _WORD_BREAK_COST


def _balanced_spans(text: str, base: int, prefix: list[float], width: float,
                    greedy: list[LineSpan]) -> list[LineSpan]:
    """`greedy`'s lines re-broken at spaces into the same number of lines, as even as they can be
    (the least sum of each line's squared shortfall as a fraction of the width, the last line's
    too, as CSS's text-wrap: balance does for short blocks), with no one-word last line where
    another break exists, and breaking where a reader pauses rather than after "a" or "5".
    Same lines, same width: a text that fitted at a size still fits. A paragraph the greedy pass
    had to break inside a word (no space to break at) is left as it is."""
    n = len(greedy)
    words = _latin_words(text)
    starts = {a + base for a, _ in words}
    ends = {b + base for _, b in words}
    if n < 2 or any(s.hyphen or s.start not in starts or s.end not in ends for s in greedy):
        return greedy
    m = len(words)

    def line_cost(i: int, j: int, last: bool) -> float | None:
        """Words i..j-1 as one line: None when they do not fit."""
        used = prefix[words[j - 1][1]] - prefix[words[i][0]]
        if used > width + _EPS:
            return None
        short = (width - used) / width
        cost = short * short
        if last and not _has_space(text[words[i][0]:words[j - 1][1]]):
            cost += _RUNT_COST
        if not last:
            cost += _break_cost(text[words[j - 1][0]:words[j - 1][1]])
        return cost

    # best[k][j]: the cheapest way to set words 0..j-1 on k lines, and where its last line begins
    best: list[dict[int, tuple[float, int]]] = [{0: (0.0, -1)}]
    for k in range(1, n + 1):
        row: dict[int, tuple[float, int]] = {}
        last = k == n
        for j in ([m] if last else range(k, m)):
            for i, (cost, _) in best[k - 1].items():
                if i >= j:
                    continue
                line = line_cost(i, j, last)
                if line is not None and (j not in row or cost + line < row[j][0] - _EPS):
                    row[j] = (cost + line, i)
        best.append(row)
    if m not in best[n]:
        return greedy
    cuts = [m]
    for k in range(n, 0, -1):
        cuts.append(best[k][cuts[-1]][1])
    cuts.reverse()
    return [LineSpan(base + words[cuts[k]][0], base + words[cuts[k + 1] - 1][1]) for k in range(n)]


def _hyphen_cut(text: str, a: int, b: int, prefix: list[float], line_left: float, width: float,
                hyphen_width: float, lang: str = "en") -> tuple[int, bool] | None:
    """The last legal break inside text[a:b] that still fits the line begun at `line_left`."""
    best = None
    for p, hyphen in hyphen_points(text[a:b], lang):
        if prefix[a + p] - line_left + (hyphen_width if hyphen else 0.0) <= width + _EPS:
            best = (a + p, hyphen)
    return best


def break_spans(text: str, widths: list[float], width: float, lang: str, em: float,
                hyphen_width: float = 0.0, compounds: frozenset[str] = frozenset(),
                justified: bool = False, hyphenate: bool = True, balanced: bool = False) -> list[LineSpan]:
    """Break `text` (with `widths[i]` the advance of text[i]) into lines no wider than `width`.

    `lang` "ja" breaks the Japanese way (above), anything else the Latin way; `em` is the type
    size (the unit of a Japanese line's shortfall); `hyphen_width` the width of the hyphen a
    broken English word gets; `compounds` words a Japanese line must not split (a game's terms);
    `justified` for lines that will be spaced out to the full width (they should come out full);
    `hyphenate` False hyphenates only a word longer than a whole line (a card's short text);
    `balanced` evens out a Latin paragraph's lines (as many as the greedy fill makes) and keeps
    a word company on its last line where a break allows (a card's text box, a caption).
    An explicit "\\n" always breaks; an empty paragraph gives an empty line.
    """
    out: list[LineSpan] = []
    pos = 0
    for para in text.split("\n"):
        ws = widths[pos:pos + len(para)]
        if lang == "ja":
            lines = _ja_spans(para, pos, ws, width, em, compounds,
                              _SHORTFALL_COST if justified else _RAGGED_SHORTFALL_COST)
        else:
            lines = _latin_spans(para, pos, ws, width, hyphen_width, hyphenate, em, balanced, lang)
        lines = lines or [LineSpan(pos, pos)]
        lines[-1] = LineSpan(lines[-1].start, lines[-1].end, lines[-1].hyphen, True)
        out.extend(lines)
        pos += len(para) + 1
    return out


def stretch_points(text: str, start: int, end: int) -> list[int]:
    """Where a justified line of text[start:end] may widen: before every character k (start < k <
    end) except inside a run of Latin letters or digits (JIS X 4051 never spaces out a word)."""
    return [k for k in range(start + 1, end)
            if not (_is_latin_word_char(text[k - 1]) and _is_latin_word_char(text[k]))]


# --- typographic punctuation ----------------------------------------------------------------
# English text is typed with typewriter marks; a typesetter sets ' as ’ (or ‘ opening a quote),
# "..." as “...”, three dots as …, and a spaced hyphen as a spaced en dash. This happens here,
# once, on the text a template produced (so never inside template syntax, and ids hold none of
# these marks), for every block the line breaker sets. A mark is used only where the font draws
# it as Latin punctuation: IPAex's curly quotes and ellipsis are full-width Japanese forms (one em
# wide, the ellipsis at mid-height), so with IPAex only the dash changes; with a Latin face
# (a game's own font) every mark does.

_OPEN_BEFORE = frozenset(" \t\n([{‘“–—/")
#: Wider than this (in em) a quote or ellipsis is a Japanese full-width form, not Latin punctuation.
_LATIN_MARK_EM = 0.7


def _latin_mark(ch: str, font_name: str, lang: str) -> bool:
    """Whether the face that sets `ch` in `lang` has it and sets it narrower than a full-width form."""
    font_name = face_of(ch, font_name, lang)
    widths = getattr(getattr(pdfmetrics.getFont(font_name), "face", None), "charWidths", None)
    has = ord(ch) in widths if isinstance(widths, dict) else True  # a standard font: its encoding has them
    return has and _unit_width(ch, font_name) < _LATIN_MARK_EM


def _typographic_chars(text: str, font_name: str, lang: str) -> list[str]:
    """What each character of `text` is set as (a dot or hyphen folded into the mark before it: "")."""
    out = list(text)
    n = len(text)
    # a face that sets quotes as Latin marks sets its ellipsis on the baseline too (IPAex does neither)
    quotes = ellipsis = all(_latin_mark(mark, font_name, lang) for mark in "‘’“”")
    i = 0
    while i < n:
        ch = text[i]
        before = text[i - 1] if i else "\n"
        after = text[i + 1] if i + 1 < n else "\n"
        if ch == "'" and quotes:
            opening = before in _OPEN_BEFORE and not after.isdigit()  # '90s is an apostrophe
            out[i] = "‘" if opening else "’"
        elif ch == '"' and quotes:
            out[i] = "“" if before in _OPEN_BEFORE else "”"
        elif ch == "." and ellipsis and text[i:i + 3] == "..." and before != "." and text[i + 3:i + 4] != ".":
            out[i:i + 3] = ["…", "", ""]
            i += 3
            continue
        elif ch == "-" and before in " \t" and (after in " \t" or (after == "-" and text[i + 2:i + 3] in (" ", "\t"))):
            if after == "-":  # " -- " is the same dash typed twice
                out[i + 1] = ""
            out[i] = "–"
        i += 1
    return out


def typographic(text: str, lang: str, font_name: str) -> str:
    """`text` with English typewriter punctuation set typographically (see above); other languages as they are."""
    if lang != "en" or not any(mark in text for mark in "'\".-"):
        return text
    return "".join(_typographic_chars(text, font_name, lang))


def typographic_runs(pieces: list[tuple[str, object]], lang: str, font_name: str) -> list[tuple[str, object]]:
    """`typographic` over a paragraph split into (text, style) pieces: quotes open and close by
    the characters around them whichever piece those are in; each piece keeps its style."""
    whole = "".join(t for t, _ in pieces)
    if lang != "en" or not any(mark in whole for mark in "'\".-"):
        return pieces
    chars = _typographic_chars(whole, font_name, lang)
    out, at = [], 0
    for t, style in pieces:
        out.append(("".join(chars[at:at + len(t)]), style))
        at += len(t)
    return out


# --- public API --------------------------------------------------------------------------------

def break_lines(text: str, font_name: str, size: float, width_pt: float, lang: str,
                hyphenate: bool = False) -> list[str]:
    """Break `text` into lines no wider than `width_pt` at `size` points in `font_name`.

    `lang` is "ja" (word-aware breaks with kinsoku) or anything else (spaces; a word longer than a
    line, or with `hyphenate` any word that would leave a line short, is hyphenated at a legal
    point and its line ends with "-"). An explicit newline always breaks; an empty paragraph gives
    an empty line.
    """
    return list(_break_lines_cached(text, font_name, float(size), float(width_pt), lang, hyphenate))


@lru_cache(maxsize=16384)
def _break_lines_cached(text: str, font_name: str, size: float, width: float, lang: str,
                        hyphenate: bool = False) -> tuple[str, ...]:
    text = typographic(text.replace("\r\n", "\n"), lang, font_name)
    spans = break_spans(text, _widths(text, font_name, size, lang), width, lang, size,
                        _unit_width("-", face_of("-", font_name, lang)) * size, hyphenate=hyphenate, balanced=True)
    return tuple(text[s.start:s.end] + ("-" if s.hyphen else "") for s in spans)


def _fits(lines: tuple[str, ...], font_name: str, size: float, width: float, height: float, leading_ratio: float,
          lang: str) -> bool:
    if len(lines) * size * leading_ratio > height + 1e-6:
        return False
    return all(text_width(line, font_name, size, lang) <= width + 1e-6 for line in lines)


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
        return lines, s, _fits(lines, font_name, s, width_pt, height_pt, leading_ratio, lang)

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


# --- inline icons --------------------------------------------------------------------------------
# An icon in a text is written `:name:` or `{icon:name}`. `:name:` needs a lower-case ASCII name
# that starts with a letter, with no letter right before the first colon and no letter or digit
# right after the last, so "10:30", "a:b:c" and Japanese full-width colons stay text; `{icon:name}`
# is never ambiguous. Before breaking, each icon becomes one character of Unicode's supplementary
# private use area A (U+F0000...), numbered per process, so every breaking rule sees one character.

ICON_EM = 1.0  # an icon's advance, in em: one ideograph
_ICON_FIRST = "\U000F0000"
_ICON_LAST = "\U000FFFFD"
_MAX_ICON_NAMES = 4096  # distinct icon names per process (a game uses a handful)
ICON_MARKUP = re.compile(r"\{icon:([A-Za-z0-9_-]{1,40})\}|(?<![A-Za-z]):([a-z][a-z0-9_]{0,39}):(?![A-Za-z0-9])")
_ICON_CHAR: dict[str, str] = {}
# a regular expression finds one in a few hundred ns; max(text) >= _ICON_FIRST took ten times that per measured width
_has_icon = re.compile(f"[{_ICON_FIRST}-{_ICON_LAST}]").search
_split_icons = re.compile(f"([{_ICON_FIRST}-{_ICON_LAST}])").split
_ICON_NAME: dict[str, str] = {}


class UnknownIcon(ValueError):
    """A text names an icon that does not exist (the caller knows the file and line)."""

    def __init__(self, name: str, markup: str):
        super().__init__(f"unknown icon {markup!r}")
        self.name = name
        self.markup = markup


class Run(NamedTuple):
    """A piece of a line: `kind` "text" (value: the characters) or "icon" (value: the icon's name)."""

    kind: str
    value: str


def is_icon(ch: str) -> bool:
    """Whether the character `ch` stands for an inline icon (see `mark_icons`)."""
    return _ICON_FIRST <= ch <= _ICON_LAST


def has_icon(text: str) -> bool:
    """Whether `text` holds a character that stands for an inline icon."""
    return _has_icon(text) is not None


def icon_char(name: str) -> str:
    """The one character that stands for icon `name` in marked text."""
    ch = _ICON_CHAR.get(name)
    if ch is None:
        if len(_ICON_CHAR) >= _MAX_ICON_NAMES:
            raise ValueError(f"more than {_MAX_ICON_NAMES} different inline icon names")
        ch = chr(ord(_ICON_FIRST) + len(_ICON_CHAR))
        _ICON_CHAR[name] = ch
        _ICON_NAME[ch] = name
    return ch


def mark_icons(text: str, known: Callable[[str], bool] | None = None) -> str:
    """`text` with every `:name:` / `{icon:name}` replaced by its icon character.

    `known(name)` says whether an icon exists; a name it refuses raises UnknownIcon (give a
    file:line for it). Characters of the private use area the marking uses are refused in the
    input (ValueError): they would otherwise be drawn as icons.
    """
    if _has_icon(text):
        raise ValueError("the text holds a private-use character (U+F0000 or above); remove it")
    if ":" not in text:
        return text

    def replace(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if known is not None and not known(name):
            raise UnknownIcon(name, m.group(0))
        return icon_char(name)

    return ICON_MARKUP.sub(replace, text)


def unmark_icons(text: str) -> str:
    """`text` with each icon character written back as its `:name:` markup (for messages a person reads)."""
    if not _has_icon(text):
        return text
    return "".join(f":{_ICON_NAME.get(part, '?')}:" if i % 2 else part for i, part in enumerate(_split_icons(text)))


def runs(text: str, known: Callable[[str], bool] | None = None) -> list[Run]:
    """Split a text into runs of characters and icons, in order, for drawing.

    Takes a line broken by `break_lines`/`fit_text` from marked text (icon characters) or
    plain text with `:name:` / `{icon:name}` markup (marked first, `known` as in `mark_icons`).
    Draw a "text" run with the font, an "icon" run with `icons.draw_inline`, one em wide:
    `runs("Gain 2 :coin:.")` -> [Run("text", "Gain 2 "), Run("icon", "coin"), Run("text", ".")].
    """
    if not _has_icon(text):
        if ":" not in text:
            return [Run("text", text)] if text else []
        text = mark_icons(text, known)
    # split() with a group alternates text and icon characters: text, icon, text, ... (empty texts dropped)
    return [Run("icon", _ICON_NAME.get(part, "")) if i % 2 else Run("text", part)
            for i, part in enumerate(_split_icons(text)) if part]


def _icon_text_width(text: str, font_name: str, size: float, lang: str) -> float:
    return sum(ICON_EM * size if kind == "icon" else string_width(value, font_name, size, lang)
               for kind, value in runs(text))
