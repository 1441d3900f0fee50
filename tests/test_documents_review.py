"""What a page-by-page reading of the rulebooks and standard-deck sheets found (issue 12), checked
on the text read back from the PDFs: the style rules hold on paper too (figure captions are
templates the data's style check does not see), and nothing internal to the project is printed."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from cardgen import style
from cardgen.load import load_game
from cardgen.render.documents.paragraph import TextBlock
from cardgen.render.documents.rulebook import build_rulebook
from cardgen.render.documents.standard_sheet import build_standard_sheet

GAMES = ["llll", "requiem", "alice", "ohanatsumi"]
LANGS = ["ja", "en"]
DOCS = [(kind, g, lang) for kind in ("rules", "standard") for g in GAMES for lang in LANGS]


def _pages(data: bytes) -> list[str]:
    return [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture(scope="module")
def texts(rulebook_texts) -> dict[tuple[str, str, str], list[str]]:
    """The rulebooks (built once for the run, tests/conftest.py) and the standard sheets, as printed."""
    sheets = {("standard", g, lang): _pages(build_standard_sheet(load_game(g), lang)) for g in GAMES for lang in LANGS}
    return {**{("rules", g, lang): rulebook_texts[g, lang] for g in GAMES for lang in LANGS}, **sheets}


@pytest.mark.parametrize("kind,game_id", [(k, g) for k in ("rules", "standard") for g in GAMES])
def test_japanese_documents_keep_one_width_on_paper(texts, kind, game_id):
    """Digits and Latin letters half-width, no half-width kana, full-width brackets in Japanese
    sentences: the style check's rules, applied to what was printed (captions included)."""
    found = []
    for number, text in enumerate(texts[kind, game_id, "ja"], 1):
        for start, end, rule, replacement in style._findings_in(text, 0, len(text), japanese=True):
            if rule in ("width", "kana", "bracket"):
                found.append(f"p{number} {rule}: {text[max(0, start - 12):end + 12]!r} -> {replacement}")
    assert not found, found


@pytest.mark.parametrize("kind,game_id,lang", DOCS)
def test_no_project_internals_on_paper(texts, kind, game_id, lang):
    """The rules' file name (game.yaml `source:`) and the tool's own commands are not for players."""
    game = load_game(game_id)
    flat = "".join(texts[kind, game_id, lang])
    assert game.source and game.source not in flat
    assert "cardgen" not in flat


@pytest.mark.parametrize("lang,plain,glossed", [("ja", "スートの対応：", "スートの対応（色）："), ("en", "Suits:", "Suits (Colour):")])
def test_the_suits_heading_glosses_the_field_only_when_it_says_something(texts, lang, plain, glossed):
    requiem = "".join(texts["standard", "requiem", lang])  # its suit field is called "suit"
    assert plain in requiem and "（スート）" not in requiem and "(Suit)" not in requiem
    assert glossed in "".join(texts["standard", "alice", lang])  # alice's suits stand for colours


def test_the_value_sentence_does_not_repeat_rank():
    en = "".join(_pages(build_standard_sheet(load_game("requiem"), "en"))).replace("’", "'")  # the apostrophe as typed
    assert "The rank is the card's value" in en and "its Rank" not in en
    ja = "".join(_pages(build_standard_sheet(load_game("requiem"), "ja")))
    assert "ランクがそのまま数値になる" in ja


def _table_pages(keep: int) -> list[str]:
    """A table of six rows whose heading row and first row are all that fit under a tall block."""
    from reportlab.lib.pagesizes import A5
    from reportlab.platypus import SimpleDocTemplate, Spacer

    from cardgen.render.documents.paragraph import TStyle
    from cardgen.render.documents.table import text_table
    from reportlab.lib import colors

    from cardgen.fonts import register_fonts

    font, strong = register_fonts()
    style = TStyle(font=font, strong=strong, size=9, leading=12, color=(0, 0, 0))
    colours = dict.fromkeys(("rule", "accent", "header_fill", "zebra_fill"), colors.grey)
    rows = [["Card", "Text"]] + [[f"row{n}", f"text of row {n}"] for n in range(1, 7)]
    table = text_table(rows, lambda text, strong, align: TextBlock(text, "en", style), colours, font, 300, keep=keep)
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A5)
    row = table.wrap(doc.width, doc.height)[1] / len(rows)
    doc.build([Spacer(1, doc.height - 12 - 2.5 * row), table])  # 12: the frame's padding
    return _pages(buf.getvalue())


def test_a_table_breaks_with_rows_kept_under_the_heading():
    loose = _table_pages(keep=0)
    assert "row1" in loose[0] and "row2" not in loose[0]  # the fault: a heading row and one row at the foot
    kept = _table_pages(keep=2)
    assert "row1" not in kept[0] and "Card" not in kept[0]
    assert all(f"row{n}" in kept[1] for n in range(1, 7))


# None: the style's own paper (A4 for every bundled game), the rulebook the whole run shares
@pytest.mark.parametrize("paper", [None, "letter"], ids=["style-paper", "letter"])
@pytest.mark.parametrize("game_id,lang", [(g, lang) for g in GAMES for lang in LANGS])
def test_a_numbered_lists_last_item_does_not_start_a_page_alone(rulebook_texts, game_id, lang, paper):
    """A page that starts inside a numbered list also holds the item after its first one."""
    pages = rulebook_texts[game_id, lang] if paper is None else _pages(build_rulebook(load_game(game_id), lang, paper))
    _items_starting_pages(pages)


def _items_starting_pages(pages: list[str]) -> list[int]:
    """The number of the list item each page after the first starts with (when one does), each
    checked to share its page with the item after it: a list's last item never starts a page alone."""
    found = []
    for number, text in enumerate(pages[1:], 2):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        # lines[0]: the running head; a list item reads "3. Text", a heading "3.  Setup" or "3.　準備"
        first = re.match(r"(\d+)\. (?=\S)", lines[1]) if len(lines) > 1 else None
        if first and int(first.group(1)) > 1:
            follower = f"{int(first.group(1)) + 1}. "
            assert any(line.startswith(follower) for line in lines[2:]), (number, lines[:3])
            found.append(int(first.group(1)))
    return found


def test_a_long_lists_page_break_never_leaves_its_last_item_alone(tmp_path):
    """The bundled books have no page that starts inside a list, so a game whose rules end with a
    list of 25 to 64 items is built at each length: the break falls at every item in turn, among
    them just before the last, where the item before it goes over with it."""
    from cardgen.scaffold import new_game

    folder = tmp_path / "lists"
    new_game(folder)
    rules = (folder / "rules.en.md").read_text(encoding="utf-8")
    starts: list[tuple[int, int]] = []  # (list length, item a page starts with)
    for length in range(25, 65):
        items = "\n".join(f"{n}. Draw a card, then pass one card to the left." for n in range(1, length + 1))
        (folder / "rules.en.md").write_text(f"{rules}\n\n## Every step\n\n{items}\n", encoding="utf-8")
        starts += [(length, item) for item in _items_starting_pages(_pages(build_rulebook(load_game(folder), "en")))]
    assert any(item == length - 1 for length, item in starts), starts  # the last two went over together
