"""Playtest kits, read back from the PDFs."""

from __future__ import annotations

import io
import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from cardgen.load import load_game
from cardgen.render.documents.playtest import build_playtest

from .conftest import BUNDLED


def page_texts(pdf: bytes) -> list[str]:
    document = pdfium.PdfDocument(pdf)
    return [document[i].get_textpage().get_text_range() for i in range(len(document))]


def squash(text: str) -> str:
    return "".join(text.split())


# Fields each game's sheets must carry (from the issue), in both languages.
SHEET_FIELDS = {
    "llll": {"en": ["Round 8", "AP", "Score ★", "Tie-break 1", "Tie-break 2", "AP left ÷ 3"],
             "ja": ["第8ラウンド", "得点★", "同点時1", "同点時2", "残りAP÷3"]},
    "requiem": {"en": ["City deck", "Damage", "Princes fallen", "Volunteers (7) × 2", "Recruits (8) × 1",
                       "A Paean to the Future", "Requiem of the Wind", "The Requiem Does Not Reach"],
                "ja": ["王都山札の枚数", "被害", "戦死した王子", "義勇兵（7）の枚数×2", "未来への凱歌", "風の鎮魂歌"]},
    "alice": {"en": ["Record size", "Longest link", "Link bonus", "Score", "24"],
              "ja": ["記録の枚数", "最長リンク", "リンクボーナス", "スコア"]},
    "ohanatsumi": {"en": ["Quest", "Urge", "Outcome", "Restroom after", "Fame", "Next order", "Round 5"],
                   "ja": ["依頼", "尿意", "成否", "達成後トイレ", "名声", "次の順番", "第5ラウンド"]},
}


@pytest.mark.parametrize("game_id", BUNDLED)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_playtest_kit_carries_its_fields(game_id, lang):
    pdf = build_playtest(load_game(game_id), lang)
    text = squash("".join(page_texts(pdf)))
    for field in SHEET_FIELDS[game_id][lang]:
        assert squash(field) in text, (game_id, lang, field)
    feedback = {"ja": "プレイテスト・フィードバック", "en": "Playtest feedback"}[lang]
    assert squash(feedback) in text
    reader = PdfReader(io.BytesIO(pdf))
    for page in reader.pages:
        assert [round(float(v)) for v in page.mediabox[2:]] == [595, 842]  # A4 in points


def test_sheet_rows_follow_the_round_parameter(game_copy):
    folder = game_copy("llll")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("rounds: 8 ", "rounds: 9 "), encoding="utf-8")
    text = squash("".join(page_texts(build_playtest(load_game(str(folder)), "en"))))
    assert "Round9" in text


def test_token_sheet_holds_the_chips():
    pdf = build_playtest(load_game("ohanatsumi"), "en")
    page = next(t for t in page_texts(pdf) if "Urge tokens × 60" in t)
    assert page.count("urge") >= 60


@pytest.mark.parametrize("game_id", BUNDLED)
def test_draft_deck_holds_every_card(game_id):
    game = load_game(game_id)
    pages = page_texts(build_playtest(game, "en"))
    draft = [t for t in pages if "Draft deck (low ink)" in t]
    text = "".join(draft)
    for card in game.cards:
        assert card.id in text and card.name.en in text


def test_draft_deck_keeps_quest_backs_on_back_pages():
    game = load_game("ohanatsumi")
    pages = [t for t in page_texts(build_playtest(game, "en")) if "Draft deck (low ink)" in t]
    quest = game.cards_of(game.card_types[0].id)[0]
    boss = squash(quest.get("boss_text").en)[:30]
    fronts = [squash(t) for t in pages if "fronts" in t]
    backs = [squash(t) for t in pages if "backs" in t]
    assert not any(boss in t for t in fronts), "a quest's hidden back must not print on its front"
    assert any(boss in t for t in backs)


def test_draft_deck_is_grayscale():
    document = pdfium.PdfDocument(build_playtest(load_game("requiem"), "en"))
    draft_pages = [i for i in range(len(document)) if "Draft deck" in document[i].get_textpage().get_text_range()]
    image = document[draft_pages[0]].render(scale=0.5).to_pil().convert("RGB")
    red, green, blue = image.split()
    assert red.tobytes() == green.tobytes() == blue.tobytes()


