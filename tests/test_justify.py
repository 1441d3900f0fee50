"""Japanese justification, compounds kept whole and English hyphenation, read back from the PDFs.

The rulebooks are read with pypdfium2: every drawn character with its advance box (loose char
box), in the order the page draws them, grouped into lines. Two consecutive lines of one block
are the same size, the second one leading below the first, overlapping it horizontally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_raw
import pyphen
import pytest
from reportlab.lib.units import mm

from cardgen.fonts import register_fonts
from cardgen.load import bundled_games_dir, load_game
from cardgen.render.documents.markdown import parse_markdown
from cardgen.render.documents.paragraph import TextBlock, TStyle
from cardgen.render.documents.rulebook import _Builder, build_rulebook, load_style
from cardgen.text import break_spans

GAMES = ["llll", "requiem", "alice", "ohanatsumi"]

#: Compounds of the bundled Japanese texts that a line must never split.
COMPOUNDS = ["容疑者", "捨て札置き場", "山置き場", "捜査記録", "協力者", "プレイヤー", "イベントカード",
             "お花摘みカード", "山札", "手札", "捨て札", "迎撃エリア", "出撃フェイズ", "魔導師", "行動済み", "解決判定"]


@dataclass
class Line:
    page: int
    text: str
    x0: float
    x1: float
    y: float      # bottom of the advance boxes
    size: float   # height of the advance boxes: the type size
    gaps: list[float]  # space between one character's advance and the next (not where a space is)


def read_lines(data: bytes) -> list[Line]:
    """Every drawn line of the PDF, in drawing order."""
    out: list[Line] = []
    pdf = pdfium.PdfDocument(data)
    for number in range(len(pdf)):
        textpage = pdf[number].get_textpage()
        current: list[tuple[str, tuple[float, float, float, float]]] = []
        gaps: list[float] = []
        after_space = False

        def flush() -> None:
            if current:
                boxes = [b for _, b in current]
                out.append(Line(number + 1, "".join(c for c, _ in current), min(b[0] for b in boxes),
                                max(b[2] for b in boxes), boxes[0][1], round(boxes[0][3] - boxes[0][1], 2), list(gaps)))
                current.clear()
                gaps.clear()

        for i in range(textpage.count_chars()):
            ch = textpage.get_text_range(i, 1)
            if pdfium_raw.FPDFText_IsGenerated(textpage.raw, i) == 1 or ch in "\r\n":
                # pdfium's own space where a space character (which it does not report) was drawn
                after_space = after_space or ch == " "
                continue
            box = textpage.get_charbox(i, loose=True)
            if current and (abs(box[1] - current[-1][1][1]) > 0.3 or box[0] < current[-1][1][0] - 0.5):
                flush()
            elif current and not after_space and ch != " ":
                gaps.append(box[0] - current[-1][1][2])
            after_space = ch == " "
            current.append((ch, box))
        flush()
    return out


_BULLET = re.compile(r"^(・|•|\d+[.)])")


def pairs_in_a_block(lines: list[Line]):
    """(line, next line) for consecutive lines of one block: same page and size, one leading
    (1.2–2.1 sizes) lower, starting where it starts (right of it after a bullet)."""
    for a, b in zip(lines, lines[1:]):
        if a.page == b.page and a.size == b.size and 1.2 * a.size <= a.y - b.y <= 2.1 * a.size \
                and (abs(a.x0 - b.x0) <= 0.5 or (_BULLET.match(a.text) and a.x0 < b.x0 < a.x1)):
            yield a, b


@pytest.fixture(scope="module")
def books() -> dict[tuple[str, str], bytes]:
    return {(g, lang): build_rulebook(load_game(g), lang) for g in GAMES for lang in ("ja", "en")}


def hard_break_endings(game_id: str, lang: str) -> set[str]:
    """The last characters of every line a rules text ends with an explicit break (`\\`): such a line
    is the last of its paragraph, flush left."""
    builder = _Builder(load_game(game_id), lang)
    builder.frame_width = 400
    blocks = parse_markdown(builder.render_source(), lang, builder.nonce)
    return {part.replace("**", "").rstrip()[-4:] for b in blocks for part in b.text.split("\n")[:-1] if part.strip()}


@pytest.mark.parametrize("game_id", GAMES)
def test_japanese_body_lines_reach_the_right_edge(books, game_id):
    style = load_style(game_id)
    page_w = 595.2756  # A4
    right = page_w - style["page"]["margin_outer"] * mm
    body = style["type"]["ja"]["body"]
    endings = hard_break_endings(game_id, "ja")
    lines = read_lines(books[game_id, "ja"])
    checked = 0
    for line, following in pairs_in_a_block(lines):
        if line.page == 1 or abs(line.size - body["size"]) > 0.05 or abs(line.y - following.y - body["leading"]) > 0.2:
            continue  # the cover, and anything but the body text
        if any(line.text.endswith(e) for e in endings):
            continue
        checked += 1
        assert abs(line.x1 - right) <= 0.5, f"{game_id} p{line.page}: line ends {right - line.x1:.1f} pt short: {line.text}"
    assert checked > 20, f"{game_id}: only {checked} non-final body lines found"


@pytest.mark.parametrize("game_id", GAMES)
def test_last_line_of_a_japanese_paragraph_is_flush_left(books, game_id):
    """Justification spaces out the lines of a paragraph but leaves its last line at its natural
    width: its characters follow one another with no gap."""
    body = load_style(game_id)["type"]["ja"]["body"]
    lines = read_lines(books[game_id, "ja"])
    pairs = [(a, b) for a, b in pairs_in_a_block(lines)
             if a.page > 1 and abs(a.size - body["size"]) <= 0.05 and abs(a.y - b.y - body["leading"]) <= 0.2]
    firsts = {id(a) for a, _ in pairs}
    lasts = [b for _, b in pairs if id(b) not in firsts and not _BULLET.match(b.text)]
    assert len(lasts) > 5, game_id
    for line in lasts:
        assert max(line.gaps, default=0) < 0.05, (game_id, line.text, max(line.gaps))
    spaced = [a for a, _ in pairs if max(a.gaps, default=0) > 0.01]
    assert len(spaced) > len(pairs) / 2  # most other lines are spaced out to the edge


@pytest.mark.parametrize("game_id", GAMES)
def test_no_line_splits_a_compound(books, game_id):
    for line, following in pairs_in_a_block(read_lines(books[game_id, "ja"])):
        for word in COMPOUNDS:
            for k in range(1, len(word)):
                assert not (line.text.endswith(word[:k]) and following.text.startswith(word[k:])), \
                    f"{game_id} p{line.page}: {word[:k]}/{word[k:]} in {line.text!r} / {following.text!r}"


def _source_text(game_id: str) -> str:
    folder = bundled_games_dir() / game_id
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.*")) if p.suffix in (".md", ".yaml"))


@pytest.mark.parametrize("game_id", GAMES)
def test_english_words_break_with_a_hyphen_at_a_legal_point(books, game_id):
    """A line ending in "-" inside a word: the break is one pyphen allows (or the word's own hyphen)."""
    hyphenator = pyphen.Pyphen(lang="en_US")
    source = _source_text(game_id)
    broken = 0
    for line, following in pairs_in_a_block(read_lines(books[game_id, "en"])):
        head = re.search(r"([A-Za-z]+)-$", line.text)
        tail = re.match(r"[A-Za-z]+", following.text)
        if not head or not tail:
            continue
        broken += 1
        prefix, suffix = head.group(1), tail.group(0)
        legal = len(prefix) in hyphenator.positions(prefix + suffix)
        own = f"{prefix}-{suffix}" in source
        assert legal or own, f"{game_id} p{line.page}: {prefix}-/{suffix} is not a hyphenation point"


def test_english_paragraphs_break_inside_a_word_only_with_a_hyphen():
    """Every English paragraph of the bundled rulebooks, broken at a narrow measure: a line that
    ends inside a word carries a hyphen, at a point pyphen allows."""
    gothic, _ = register_fonts()
    hyphenator = pyphen.Pyphen(lang="en_US")
    inside = 0
    for game_id in GAMES:
        builder = _Builder(load_game(game_id), "en")
        builder.frame_width = 400
        for block in parse_markdown(builder.render_source(), "en", builder.nonce):
            if not block.text:
                continue
            text = block.text.replace("**", "")
            widths = [TextBlock([(ch, False)], "en", TStyle(gothic, gothic, 9.5, 14, (0, 0, 0))).natural_width()
                      for ch in text]
            for span in break_spans(text, widths, 200.0, "en", 9.5, widths[0] if widths else 0):
                if 0 < span.end < len(text) and text[span.end - 1].isalpha() and text[span.end].isalpha():
                    inside += 1
                    assert span.hyphen, (game_id, text[span.start:span.end])
                    word = re.search(r"[A-Za-z]+$", text[:span.end]).group(0) + re.match(r"[A-Za-z]+", text[span.end:]).group(0)
                    assert len(re.search(r"[A-Za-z]+$", text[:span.end]).group(0)) in hyphenator.positions(word)
    assert inside > 10  # the measure is narrow enough that words do get hyphenated


def test_goblin_extermination_is_hyphenated_not_cut():
    gothic, _ = register_fonts()
    block = TextBlock("Goblin Extermination", "en", TStyle(gothic, gothic, 8.5, 11, (0, 0, 0)))
    block.wrap(40, 1000)  # "Extermination" alone is wider than the line
    texts = ["".join(p[1] for p in line.pieces) for line in block.lines]
    assert len(texts) >= 3, texts  # the long word is split, not run past the measure or cut anywhere
    # the lines read back as the words; every hyphen stands where the word may be hyphenated
    assert "".join(t.removesuffix("-") if t.endswith("-") else t + " " for t in texts).strip() == "Goblin Extermination", texts
    legal = pyphen.Pyphen(lang="en_US").positions("Extermination")
    at = 0  # characters of "Goblin Extermination" before the line
    for text in texts[:-1]:
        if text.endswith("-"):
            at += len(text) - 1
            assert at - len("Goblin ") in legal, (texts, legal)
        else:
            at += len(text) + 1


def test_a_japanese_quotation_in_english_text_breaks_by_kinsoku():
    """English text quoting Japanese ("The source says 「…」") breaks inside the quotation, where
    kinsoku allows, instead of leaving the line before it half empty."""
    gothic, mincho = register_fonts()
    text = "As the source says, 「山が尽きるか、メモに3枚アリスが溜まると敗北」 (you lose when the deck runs out)."
    from cardgen.text import break_lines, text_width

    lines = break_lines(text, mincho, 8.5, 150, "en")
    assert lines[0].startswith("As the source says, 「山") and len(lines[0]) > len("As the source says, 「")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(text_width(line, mincho, 8.5, "en") <= 150 + 1e-6 for line in lines)  # as set: Latin in Liberation Serif
    assert not any(line[0] in "、。」" for line in lines[1:])


@pytest.mark.parametrize("game_id", GAMES)
def test_every_ruling_body_starts_at_one_indent(books, game_id):
    """Issue 27: ruling D10's body started further right than D3's (its label is wider); one
    indent for the book, read from the characters' positions."""
    label = re.compile(r"裁定 ?D\d+$")
    starts: dict[str, float] = {}
    pdf = pdfium.PdfDocument(books[game_id, "ja"])
    for number in range(len(pdf)):
        textpage = pdf[number].get_textpage()
        seen, right = "", 0.0
        for i in range(textpage.count_chars()):
            ch = textpage.get_text_range(i, 1)
            if ch in " \r\n" or pdfium_raw.FPDFText_IsGenerated(textpage.raw, i) == 1:
                continue
            box = textpage.get_charbox(i, loose=True)
            match = label.search(seen)
            if match and box[0] - right > 3:  # the first character past the label's column: the body's start
                starts[f"p{number + 1} {match.group(0)}"] = round(box[0], 1)
            seen, right = (seen + ch)[-12:], box[2]
    assert len(starts) >= len(load_game(game_id).decisions)
    assert len(set(starts.values())) == 1, starts


def test_a_figure_tag_covers_no_text_of_its_card(books):
    """Issue 27: the tags 開いた/次に開く sat on the cards' titles in ohanatsumi's figure."""
    pdf = pdfium.PdfDocument(books["ohanatsumi", "ja"])
    found = 0
    for number in range(len(pdf)):
        textpage = pdf[number].get_textpage()
        chars = [(textpage.get_text_range(i, 1), textpage.get_charbox(i, loose=True)) for i in range(textpage.count_chars())]
        text = "".join(ch for ch, _ in chars)
        for tag in ("開いた", "次に開く"):
            for match in re.finditer(tag, text):
                boxes = [box for _, box in chars[match.start():match.end()]]
                if boxes[0][3] - boxes[0][1] > 7:  # body text mentioning the word, not a tag
                    continue
                found += 1
                x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
                x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
                under = [ch for k, (ch, b) in enumerate(chars) if not match.start() <= k < match.end() and ch.strip()
                         and b[0] < x1 - 0.2 and b[2] > x0 + 0.2 and b[1] < y1 - 0.2 and b[3] > y0 + 0.2]
                assert under == [], (tag, under)
    assert found >= 2
