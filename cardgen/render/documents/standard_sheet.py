"""The standard-deck reference sheet: which ordinary playing card stands for which game card.

`build_standard_sheet(game, lang)` returns an A4 PDF (bytes, identical on every run) in one
language; `mapping_appendix_flowables(game, lang)` returns the same content as platypus
flowables for a rulebook appendix. Suit symbols are drawn as vector shapes (the ones a face's
corner index uses, `cardgen.render.cards.index`), never taken from a font, so they look the
same in every viewer and printer and need no symbol font. Text is IPAex Gothic, embedded and subset.

This module only draws: every fact comes from `cardgen.mapping.MappingReport`.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Flowable, SimpleDocTemplate, Spacer, Table

from ... import words
from ...files import write_atomic
from ...fonts import draw_string, register_fonts, string_width
from ...langs import pdf_lang, suffix as lang_suffix
from ...mapping import SUITS, MappingEntry, MappingReport, StandardCard, has_mapping, id_range, require_mapping
from ...model import Game, Text
from ..cards.icons import suit_width
from ..cards.index import BLACK, GREY, RED, draw_suit, suit_colour
from ..forms import form_once
from .paragraph import TextBlock, TStyle
from .table import KEEP_ROWS, text_table

RULE = colors.HexColor("#BBBBBB")
SHADE = colors.HexColor("#F2F2F2")

MARGIN = 15 * mm


# --- words ------------------------------------------------------------------------------------

def _w(key: str, lang: str) -> str:
    """A word of the standard sheet (templates/common/words.yaml, group `standard`)."""
    return words.word(f"standard.{key}", lang)


def _decks_sentence(report: MappingReport, game: Game, lang: str) -> str:
    n, total, mapped, to_print = report.decks_needed, len(report.entries), len(report.mapped), len(report.must_print)
    jokers = sum(1 for e in report.mapped if e.standard.is_joker)
    if lang == "ja":
        if not mapped:
            return f"トランプで代用できるカードはない。{total}枚すべてを印刷する。"
        parts = [f"必要なトランプ：{n}組（{'ジョーカー' + str(jokers) + '枚を含む' if jokers else 'ジョーカーは使わない'}）。"]
        if to_print:
            parts.append(f"{total}枚のうち{mapped}枚をトランプで代用し、{to_print}枚は印刷が必要。")
        else:
            parts.append(f"{total}枚すべてをトランプで代用でき、印刷が必要なカードはない。")
        return "".join(parts)
    if not mapped:
        return f"No card maps to a standard card: print all {total}."
    deck_word = "deck" if n == 1 else "decks"
    joker_part = f"{jokers} joker{'s' if jokers != 1 else ''} used" if jokers else "no jokers"
    first = f"Needs {n} standard {deck_word} ({joker_part}). "
    if to_print:
        return first + f"{mapped} of the {total} cards map to standard cards; {to_print} must be printed."
    return first + f"All {total} cards map to standard cards; none must be printed."


def _rule_sentence(rule, game: Game, lang: str) -> str:
    if rule.text:
        return rule.text.get(lang)
    by = {
        "rank": Text("ランク（数字）", "the rank"), "suit": Text("スート（マーク）", "the suit"),
        "colour": Text("色（赤・黒）", "the colour (red or black)"), "card": Text("ランクとスート", "the rank and suit"),
    }[rule.by].get(lang)
    if rule.what == "type":
        what = Text("カードの種類", "the card type").get(lang)
    else:
        spec = game.field_specs.get(rule.what)
        label = spec.label.get(lang) if spec and spec.label else rule.what
        what = label if lang == "ja" else f"the {label}"
    names = [game.card_type(t).name.get(lang) for t in rule.types]
    if lang == "ja":
        among = f"{'・'.join(names)}では、" if names else ""
        return f"{among}{by}だけで{what}がわかる。"
    among = f" (among {', '.join(names[:-1]) + ' and ' + names[-1] if len(names) > 1 else names[0]})" if names else ""
    return f"{by[0].upper()}{by[1:]} alone tells {what}{among}."


def _value_sentence(report: MappingReport, game: Game, lang: str) -> str | None:
    if not report.value_field:
        return None
    label = words.field_label(game, report.value_field, lang)
    if _same_word(label, _w("rank", lang)):  # not "A card's rank is its Rank"
        return _w("value_sentence_rank", lang)
    return words.word("standard.value_sentence", lang, label=label)


def _same_word(label: str, word: str) -> bool:
    """A field label that only repeats `word` ("Suit" for suits, "Rank" for ranks): printing it
    as a gloss says nothing."""
    return label.casefold().removesuffix("s") == word.casefold()


def _field_text(game: Game, report: MappingReport, name: str, value: Any, lang: str) -> str:
    spec = game.field_specs[name]
    label = spec.label.get(lang) if spec.label else name
    if isinstance(value, Text):
        return value.get(lang)
    if isinstance(value, bool):
        return label if value else ""
    if spec.kind == "enum" or name == report.suit_field:
        if name == report.suit_field:
            for s in report.suit_map:
                if s.value == value and s.name:
                    return words.word("common.field_value", lang, game, label=label, value=s.name.get(lang))
        named = report.labels.get(name, {}).get(value)
        return named.get(lang) if named else words.field_value(game, name, value, lang)  # a label, never the id
    return f"{label} {value}"


# --- flowables --------------------------------------------------------------------------------

def _rgb(colour: colors.Color) -> tuple[float, float, float]:
    return (colour.red, colour.green, colour.blue)


def default_styles() -> dict[str, TStyle]:
    """The sheet's text styles: the document kit's paragraph, suits drawn as vector shapes."""
    gothic, _mincho = register_fonts()

    def style(size: float, leading: float, colour: colors.Color, before: float, after: float,
              justify: bool = True) -> TStyle:
        return TStyle(gothic, gothic, size, leading, _rgb(colour), space_before=before, space_after=after,
                      justify=justify, glyphs=frozenset(_GLYPH_SUITS), draw_glyph=_draw_suit_glyph)

    return {
        "title": style(16, 21, BLACK, 0, 4, justify=False),
        "h2": style(11.5, 15, BLACK, 8, 3, justify=False),
        "body": style(9, 13, BLACK, 0, 3),
        "small": style(7.5, 10, GREY, 0, 0, justify=False),
        "cell": style(8.5, 11.5, BLACK, 0, 0, justify=False),  # table cells: ragged
        "cell_name": style(9.5, 12.5, BLACK, 0, 0, justify=False),
    }


def Lines(text: str, lang: str, style: TStyle, bullet: str = "") -> TextBlock:
    """A paragraph of the sheet (data text: `**` in it is printed, not bold), with an optional bullet."""
    if bullet:
        width = string_width(bullet, style.font, style.size, lang)
        style = replace(style, left=width, bullet_width=width)
    return TextBlock([(text, False)], lang, style, bullet=bullet or None)


def _suit(canvas, suit: str | None, cx: float, cy: float, size: float) -> None:
    """`draw_suit` placed from a form XObject drawn once per suit and size on this canvas: a
    mapping table and its chips draw the same few suits hundreds of times (their curves were a
    fifth of a rulebook's appendix)."""
    name = form_once(canvas, "suit", (suit, round(size, 4)), "CardgenSuit", (-size, -size, size, size),
                     lambda: draw_suit(canvas, suit, 0, 0, size))
    canvas.saveState()
    canvas.translate(cx, cy)
    canvas.doForm(name)
    canvas.restoreState()


_GLYPH_SUITS = {"♠": "spades", "♤": "spades", "♥": "hearts", "♡": "hearts",
                "♦": "diamonds", "♢": "diamonds", "♣": "clubs", "♧": "clubs"}


def _draw_suit_glyph(canvas, ch: str, x: float, baseline: float, size: float) -> None:
    """A suit character as a vector suit in its advance width (a paragraph's `draw_glyph`)."""
    advance = pdfmetrics.stringWidth(ch, register_fonts()[0], size)
    _suit(canvas, _GLYPH_SUITS[ch], x + advance / 2, baseline + size * 0.36, size * 0.8)


class CardChips(Flowable):
    """Standard cards in a row ("10♠ ×2  J♥"), vector suits, wrapping to the width."""

    def __init__(self, cards: Sequence[tuple[StandardCard, int]], lang: str, size: float = 10, lead_suit: str | None = None) -> None:
        super().__init__()
        self.cards, self.lang, self.size = list(cards), lang, size
        # With a lead suit the row starts with that suit's symbol and the cards show ranks only
        # ("♠  A 2 3 5×2"), as in the "Cards to take" list.
        self.lead = lead_suit
        self.font = register_fonts()[0]
        self._rows: list[list[tuple[float, Any]]] = []

    def _merged(self) -> list[tuple[StandardCard, tuple[str, ...], int]]:
        """Consecutive cards of one rank with the same count become one chip: (card, suits, count)."""
        out: list[tuple[StandardCard, tuple[str, ...], int]] = []
        for std, count in self.cards:
            if out and not self.lead and not std.is_joker and not out[-1][0].is_joker \
                    and out[-1][0].rank == std.rank and out[-1][2] == count:
                first, suits, n = out[-1]
                out[-1] = (first, suits + (std.suit,), n)
            else:
                out.append((std, (std.suit,) if not std.is_joker else (), count))
        return out

    def _items(self) -> list[tuple[float, Any]]:
        s = self.size
        out: list[tuple[float, Any]] = []
        for std, suits, count in self._merged():
            if std.is_joker:
                label = _w({None: "joker", "red": "red_joker", "black": "black_joker"}[std.suit], self.lang)
                width = suit_width(s) + 2 + string_width(label, self.font, s * 0.85, self.lang)
            elif self.lead:
                label = std.rank_label
                width = string_width(label, self.font, s, self.lang)
            else:
                label = std.rank_label
                width = self._rank_width(label) + 1.5 + len(suits) * suit_width(s * 0.9) + (len(suits) - 1) * 0.8
            extra = f"×{count}" if count > 1 else ""
            if extra:
                width += 1.5 + string_width(extra, self.font, s * 0.75, self.lang)
            out.append((width, (std, suits, label, extra)))
        return out

    def _rank_width(self, label: str) -> float:
        """A rank's room before its suits: that of the widest rank ("10"), so suits line up in a column."""
        return max(string_width(label, self.font, self.size, self.lang), string_width("10", self.font, self.size, self.lang))

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        gap = self.size * 0.7
        start = (suit_width(self.size) + self.size) if self.lead else 0
        rows: list[list[tuple[float, Any]]] = [[]]
        x = start
        for width, item in self._items():
            if rows[-1] and x + width > avail_width:
                rows.append([])
                x = start
            rows[-1].append((width, item))
            x += width + gap
        self._rows = rows
        self.width = avail_width
        self.height = max(1, len(rows)) * self.size * 1.35
        return avail_width, self.height

    def draw(self) -> None:
        c, s = self.canv, self.size
        gap = s * 0.7
        line = s * 1.35
        start = (suit_width(s) + s) if self.lead else 0
        base = self.height - line + (line - s) / 2 + s * 0.12
        if self.lead:
            _suit(c, self.lead, suit_width(s) / 2, base + s * 0.36, s * 1.0)
        for r, row in enumerate(self._rows):
            x = start
            y = base - r * line
            for width, (std, suits, label, extra) in row:
                colour = RED if std.colour == "red" else (BLACK if std.colour == "black" else GREY)
                if len({suit_colour(x) for x in suits}) > 1:
                    colour = BLACK
                if std.is_joker:
                    _suit(c, std.suit, x + suit_width(s) / 2, y + s * 0.36, s * 0.95)
                    c.setFillColor(colour)
                    c.setFont(self.font, s * 0.85)
                    draw_string(c, x + suit_width(s) + 2, y, label, self.lang)
                else:
                    c.setFillColor(colour)
                    c.setFont(self.font, s)
                    draw_string(c, x, y, label, self.lang)
                    if not self.lead:
                        sx = x + self._rank_width(label) + 1.5
                        for suit in suits:
                            _suit(c, suit, sx + suit_width(s * 0.9) / 2, y + s * 0.36, s * 0.9)
                            sx += suit_width(s * 0.9) + 0.8
                if extra:
                    c.setFillColor(GREY)
                    c.setFont(self.font, s * 0.75)
                    draw_string(c, x + width - string_width(extra, self.font, s * 0.75, self.lang), y, extra, self.lang)
                x += width + gap


class SuitLine(Flowable):
    """One "game suit → standard suit" pair per cell: "Medal → ♠"."""

    def __init__(self, pairs: Sequence[tuple[str, str]], lang: str, size: float = 9) -> None:
        super().__init__()
        self.pairs, self.lang, self.size = list(pairs), lang, size
        self.font = register_fonts()[0]

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.cell = max(string_width(f"{name} → ", self.font, self.size, self.lang) for name, _ in self.pairs) + suit_width(self.size) + 6 * mm
        self.per_row = max(1, int(avail_width // self.cell))
        rows = math.ceil(len(self.pairs) / self.per_row)
        self.width, self.height = avail_width, rows * self.size * 1.45
        return self.width, self.height

    def draw(self) -> None:
        c, s = self.canv, self.size
        line = s * 1.45
        for i, (name, suit) in enumerate(self.pairs):
            row, col = divmod(i, self.per_row)
            x = col * self.cell
            y = self.height - (row + 1) * line + (line - s) / 2 + s * 0.12
            c.setFont(self.font, s)
            c.setFillColor(BLACK)
            text = f"{name} → "
            draw_string(c, x, y, text, self.lang)
            _suit(c, suit, x + string_width(text, self.font, s, self.lang) + suit_width(s) / 2, y + s * 0.36, s)


# --- content ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Row:
    type_id: str
    name: Text
    cards: tuple[tuple[StandardCard, int], ...]
    ids: tuple[str, ...]
    short: tuple[str, ...]  # int / enum fields, already in the language
    texts: tuple[tuple[str, str], ...]  # (label, text) of text fields


def _rows(game: Game, report: MappingReport, lang: str) -> list[_Row]:
    cards = {c.id: c for c in game.cards}
    groups: dict[tuple, list[MappingEntry]] = {}
    for entry in report.mapped:
        card = cards[entry.card_id]
        group = report.group_of(entry.type_id)
        key = (("group", report.interchangeable.index(group)) if group else entry.type_id,
               tuple(_plain(card.get(name)) for name in report.show))
        groups.setdefault(key, []).append(entry)
    rows = []
    text_fields = [n for n in report.show if game.field_specs[n].kind == "text"]
    for (type_id, _), entries in groups.items():
        card = cards[entries[0].card_id]
        group = report.group_of(entries[0].type_id)
        row_name = group.name if group and group.name else entries[0].name
        counts: dict[StandardCard, int] = defaultdict(int)
        for e in entries:
            counts[e.standard] += 1
        ordered = tuple(sorted(counts.items(), key=lambda kv: _rank_major(kv[0])))
        short, texts = [], []
        for name in report.show:
            value = card.get(name)
            if value is None:
                continue
            spec = game.field_specs[name]
            if spec.kind == "text":
                label = spec.label.get(lang) if spec.label and len(text_fields) > 1 else ""
                texts.append((label, value.get(lang)))
            else:
                shown = _field_text(game, report, name, value, lang)
                if shown:
                    short.append(shown)
        rows.append(_Row(str(type_id), row_name, ordered, tuple(e.card_id for e in entries), tuple(short), tuple(texts)))
    return rows


def _rank_major(std: StandardCard) -> tuple[int, int]:
    """A..K, then jokers; suits in deck order within a rank (2♠ 2♥ 2♦ 2♣ 3♠ ...)."""
    suit, rank, joker = std.sort_key()
    return (rank if not std.is_joker else 99, suit * 3 + joker)


def _plain(value: Any) -> Any:
    return value.values if isinstance(value, Text) else value


def _take_lists(report: MappingReport) -> tuple[dict[str, list[tuple[StandardCard, int]]], list[tuple[StandardCard, int]]]:
    by_suit: dict[str, list[tuple[StandardCard, int]]] = {s: [] for s in SUITS}
    jokers: list[tuple[StandardCard, int]] = []
    for std, count in report.usage().items():
        (jokers if std.is_joker else by_suit[std.suit]).append((std, count))
    return by_suit, jokers


def mapping_appendix_flowables(game: Game, lang: str, styles: dict[str, TStyle] | None = None,
                               heading: str | None = None, report: MappingReport | None = None) -> list[Flowable]:
    """The reference content as platypus flowables, for the sheet and for a rulebook appendix.

    `heading` replaces the first heading (the sheet uses the game title; a rulebook uses
    "Appendix: ..."). Raises DataError if the mapping has problems: a wrong sheet is worse
    than none.
    """
    if report is None:
        if not has_mapping(game):
            return []
        report = require_mapping(game)
    st = {**default_styles(), **(styles or {})}
    out: list[Flowable] = []
    title = heading if heading is not None else _w("appendix", lang)
    out.append(Lines(title, lang, st["title"]))
    out.append(Lines(_decks_sentence(report, game, lang), lang, st["body"]))

    # Setup
    out.append(Lines(_w("setup", lang), lang, st["h2"]))
    if report.setup:
        out.append(Lines(report.setup.get(lang), lang, st["body"]))
    if report.mapped:
        out.append(Lines(_w("take_heading", lang), lang, st["body"]))
        by_suit, jokers = _take_lists(report)
        take = []
        for suit in SUITS:
            if by_suit[suit]:
                take.append(CardChips(by_suit[suit], lang, 10, lead_suit=suit))
        if jokers:
            take.append(CardChips(jokers, lang, 10))
        out.extend(take)
        out.append(Spacer(1, 2 * mm))
    if report.suit_map:
        label = words.field_label(game, report.suit_field, lang)
        # not 「スートの対応（スート）」
        if _same_word(label, _w("suit", lang)):
            heading = _w("suits_heading_plain", lang)
        else:
            heading = words.word("standard.suits_heading", lang, label=label)
        out.append(Lines(heading, lang, st["body"]))
        pairs = [((s.name.get(lang) if s.name else s.value), s.suit) for s in report.suit_map]
        out.append(SuitLine(pairs, lang, 9))
        out.append(Spacer(1, 2 * mm))
    reading = [_rule_sentence(rule, game, lang) for rule in report.recognise]
    value = _value_sentence(report, game, lang)
    if value:
        reading.append(value)
    if reading:
        out.append(Lines(_w("read", lang), lang, st["h2"]))
        bullet = "・" if lang == "ja" else "• "
        for sentence in reading:
            out.append(Lines(sentence, lang, st["body"], bullet=bullet))

    # Card table
    rows = _rows(game, report, lang)
    if rows:
        out.append(Lines(_w("table", lang), lang, st["h2"]))
        out.append(_FitTable(lambda width: _card_table(rows, lang, st, width, game.numbered)))

    # Must print
    if report.must_print:
        out.append(Lines(_w("print", lang), lang, st["h2"]))
        out.append(_FitTable(lambda width: _print_table(game, report, lang, st, width)))

    if report.note:
        out.append(Lines(_w("note", lang), lang, st["h2"]))
        out.append(Lines(report.note.get(lang), lang, st["body"]))
    return out


class _FitTable(Flowable):
    """A table whose column widths are computed from the width of the frame it lands in."""

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make
        self._table: Table | None = None

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self._table = self.make(avail_width)
        self.width, self.height = self._table.wrap(avail_width, avail_height)
        return self.width, self.height

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        return self.make(avail_width).split(avail_width, avail_height)

    def draw(self) -> None:
        assert self._table is not None
        self._table.drawOn(self.canv, 0, 0)


_TABLE_COLOURS = {"rule": RULE, "accent": BLACK, "header_fill": colors.white, "zebra_fill": SHADE}


def _table(rows: list[list[Any]], lang: str, st: dict[str, TStyle], widths: list[float], zebra: bool) -> Table:
    """The document kit's table: a header row of small captions, then the given cells."""
    def cell(text: str, strong: bool, align: str) -> Flowable:
        return Lines(text, lang, st["small"] if strong else st["cell"])

    shade = list(range(2, len(rows), 2)) if zebra else []
    return text_table(rows, cell, _TABLE_COLOURS, register_fonts()[0], sum(widths), widths=widths, shade_rows=shade,
                      keep=KEEP_ROWS)


def _card_table(rows: list[_Row], lang: str, st: dict[str, TStyle], width: float, numbered: bool = True) -> Table:
    first = min(36 * mm, width * 0.22)
    second = min(40 * mm, width * 0.24)
    data: list[list[Any]] = [[_w(k, lang) for k in ("col_std", "col_card", "col_text")]]
    for row in rows:
        card_cell: list[Flowable] = [Lines(row.name.get(lang), lang, st["cell_name"])]
        if row.short:
            card_cell.append(Lines("、".join(row.short) if lang == "ja" else ", ".join(row.short), lang, st["cell"]))
        if numbered:
            card_cell.append(Lines(id_range(list(row.ids)), lang, st["small"]))
        text_cell: list[Flowable] = []
        for label, text in row.texts:
            shown = (f"{label}：{text}" if lang == "ja" else f"{label}: {text}") if label else text
            text_cell.append(Lines(shown, lang, st["cell"]))
        data.append([CardChips(row.cards, lang, 10), card_cell, text_cell or ""])
    if not any(row.texts for row in rows):  # no card text anywhere: no empty column
        data = [line[:2] for line in data]
        return _table(data, lang, st, [first, width - first], zebra=True)
    return _table(data, lang, st, [first, second, width - first - second], zebra=True)


def _print_table(game: Game, report: MappingReport, lang: str, st: dict[str, TStyle], width: float) -> Table:
    groups: dict[Any, dict[str, list[MappingEntry]]] = {}
    for e in report.must_print:
        key = e.reason.values if e.reason else None
        groups.setdefault(key, {}).setdefault(e.type_id, []).append(e)
    data: list[list[Any]] = [[_w(k, lang) for k in ("col_card", "col_text")]]
    for reason, by_type in groups.items():
        cell: list[Flowable] = []
        for entries in by_type.values():
            cell.append(Lines(f"{entries[0].name.get(lang)} ×{len(entries)}", lang, st["cell_name"]))
        if game.numbered:
            cell.append(Lines(id_range([e.card_id for es in by_type.values() for e in es]), lang, st["small"]))
        first = next(iter(by_type.values()))[0]
        data.append([cell, Lines(first.reason.get(lang), lang, st["cell"]) if first.reason else ""])
    first = min(76 * mm, width * 0.45)
    return _table(data, lang, st, [first, width - first], zebra=False)


# --- the sheet --------------------------------------------------------------------------------

def build_standard_sheet(game: Game, lang: str, paper: str = "a4") -> bytes:
    """The reference sheet as A4 (or Letter) PDF bytes; the same inputs give the same bytes."""
    if lang not in game.languages:
        raise ValueError(f"language must be one of {', '.join(game.languages)}, not {lang!r}")
    report = require_mapping(game)
    gothic, _ = register_fonts()
    title = f"{game.title.get(lang)} — {_w('title', lang)}"
    pagesize = {"a4": A4, "letter": letter}[paper.lower()]
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer, pagesize=pagesize, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN, bottomMargin=MARGIN + 4 * mm,
        title=title, author="cardgen", subject=f"{game.id} standard-deck mapping", creator="cardgen", invariant=1,
        initialFontName=gothic, initialFontSize=9, initialLeading=12,  # never a non-embedded standard font
        lang=pdf_lang(lang),
    )

    def footer(canvas, document) -> None:
        canvas.saveState()
        canvas.setFont(gothic, 7.5)
        canvas.setFillColor(GREY)
        draw_string(canvas, MARGIN, MARGIN, f"{game.title.get(lang)} — {_w('title', lang)}", lang)
        draw_string(canvas, pagesize[0] - MARGIN, MARGIN, str(document.page), lang, "right")
        canvas.restoreState()

    story = mapping_appendix_flowables(game, lang, heading=title, report=report)
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


def standard_sheet_path(game: Game, out_dir: str | Path = "output", lang: str | None = None) -> Path:
    """<game>-standard-deck.pdf in the game's first language, <game>-standard-deck-<lang>.pdf in another (as `build` names it)."""
    return Path(out_dir) / game.id / f"{game.id}-standard-deck{lang_suffix(lang or game.languages[0], game.languages)}.pdf"


def write_standard_sheet(game: Game, lang: str, out_dir: str | Path = "output", paper: str = "a4") -> Path:
    """Write output/<game>/<game>-standard-deck[-<lang>].pdf (A4 or Letter) atomically and return its path."""
    return write_atomic(standard_sheet_path(game, out_dir, lang), build_standard_sheet(game, lang, paper))