def test_playtest_pdf_is_deterministic_and_embeds_fonts():
    game = load_game("alice")
    first, second = build_playtest(game, "ja"), build_playtest(game, "ja")
    assert first == second
    fonts = set()
    for page in PdfReader(io.BytesIO(first)).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            assert font["/Subtype"] == "/TrueType", font  # no unembedded standard font like Helvetica
            assert "/FontFile2" in font["/FontDescriptor"].get_object()  # embedded TrueType
            fonts.add(str(font["/BaseFont"]))
    assert any("IPAexGothic" in f for f in fonts)


def test_a_sheet_text_naming_an_unknown_parameter_is_a_clear_error(tmp_path):
    import shutil

    from cardgen.errors import CardgenError
    from cardgen.load import bundled_games_dir, package_root

    folder = tmp_path / "llll"
    shutil.copytree(bundled_games_dir() / "llll", folder)
    shutil.copytree(package_root() / "templates" / "llll", folder / "templates")
    spec = folder / "templates" / "playtest.yaml"
    text = spec.read_text(encoding="utf-8")
    line = next(n for n, l in enumerate(text.splitlines(), 1) if "param('starting_action_points')" in l and "en:" in l)
    spec.write_text(text.replace("param('starting_action_points')", "param('starting_points')"), encoding="utf-8")
    with pytest.raises(CardgenError) as info:
        build_playtest(load_game(str(folder)), "en")
    message = str(info.value)
    assert f"playtest.yaml:{line}:" in message and "starting_points" in message
    assert "Traceback" not in message


def rounds_shown(pdf: bytes) -> list[int]:
    import re

    return sorted({int(m) for t in page_texts(pdf) for m in re.findall(r"^Round (\d+)\s*$", t, re.M)})


def test_round_sheet_has_the_longest_games_rounds():
    from cardgen.engine.ohanatsumi import rounds_by_players

    game = load_game("ohanatsumi")
    longest = max(rounds_by_players(game).values())
    assert longest == 10   # 20 quests, 2 on offer for 1 player and 2 players
    assert rounds_shown(build_playtest(game, "en")) == list(range(1, longest + 1))


def test_round_sheet_follows_the_quests_on_offer(game_copy):
    folder = game_copy("ohanatsumi")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    assert "quests_on_offer: {multiplayer: players, solo: 2}" in text
    path.write_text(text.replace("quests_on_offer: {multiplayer: players, solo: 2}",
                                 "quests_on_offer: {multiplayer: players, solo: 1}"), encoding="utf-8")
    assert rounds_shown(build_playtest(load_game(str(folder)), "en")) == list(range(1, 21))


def test_each_round_has_a_row_for_every_player_whose_game_reaches_it(game_copy, tmp_path):
    """Rows labelled P1..Pn (a copy of the sheet) read back per round: 5 players play 4 rounds,
    4 players 5, 3 players 7, 1-2 players 10."""
    import re
    import shutil

    from cardgen.engine.ohanatsumi import rounds_by_players
    from cardgen.load import package_root

    folder = game_copy("ohanatsumi")
    shutil.copytree(package_root() / "templates" / "ohanatsumi", folder / "templates")
    spec = folder / "templates" / "playtest.yaml"
    text = spec.read_text(encoding="utf-8")
    assert 'rows: {count: players_in_round, label: {ja: "", en: ""}}' in text
    spec.write_text(text.replace('rows: {count: players_in_round, label: {ja: "", en: ""}}',
                                 'rows: {count: players_in_round, label: {ja: "P{{ n }}", en: "P{{ n }}"}}'), encoding="utf-8")
    game = load_game(str(folder))
    rounds = rounds_by_players(game)
    text = "\n".join(page_texts(build_playtest(game, "en")))
    blocks = re.split(r"^Round (\d+)\s*$", text, flags=re.M)[1:]
    seen = {}
    for number, body in zip(blocks[::2], blocks[1::2]):
        body = body.split("Final tally")[0]
        seen[int(number)] = len(re.findall(r"^P\d+\s*$", body, re.M))
    assert seen == {n: max(p for p, r in rounds.items() if r >= n) for n in range(1, max(rounds.values()) + 1)}


@pytest.mark.parametrize("lang, heading, head", [("en", "Round {n}", "Quest"), ("ja", "第{n}ラウンド", "依頼")])
def test_a_round_heading_is_on_the_page_of_its_table(lang, heading, head):
    pages = page_texts(build_playtest(load_game("ohanatsumi"), lang))
    for n in range(1, 11):
        title = heading.format(n=n)
        page = next(p for p in pages if any(line.strip() == title for line in p.splitlines()))
        after = page[page.index(title) + len(title):]
        assert head in after, (title, "its table starts on another page")


