"""Rulebooks: read every PDF back and check it against the game data it was made from."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from cardgen import words
from cardgen.errors import DataError
from cardgen.load import bundled_game_ids, bundled_games_dir, load_game
from cardgen.model import Text
from cardgen.render.documents.markdown import MarkdownLimit
from cardgen.render.documents.rulebook import build_rulebook, parse_markdown, write_rulebooks

GAMES = ["llll", "requiem", "alice", "ohanatsumi"]
LANGS = ["ja", "en"]
BOOKS = [(g, lang) for g in GAMES for lang in LANGS]
STANDARD_14 = {
    "Courier", "Courier-Bold", "Courier-Oblique", "Courier-BoldOblique", "Helvetica", "Helvetica-Bold",
    "Helvetica-Oblique", "Helvetica-BoldOblique", "Times-Roman", "Times-Bold", "Times-Italic",
    "Times-BoldItalic", "Symbol", "ZapfDingbats",
}


def squash(text: str) -> str:
    """Remove all white space and hyphens, so that words broken (and hyphenated) across lines or
    table cells still match, with typographic marks as typed (English text is printed with
    ’ “ ” … – in its Latin face: cardgen.text.typographic, tested in test_text)."""
    for mark, typed in (("‘", "'"), ("’", "'"), ("“", '"'), ("”", '"'), ("…", "..."), ("–", "-")):
        text = text.replace(mark, typed)
    return re.sub(r"[\s\-]+", "", text)


@pytest.fixture(scope="module")
def books(rulebooks) -> dict[tuple[str, str], bytes]:
    assert set(rulebooks) == set(BOOKS)
    return rulebooks


@pytest.fixture(scope="module")
def texts(rulebook_texts) -> dict[tuple[str, str], list[str]]:
    return rulebook_texts


def test_all_bundled_games_have_rules_in_both_languages():
    for game_id in bundled_game_ids():
        for lang in LANGS:
            assert (bundled_games_dir() / game_id / f"rules.{lang}.md").is_file(), (game_id, lang)
    assert set(GAMES) <= set(bundled_game_ids())


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_every_card_name_and_count_is_in_the_component_list(texts, game_id, lang):
    game = load_game(game_id)
    flat = squash("".join(texts[game_id, lang]))
    for card_type in game.card_types:
        first_id = game.cards_of(card_type.id)[0].id
        row = squash(f"{card_type.name.get(lang)}{card_type.count}{first_id}")
        assert row in flat, f"{game_id}/{lang}: component list lacks {card_type.name.get(lang)} × {card_type.count} ({first_id})"
    total = squash(f"{game.total}")
    assert total in flat


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_every_card_text_is_printed_in_its_language(texts, game_id, lang):
    game = load_game(game_id)
    flat = squash("".join(texts[game_id, lang]))
    missing = []
    for card in game.cards:
        for name, value in card.fields.items():
            if isinstance(value, Text) and squash(value.get(lang)) not in flat:
                missing.append(f"{card.id}.{name}: {value.get(lang)[:40]}")
    assert not missing, f"{game_id}/{lang}: card texts missing from the rulebook: {missing[:5]}"


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_every_decision_is_printed_and_marked(texts, game_id, lang):
    game = load_game(game_id)
    assert game.decisions, game_id
    flat = squash("".join(texts[game_id, lang]))
    label = words.word("rulebook.decision", lang)
    for decision in game.decisions:
        assert squash(decision.text.get(lang)) in flat, f"{game_id}/{lang}: decision {decision.id} missing"
    # issue 27: each ruling in one place (where the text sets it, else in the list), numbered in reading order
    printed = []  # (where, number) of each label followed by its ruling's text
    for decision in game.decisions:
        found = [(m.start(), int(m.group(1))) for m in
                 re.finditer(re.escape(squash(label)) + r"D(\d+)" + re.escape(squash(decision.text.get(lang))[:40]), flat)]
        assert len(found) == 1, f"{game_id}/{lang}: decision {decision.id} printed {len(found)} times"
        printed += found
    numbers = [n for _, n in sorted(printed)]
    assert numbers == list(range(1, len(game.decisions) + 1)), f"{game_id}/{lang}: rulings as printed: {numbers}"


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_pages_are_numbered(texts, game_id, lang):
    pages = texts[game_id, lang]
    assert len(pages) >= 3
    for number, text in enumerate(pages, 1):
        assert f"{number} / {len(pages)}" in text, f"{game_id}/{lang}: page {number} has no page number"


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_table_of_contents_lists_chapters_with_pages(books, texts, game_id, lang):
    reader = PdfReader(io.BytesIO(books[game_id, lang]))
    outline = reader.outline
    assert len(outline) >= 5, "the PDF outline (bookmarks) is missing"
    contents = texts[game_id, lang][0]
    assert words.word("rulebook.contents", lang) in contents
    flat_contents = squash(contents)
    for entry in outline:
        if isinstance(entry, list):  # sections under a chapter
            continue
        page = reader.get_destination_page_number(entry) + 1
        # The contents page names each chapter, then dot leaders, then the page it starts on.
        assert re.search(re.escape(squash(entry.title)) + r"\.*" + str(page) + r"(?!\d)", flat_contents), \
            f"{game_id}/{lang}: contents lack {entry.title!r} on page {page}"
        if not entry.title.startswith(("付録", "Appendix")):  # the appendix draws its own heading
            assert squash(entry.title) in squash(texts[game_id, lang][page - 1])


@pytest.mark.parametrize("game_id,lang", BOOKS)
def test_fonts_are_embedded_truetype(books, game_id, lang):
    reader = PdfReader(io.BytesIO(books[game_id, lang]))
    seen = set()
    for page in reader.pages:
        fonts = page["/Resources"].get("/Font", {})
        for ref in fonts.values():
            font = ref.get_object()
            base = str(font["/BaseFont"]).lstrip("/")
            seen.add(base.split("+")[-1])
            assert base not in STANDARD_14, f"{base} is a standard font, not embedded"
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            descriptor = descriptor.get_object()
            assert "/FontFile2" in descriptor, f"{base} is not embedded as TrueType"
    # Japanese in IPAex; English in the Latin family (body Serif, headings Sans Bold: cardgen.fonts.face_of)
    assert ({"IPAexGothic", "IPAexMincho"} if lang == "ja" else {"LiberationSerif", "LiberationSans-Bold"}) <= seen


def test_rulebooks_are_byte_identical_across_runs(books):
    again = build_rulebook(load_game("llll"), "ja")
    assert again == books["llll", "ja"]


def test_rulebooks_are_byte_identical_across_processes(books):
    code = ("import sys; from cardgen.load import load_game; from cardgen.render.documents.rulebook import build_rulebook; "
            "sys.stdout.buffer.write(build_rulebook(load_game('requiem'), 'en'))")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, check=True).stdout
    assert out == books["requiem", "en"]


def test_numbers_come_from_the_data(texts):
    llll = load_game("llll")
    ja = squash("".join(texts["llll", "ja"]))
    en = squash("".join(texts["llll", "en"]))
    assert squash(f"ストックから{llll.param('starting_action_points')}点分") in ja
    assert squash(f"takes {llll.param('starting_action_points')} action points") in en
    assert squash(f"第{llll.param('rounds')}ラウンド") in ja
    requiem = load_game("requiem")
    combat = requiem.param("combat")
    assert squash(f"{combat['win_at_least']} or more Allies win") in squash("".join(texts["requiem", "en"]))
    alice = load_game("alice")
    for band in alice.param("link_bonus"):
        assert squash(f"{band['min']} to {band['max']} {band['bonus']}") in squash("".join(texts["alice", "en"]))


def test_requiem_play_area_is_vector_graphics(books, texts):
    """The play-area diagram is drawn (paths and text), not an image; its labels read back."""
    reader = PdfReader(io.BytesIO(books["requiem", "ja"]))
    page = next(i for i, t in enumerate(texts["requiem", "ja"]) if "敵軍襲来エリア" in t and "魔導師置き場" in t and "被害エリア" in t)
    resources = reader.pages[page]["/Resources"]
    assert "/XObject" not in resources or not any(
        x.get_object().get("/Subtype") == "/Image" for x in resources["/XObject"].values())
    content = reader.pages[page].get_contents().get_data()
    assert content.count(b" re") + content.count(b" c\n") > 20  # rectangles / curves of the zones and cards
    en = squash("".join(texts["requiem", "en"]))
    for label in ("Enemy decks", "Arrival area", "Interception area", "City deck", "Mages' reserve", "Damage area"):
        assert squash(label) in en


def test_write_rulebooks_writes_both_languages(tmp_path):
    paths = write_rulebooks(load_game("llll"), tmp_path)
    assert [p.name for p in paths] == ["llll-rules-ja.pdf", "llll-rules-en.pdf"]
    for p in paths:
        assert p.read_bytes().startswith(b"%PDF-")


def _copy_game(tmp_path: Path, game_id: str = "llll") -> Path:
    target = tmp_path / game_id
    shutil.copytree(bundled_games_dir() / game_id, target)
    return target


def test_unknown_parameter_names_file_and_line(tmp_path):
    folder = _copy_game(tmp_path)
    (folder / "rules.ja.md").write_text("# 見出し\n\n本文\n\n開始時に{{ param('no_such_rule') }}点。\n\n{{ decisions() }}\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        build_rulebook(load_game(folder), "ja")
    message = str(info.value)
    assert "rules.ja.md:5" in message and "no_such_rule" in message


def test_rules_text_must_print_the_decisions(tmp_path):
    folder = _copy_game(tmp_path)
    (folder / "rules.en.md").write_text("# Rules\n\nPlay well.\n", encoding="utf-8")
    with pytest.raises(DataError, match="decisions"):
        build_rulebook(load_game(folder), "en")


def test_missing_rules_text_is_a_data_error(tmp_path):
    folder = _copy_game(tmp_path)
    (folder / "rules.en.md").unlink()
    with pytest.raises(DataError, match="rules.en.md"):
        build_rulebook(load_game(folder), "en")


def test_markdown_subset():
    blocks = parse_markdown("# A\n\npara one\ncontinued\n\n- item\n  more\n  - nested\n1. first\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n> note\n", "en")
    kinds = [(b.kind, b.level) for b in blocks]
    assert kinds == [("heading", 1), ("para", 0), ("item", 0), ("item", 1), ("item", 0), ("table", 0), ("note", 0)]
    assert blocks[1].text == "para one continued"
    assert blocks[2].text == "item more"
    assert blocks[5].rows == [["a", "b"], ["1", "2"]] and blocks[5].marker == "left,right"
    ja = parse_markdown("日本語の\n段落です。\n", "ja")
    assert ja[0].text == "日本語の段落です。"


def test_markdown_nests_under_numbered_items_and_keeps_emphasis():
    blocks = parse_markdown("2. Turns:\n  - (a) **Use** an ally.\n  - (b) *Pass*.\n3. End\\\nnow\n", "en")
    assert [(b.kind, b.level, b.marker) for b in blocks] == [("item", 0, "2."), ("item", 1, "-"), ("item", 1, "-"), ("item", 0, "3.")]
    assert blocks[1].text == "(a) **Use** an ally." and blocks[2].text == "(b) **Pass**."
    assert blocks[3].text == "End\nnow"


def test_markdown_directive_marker_is_its_own_block_with_its_line():
    text = "para\n@@BLOCK0.abc@@\n- item\n  @@BLOCK1.abc@@\n@@BLOCK2.xyz@@\n"
    blocks = parse_markdown(text, "en", "abc")
    assert [(b.kind, b.index, b.line) for b in blocks] == [("para", -1, 1), ("directive", 0, 2), ("item", -1, 3),
                                                           ("directive", 1, 4), ("para", -1, 5)]
    assert blocks[-1].text == "@@BLOCK2.xyz@@"  # a marker without the builder's nonce is only text


def test_markdown_raw_html_is_printed_as_typed():
    blocks = parse_markdown("<script>alert(1)</script>\n\nA <b>bold</b> claim.\n", "en")
    assert [b.text for b in blocks] == ["<script>alert(1)</script>", "A <b>bold</b> claim."]


def test_markdown_nesting_limit_is_a_data_error_at_its_line(tmp_path):
    folder = _copy_game(tmp_path)
    nested = "".join("  " * depth + "- level\n" for depth in range(8))
    (folder / "rules.en.md").write_text("# Rules\n\n" + nested + "\n{{ decisions() }}\n", encoding="utf-8")
    with pytest.raises(DataError, match="nest more than 6") as info:
        build_rulebook(load_game(folder), "en")
    assert "rules.en.md:9:" in str(info.value)  # the seventh level's line


def test_markdown_size_limit():
    with pytest.raises(MarkdownLimit, match="limit is 1,000,000"):
        parse_markdown("x" * 1_000_001, "en")


def test_japanese_lines_follow_kinsoku(texts):
    """No line of the rules text starts with a closing bracket or punctuation (the mapping appendix,
    drawn by cardgen.render.documents.standard_sheet with suit symbols between words, is left out)."""
    bad = "、。，．）」』】！？ー"
    for game_id in GAMES:
        pages = texts[game_id, "ja"]
        end = next((i for i, t in enumerate(pages) if i > 0 and any(l.startswith("付録") for l in t.splitlines()[:3])),
                   len(pages))
        for page in pages[:end]:
            for line in page.splitlines():
                stripped = line.strip()
                assert not stripped or stripped[0] not in bad, f"{game_id}: line starts with {stripped[0]!r}: {stripped[:30]}"


def test_inline_icons_in_the_rules_text_are_drawn_one_em_wide(tmp_path):
    folder = _copy_game(tmp_path)
    text = "# Rules\n\nGain one :medal: for each :heart: you hold.\n\n{{ decisions() }}\n"
    (folder / "rules.en.md").write_text(text, encoding="utf-8")
    with_icons = build_rulebook(load_game(folder), "en")
    (folder / "rules.en.md").write_text(text.replace(":medal:", "").replace(":heart:", ""), encoding="utf-8")
    without = build_rulebook(load_game(folder), "en")
    page = PdfReader(io.BytesIO(with_icons)).pages[1]
    words = page.extract_text()
    assert "Gain one" in words and ":medal:" not in words and ":heart:" not in words
    # each icon is vector paths (not text) in the content stream: more drawing than without them
    assert len(page.get_contents().get_data()) > len(PdfReader(io.BytesIO(without)).pages[1].get_contents().get_data())


def test_unknown_inline_icon_is_a_data_error_at_its_line(tmp_path):
    folder = _copy_game(tmp_path)
    (folder / "rules.en.md").write_text("# Rules\n\nPlay well.\n\nGain a :nosuchicon:.\n\n{{ decisions() }}\n", encoding="utf-8")
    with pytest.raises(DataError, match="nosuchicon") as info:
        build_rulebook(load_game(folder), "en")
    assert "rules.en.md:5:" in str(info.value)


def _lines(texts, game_id, lang) -> list[str]:
    return [line for page in texts[game_id, lang] for line in page.splitlines()]


def test_japanese_lines_keep_number_groups_and_doubled_phrases_whole(texts):
    """Issue 27: 「（4・|5）」 and 「気が|気でない」 split across lines in ohanatsumi's book."""
    lines = _lines(texts, "ohanatsumi", "ja")
    assert any("（4・5）" in line for line in lines)
    split = [line for game_id in GAMES for line in _lines(texts, game_id, "ja") if re.search(r"\d[・～：]$", line.rstrip())]
    assert split == []
    assert any("気が気でない" in line for line in lines)


