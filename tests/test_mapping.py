"""Standard playing-card mappings: validation, decks needed, corner indices and the reference sheet."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.errors import DataError
from cardgen.load import load_game
from cardgen.mapping import (
    StandardCard,
    corner_index,
    load_mapping,
    parse_standard_card,
)
from cardgen.render.documents.standard_sheet import build_standard_sheet, mapping_appendix_flowables, write_standard_sheet

FIXTURES = Path(__file__).parent / "fixtures"
BUNDLED = ("llll", "requiem", "alice", "ohanatsumi")


def problems(spec) -> list[str]:
    return [str(p) for p in load_mapping(load_game(str(spec))).problems]


def assert_problem(found: list[str], line: int, *words: str) -> None:
    pattern = re.compile(rf"mapping\.yaml:{line}:\d+: ")
    hits = [p for p in found if pattern.search(p) and all(w in p for w in words)]
    assert hits, f"no problem at mapping.yaml:{line} mentioning {words}; got {found}"


def edit(path: Path, old: str, new: str) -> int:
    """Replace the first line containing `old` (its whole text) with `new`; return its line number."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if old in line:
            lines[number - 1] = line.replace(old, new)
            path.write_text("\n".join(lines), encoding="utf-8")
            return number
    raise AssertionError(f"{old!r} not in {path}")


# --- the broken fixtures ----------------------------------------------------------------------

def test_fixture_duplicate_is_caught_with_its_position():
    found = problems(FIXTURES / "mapping_duplicate")
    assert len(found) == 1
    assert_problem(found, 5, "2♥", "used 2 times", "T02, T04", "1 standard deck", "map T04 to another standard card")


def test_fixture_missing_card_is_caught_with_its_position():
    found = problems(FIXTURES / "mapping_missing")
    assert len(found) == 1
    assert_problem(found, 4, "'queen'", "T05–T06", "neither mapped", "print: true")
    assert "cards.yaml:7:5" in found[0]  # where the type is defined


def test_fixture_changed_value_is_caught_with_its_position():
    found = problems(FIXTURES / "mapping_value")
    assert len(found) == 1
    assert_problem(found, 6, "T06", "rank 12", "K♥", "map it to a Q (12)")


@pytest.mark.parametrize("name", ["mapping_duplicate", "mapping_missing", "mapping_value"])
def test_cli_fails_on_a_broken_mapping(name):
    result = CliRunner().invoke(cli, ["mapping", str(FIXTURES / name)])
    assert result.exit_code == 1
    assert re.search(r"error: .*mapping\.yaml:\d+:\d+: ", result.output)
    assert "Traceback" not in result.output


def test_a_broken_mapping_prints_no_sheet():
    with pytest.raises(DataError) as info:
        build_standard_sheet(load_game(str(FIXTURES / "mapping_duplicate")), "en")
    assert "mapping.yaml:5:" in str(info.value)


# --- the bundled games ------------------------------------------------------------------------

@pytest.mark.parametrize("game_id", BUNDLED)
def test_bundled_mappings_are_valid(game_id):
    report = load_mapping(load_game(game_id))
    assert report.ok, report.problems
    assert len(report.entries) == load_game(game_id).total
    assert report.decks == report.decks_needed