def test_totals_rows():
    requiem = "\n".join(page_texts(build_playtest(load_game("requiem"), "en")))
    assert "24\r\nTotal" in requiem or "24\nTotal" in requiem
    ohanatsumi = "\n".join(page_texts(build_playtest(load_game("ohanatsumi"), "en")))
    assert "Final tally" in ohanatsumi and "Total fame" in ohanatsumi


def lowest_ink_mm(pdf: bytes, page_index: int) -> float:
    """The lowest point (mm from the bottom edge) of anything drawn on a page above its footer."""
    page = pdfium.PdfDocument(pdf)[page_index]
    bottoms = [obj.get_bounds()[1] for obj in page.get_objects(max_depth=2)]
    return min(b for b in bottoms if b > 12 * 72 / 25.4) * 25.4 / 72


@pytest.mark.parametrize("game_id", BUNDLED)
def test_score_sheets_use_their_page(game_id):
    """The first sheet's rows grow to fill its page: less than an eighth of the page left blank."""
    pdf = build_playtest(load_game(game_id), "en")
    assert lowest_ink_mm(pdf, 0) - 15 < 297 / 8


@pytest.mark.parametrize("game_id", BUNDLED)
def test_no_item_carries_two_markers(game_id):
    import re

    for lang in ("ja", "en"):
        text = "\n".join(page_texts(build_playtest(load_game(game_id), lang)))
        assert not re.findall(r"[・•]\s*[（(][a-z0-9]+[）)]|[・•]\s*[・•]", text), (game_id, lang)


def test_round_counts_without_an_engine_that_knows_them_are_refused_at_their_line(game_copy):
    import shutil

    from cardgen.errors import CardgenError
    from cardgen.load import package_root

    folder = game_copy("llll")
    shutil.copytree(package_root() / "templates" / "llll", folder / "templates")
    spec = folder / "templates" / "playtest.yaml"
    text = spec.read_text(encoding="utf-8")
    line = next(n for n, l in enumerate(text.splitlines(), 1) if "count: rounds," in l)
    spec.write_text(text.replace("count: rounds,", "count: most_rounds,"), encoding="utf-8")
    with pytest.raises(CardgenError) as info:
        build_playtest(load_game(str(folder)), "en")
    assert f"playtest.yaml:{line}:" in str(info.value) and "most_rounds" in str(info.value)


@pytest.mark.parametrize("game_id", BUNDLED)
def test_a_measuring_pass_moves_past_a_block_that_fits_as_drawing_it_would(game_id):
    """_row_scale measures a sheet on scratch pages; a block that fits on one page is not laid out a
    second time there, only passed over (it takes the same room wherever it starts). Checked for
    every block of every sheet, from the top of a page and from a lower start."""
    from cardgen.render.documents import playtest

    game = load_game(game_id)
    spec, _ = playtest.load_playtest(game)
    checked = 0
    for sheet in spec.get("sheets", []):
        for block in sheet.get("blocks", []):
            if "text" in block:
                continue
            for lowered in (0.0, 60.0):
                a, b = playtest._scratch(game, "ja", "a4"), playtest._scratch(game, "ja", "a4")
                a.y -= lowered
                b.y -= lowered
                playtest._draw_block(a, game, "ja", block)       # measured, then passed over when it fits
                b.draws = True                                   # the same block laid out in full on a page that draws
                playtest._draw_block(b, game, "ja", block)
                assert (a.page, round(a.y, 6)) == (b.page, round(b.y, 6)), (sheet.get("title"), block.keys())
                checked += 1
    assert checked


def test_draft_deck_of_a_game_with_generated_ids_prints_names_not_ids(tmp_path):
    """A `cardgen new` game's ids (sun-1) are internal: its draft deck shows the cards' names;
    a game's own card numbers (OH001) still print (test_draft_deck_holds_every_card)."""
    from cardgen.scaffold import new_game

    folder = new_game(tmp_path / "mygame")
    (folder / "templates").mkdir(exist_ok=True)
    (folder / "templates" / "playtest.yaml").write_text(
        "sheets:\n  - title: {ja: 記録, en: Score sheet}\n", encoding="utf-8")
    game = load_game(str(folder))
    assert not game.numbered
    draft = "".join(t for t in page_texts(build_playtest(game, "en")) if "Draft deck (low ink)" in t)
    for card in game.cards:
        assert card.name.en in draft
        assert card.id not in draft, card.id