def test_a_card_table_of_single_cards_has_no_count_column(texts):
    """ohanatsumi's quest table has one row per card (each its own back): a column of 1s is left out."""
    count = words.word("rulebook.count", "ja")
    headers = [line for line in _lines(texts, "ohanatsumi", "ja") if "尿意ノルマ" in line and "ボスイベント" in line]
    assert headers and all(count not in line for line in headers), headers
    # the component list still counts its cards
    assert any(count in line for line in _lines(texts, "ohanatsumi", "ja"))


@pytest.mark.parametrize("lang,inner", [("ja", ["（1）依頼に成功し", "（2）依頼に失敗した"]),
                                        ("en", ["a.Playerswhosucceeded", "b.Playerswhofailed"])])
def test_a_nested_numbered_list_numbers_its_inner_level_in_another_style(texts, lang, inner):
    """Issue 27: ohanatsumi's clean-up step 1 and its three sub-steps were all numbered 1./2./3."""
    flat = squash("".join(texts["ohanatsumi", lang]))
    for marker in inner:
        assert marker in flat
    assert squash("1.依頼に成功し" if lang == "ja" else "1.Players who succeeded") not in flat


def test_number_markers_by_level():
    from cardgen.render.documents.rulebook import number_marker

    assert [number_marker("3.", level, "ja") for level in range(3)] == ["3.", "（3）", "③"]
    assert [number_marker("3.", level, "en") for level in range(3)] == ["3.", "c.", "iii."]
    assert number_marker("3)", 0, "en") == "3)"