@pytest.mark.parametrize("game_id, decks", [("llll", 1), ("requiem", 2), ("alice", 1), ("ohanatsumi", 2)])
def test_decks_needed_from_the_cli(game_id, decks):
    result = CliRunner().invoke(cli, ["mapping", game_id, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["decks_needed"] == decks
    assert data["ok"] is True


def test_requiem_needs_two_decks_because_of_its_seven_sevens():
    report = load_mapping(load_game("requiem"))
    sevens = [e for e in report.entries if e.standard.rank == 7]
    assert len(sevens) == 7
    assert max(report.usage().values()) == 2
    assert report.decks_needed == 2


def test_requiem_ranks_are_its_values():
    game = load_game("requiem")
    report = load_mapping(game)
    for card in game.cards:
        assert report.entry(card.id).standard.rank == card.get("rank"), card.id


def test_requiem_princes_and_mages_keep_their_suits():
    game = load_game("requiem")
    report = load_mapping(game)
    std = {c.id: report.entry(c.id).standard for c in game.cards}
    for prince in game.cards_of("prince"):
        mages = [m for m in game.cards_of("mage") if m.get("suit") == prince.get("suit")]
        for mage in mages:  # "the Mage of his suit" is the Q of the prince's standard suit
            assert std[mage.id].suit == std[prince.id].suit
    assert len({std[p.id].suit for p in game.cards_of("prince")}) == 3


def test_llll_fits_one_deck_and_each_type_has_its_own_ranks():
    game = load_game("llll")
    report = load_mapping(game)
    assert report.decks_needed == 1 and not report.must_print
    ranks_of: dict[str, set[int]] = {}
    for e in report.entries:
        ranks_of.setdefault(e.type_id, set()).add(e.standard.rank)
    seen: set[int] = set()
    for ranks in ranks_of.values():
        assert not ranks & seen
        seen |= ranks


def test_ohanatsumi_prints_quests_and_flowers_and_says_why():
    game = load_game("ohanatsumi")
    report = load_mapping(game)
    printed = {e.type_id for e in report.must_print}
    assert all(game.card_type(t).fields.get("deck") in ("quest", "flower") for t in printed)
    assert all(e.reason for e in report.must_print)
    events = [e for e in report.mapped]
    assert len(events) == sum(1 for c in game.cards if c.get("deck") == "event")
    band = {1: range(1, 6), 2: range(6, 11), 3: range(11, 14)}
    cards = {c.id: c for c in game.cards}
    for e in events:
        assert e.standard.rank in band[cards[e.card_id].get("urge")]


# --- checks on edited copies ------------------------------------------------------------------

def test_two_types_on_one_standard_card(game_copy):
    folder = game_copy("llll")
    line = edit(folder / "mapping.yaml", "knight: {rank: 8", "knight: {rank: 7")
    found = problems(folder)
    assert_problem(found, line + 1, "7♠", "used 2 times", "LL15, LL19")  # the fortune tellers' line
    assert_problem(found, line + 1, "stands for two card types", "knight", "fortune_teller")


def test_a_recognise_rule_is_checked(game_copy):
    folder = game_copy("llll")
    edit(folder / "mapping.yaml", "knight: {rank: 8, suits: [S, H, D, C]}",
         "knight: {rank: 8, suits: [S, H, D, C], copies: {1: {card: 4S}}}")
    found = problems(folder)
    assert len(found) == 2, found  # no duplicate: 4♠ was free, but rank 4 is a maid's
    assert_problem(found, 7, "rank alone must tell the type", "rank 4", "knight (LL15)", "maid")
    assert_problem(found, 8, "rank alone must tell the vp", "rank 4")


def test_too_many_decks_declared(game_copy):
    folder = game_copy("requiem")
    line = edit(folder / "mapping.yaml", "decks: 2", "decks: 3")
    assert_problem(problems(folder), line, "needs only 2", "decks: 2")


def test_unmapped_game_suit(game_copy):
    folder = game_copy("requiem")
    edit(folder / "mapping.yaml", "    coffin: {suit: D", "    #coffin: {suit: D")
    found = problems(folder)
    assert any("coffin" in p and "add 'coffin: S'" in p for p in found), found


def test_schema_errors_name_the_position(game_copy):
    folder = game_copy("llll")
    line = edit(folder / "mapping.yaml", "maid: {cards: [2S,", "maid: {cards: [2X,")
    assert_problem(problems(folder), line, "'2X' is not a standard card")
    line = edit(folder / "mapping.yaml", "princess: {rank: K", "princess: {rank: Z")
    assert_problem(problems(folder), line, "'Z' is not a standard rank")
    line = edit(folder / "mapping.yaml", "decks: 1", "decks: 1\ndeck: 1")
    assert_problem(problems(folder), line + 1, "unknown key 'deck'")
    line = edit(folder / "mapping.yaml", "  noble: {rank: Q", "  nobel: {rank: Q")
    assert_problem(problems(folder), line, "'nobel' is not a card type")


def test_too_few_copies_listed(game_copy):
    folder = game_copy("llll")
    line = edit(folder / "mapping.yaml", "knight: {rank: 8, suits: [S, H, D, C]}", "knight: {rank: 8, suits: [S, H, D]}")
    assert_problem(problems(folder), line, "lists 3 suits", "4 copies")


def test_per_copy_override_and_print(game_copy):
    folder = game_copy("llll")
    edit(folder / "mapping.yaml", "maid: {cards: [2S, 2H, 2D, 2C, 3S, 3H, 3D, 3C, 4H, 4D]}",
         "maid: {cards: [2S, 2H, 2D, 2C, 3S, 3H, 3D, 3C, 4H, 4D], copies: {LL32: {card: 4S}, 1: {print: true}}}")
    report = load_mapping(load_game(str(folder)))
    assert report.ok, report.problems
    assert report.entry("LL32").standard == StandardCard(4, "spades")
    assert [e.card_id for e in report.must_print] == ["LL23"]


def test_a_game_without_mapping(game_copy):
    folder = game_copy("llll")
    (folder / "mapping.yaml").unlink()
    game = load_game(str(folder))
    assert corner_index(game, "LL01") is None
    assert mapping_appendix_flowables(game, "en") == []
    result = CliRunner().invoke(cli, ["mapping", str(folder)])
    assert result.exit_code == 1 and "mapping.yaml" in result.output and "missing" in result.output


# --- standard cards and corner indices --------------------------------------------------------

@pytest.mark.parametrize("text, rank, suit", [
    ("AS", 1, "spades"), ("10h", 10, "hearts"), ("QD", 12, "diamonds"), ("K♣", 13, "clubs"),
    ("JK", 0, None), ("JKR", 0, "red"), ("JKB", 0, "black"),
])
def test_parse_standard_card(text, rank, suit):
    assert parse_standard_card(text) == StandardCard(rank, suit)


@pytest.mark.parametrize("text", ["1X", "14S", "", "S10", "joker2"])
def test_parse_standard_card_rejects(text):
    assert parse_standard_card(text) is None


def test_corner_index():
    assert corner_index(load_game("llll"), "LL01") == ("K", "hearts")
    assert corner_index(load_game("requiem"), "RQ01") == ("K", "diamonds")
    assert corner_index(load_game("requiem"), "RQ29") == ("A", "spades")
    alice = load_game("alice")
    assert corner_index(alice, alice.cards_of("alice_white")[0]) == ("JK", None)
    ohana = load_game("ohanatsumi")
    assert corner_index(ohana, ohana.cards_of("quest_herbs")[0]) is None
    assert corner_index(ohana, ohana.cards_of("ev_brook")[0])[0] in {"A", "2", "3", "4", "5"}


# --- the reference sheet ----------------------------------------------------------------------

@pytest.mark.parametrize("game_id", BUNDLED)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_sheet_is_a_deterministic_a4_pdf_with_embedded_fonts(game_id, lang):
    pypdf = pytest.importorskip("pypdf")
    game = load_game(game_id)
    data = build_standard_sheet(game, lang)
    assert data.startswith(b"%PDF") and data == build_standard_sheet(game, lang)
    reader = pypdf.PdfReader(io.BytesIO(data))
    page = reader.pages[0]
    assert [round(float(v)) for v in page.mediabox[2:]] == [595, 842]
    fonts = set()
    for p in reader.pages:
        for font in p["/Resources"]["/Font"].values():
            font = font.get_object()
            fonts.add(str(font["/BaseFont"]))
            assert font["/Subtype"] != "/Type1", f"non-embedded standard font {font['/BaseFont']}"
    # Japanese in IPAex; English in the Latin face only, its headers, footers, tables and chips too (fonts by script)
    assert all(re.search("IPAex" if lang == "ja" else "Liberation(Sans|Serif)", f) for f in fonts), fonts
    text = "".join(p.extract_text() for p in reader.pages)
    assert game.title.get(lang) in text
    assert not set("♠♥♦♣") & set(text), "suits must be drawn as vector shapes, not font glyphs"


def test_sheet_names_decks_and_cards_in_the_language():
    pypdf = pytest.importorskip("pypdf")
    en = "".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(build_standard_sheet(load_game("requiem"), "en"))).pages)
    ja = "".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(build_standard_sheet(load_game("requiem"), "ja"))).pages)
    assert "Needs 2 standard decks" in en and "Slaughter King" in en
    assert "2組" in ja and "殺戮王" in ja


def test_write_standard_sheet(tmp_path):
    path = write_standard_sheet(load_game("llll"), "en", tmp_path)
    assert path == tmp_path / "llll" / "llll-standard-deck-en.pdf"  # English is llll's second language
    assert write_standard_sheet(load_game("llll"), "ja", tmp_path) == tmp_path / "llll" / "llll-standard-deck.pdf"
    assert path.read_bytes().startswith(b"%PDF")


def test_appendix_flowables_build_in_a_narrow_frame():
    from reportlab.lib.units import mm
    from reportlab.platypus import SimpleDocTemplate

    story = mapping_appendix_flowables(load_game("ohanatsumi"), "ja")
    assert story
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, leftMargin=40 * mm, rightMargin=40 * mm, invariant=1).build(story)
    assert buffer.getvalue().startswith(b"%PDF")
