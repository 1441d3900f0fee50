"""The four bundled games: counts from the sources, composition checks, list and export."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest
from click.testing import CliRunner

from cardgen.checks import check_game
from cardgen.cli import cli
from cardgen.load import bundled_game_ids, load_game

from .conftest import BUNDLED


def test_all_four_games_are_bundled():
    assert set(BUNDLED) <= set(bundled_game_ids())


@pytest.mark.parametrize("game_id", BUNDLED)
def test_composition_checks_pass(game_id):
    report = check_game(load_game(game_id), simulate=False)
    failed = [r for r in report.results if not r.ok]
    assert not failed, failed


def test_llll_counts_match_the_source():
    game = load_game("llll")
    expected = {"princess": (2, 5), "noble": (2, 4), "general": (2, 4), "magician": (4, 3),
                "priest": (4, 3), "knight": (4, 2), "fortune_teller": (4, 2), "maid": (10, 1)}
    assert {t.id: (t.count, t.fields["vp"]) for t in game.card_types} == expected
    assert [c.id for c in game.cards] == [f"LL{n:02d}" for n in range(1, 33)]
    assert game.param("starting_action_points") == 10
    assert game.param("rounds") == 8
    assert game.param("action_point_divisor") == 3
    assert game.param("set_aside_unseen")[3] == 8
    assert (game.min_players, game.max_players) == (3, 4)


def test_requiem_counts_match_the_source():
    game = load_game("requiem")
    assert game.total == 49
    sides = Counter(c.get("side") for c in game.cards)
    assert sides == {"ally": 28, "enemy": 21}
    by_rank = Counter(c.get("rank") for c in game.cards)
    assert by_rank == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 6, 9: 5, 10: 4, 11: 3, 12: 2, 13: 1}
    # Seven suits of seven consecutive ranks: suit k holds ranks k..k+6.
    for suit in game.param("suits"):
        ranks = sorted(c.get("rank") for c in game.cards if c.get("suit") == suit["id"])
        assert ranks == list(range(suit["first_rank"], suit["first_rank"] + 7)), suit["id"]
    princes = {c.get("suit") for c in game.cards_of("prince")}
    assert princes == {"medal", "hourglass", "coffin"}
    assert {c.get("suit") for c in game.cards_of("mage")} == {"hourglass", "coffin"}


def test_requiem_setup_arithmetic_is_checked():
    results = {r.id: r for r in check_game(load_game("requiem"), simulate=False).results}
    assert results["setup-initial-deal"].ok and "15 cards" in results["setup-initial-deal"].message
    assert results["setup-city-deck"].ok and "= 17 cards" in results["setup-city-deck"].message


def test_llll_setup_fails_when_rounds_change(game_copy):
    folder = game_copy("llll")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("rounds: 8 ", "rounds: 7 "), encoding="utf-8")
    results = {r.id: r for r in check_game(load_game(str(folder)), simulate=False).results}
    assert not results["setup-3p"].ok and not results["setup-4p"].ok


def test_check_exit_codes(game_copy):
    runner = CliRunner()
    ok = runner.invoke(cli, ["check", "llll", "requiem", "--no-simulate"])
    assert ok.exit_code == 0, ok.output
    assert "llll: ok" in ok.output
    folder = game_copy("llll")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("rounds: 8 ", "rounds: 9 "), encoding="utf-8")
    bad = runner.invoke(cli, ["check", str(folder), "--no-simulate", "--format", "json"])
    assert bad.exit_code == 1
    report = json.loads(bad.output)
    assert report[0]["ok"] is False
    assert any(c["id"] == "setup-3p" and not c["ok"] for c in report[0]["checks"])


def test_list_shows_titles_players_and_totals():
    result = CliRunner().invoke(cli, ["list"])
    assert result.exit_code == 0
    assert "Love Letter to Lady Luck" in result.output and "ラブレター・トゥ・レディ・ラック" in result.output
    assert "(3-4 players, 32 cards)" in result.output
    assert "(3 players, 49 cards)" in result.output


def test_export_json_has_one_object_per_card():
    result = CliRunner().invoke(cli, ["export", "requiem", "--format", "json"])
    assert result.exit_code == 0
    cards = json.loads(result.output)["cards"]
    assert len(cards) == 49
    king = next(c for c in cards if c["type"] == "king")
    assert king["name"] == {"ja": "王", "en": "King"}
    assert king["rank"] == 13 and king["side"] == "ally" and king["suit"] == "coffin"


def test_export_csv_to_file(tmp_path):
    target = tmp_path / "llll.csv"
    result = CliRunner().invoke(cli, ["export", "llll", "--format", "csv", "-o", str(target)])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert len(rows) == 32
    assert rows[0]["id"] == "LL01" and rows[0]["name_en"] == "Princess" and rows[0]["vp"] == "5"
    assert Counter(r["name_ja"] for r in rows)["侍女"] == 10


def test_game_outside_the_package(game_copy):
    folder = game_copy("requiem")
    result = CliRunner().invoke(cli, ["export", str(folder), "--format", "json"])
    assert result.exit_code == 0
    assert len(json.loads(result.output)["cards"]) == 49


def test_alice_has_the_sources_alices_and_every_colour_icon_pair():
    game = load_game("alice")
    alices = Counter((c.get("kind"), c.get("colour")) for c in game.cards if c.get("kind") != "investigation")
    assert alices == {("suspect", "red"): 1, ("suspect", "blue"): 1, ("suspect", "green"): 1,
                      ("detective", "white"): 1, ("nuisance", "black"): 1}
    pairs = Counter((c.get("colour"), c.get("icon")) for c in game.cards if c.get("kind") == "investigation")
    assert set(pairs) == {(colour, icon) for colour in ("red", "blue", "green") for icon in ("weapon", "place", "motive")}
    # The link-bonus table tops out at 15-18 cards: the deck holds enough investigation cards for it.
    assert sum(pairs.values()) >= max(row["max"] for row in game.param("link_bonus"))
    assert game.param("memo_limit") == 3
    assert [(r["min"], r["max"], r["bonus"]) for r in game.param("link_bonus")] == [
        (2, 3, 0), (4, 5, 1), (6, 7, 2), (8, 10, 4), (11, 12, 8), (13, 14, 12), (15, 18, 24)]


def test_ohanatsumi_quests_share_fronts_and_have_their_own_backs():
    game = load_game("ohanatsumi")
    quests = [c for c in game.cards if c.get("deck") == "quest"]
    kinds = {c.type_id for c in quests}
    assert 15 <= len(quests) <= 25 and 4 <= len(kinds) <= 6          # "about 20", "about five kinds"
    for kind in kinds:
        copies = [c for c in quests if c.type_id == kind]
        assert len({(c.get("events"), c.get("fame"), c.get("quest_text")) for c in copies}) == 1
        backs = {(c.get("boss_text"), c.get("urge_limit"), c.get("back_fame")) for c in copies}
        assert len(backs) == len(copies), f"{kind}: every copy needs its own back"
    # The source's two example backs of the egg delivery quest.
    egg = [(c.get("urge_limit"), c.get("back_fame")) for c in quests if c.get("events") == 3 and c.get("fame") == 3]
    assert (5, 3) in egg and (2, 6) in egg
    events = [c for c in game.cards if c.get("deck") == "event"]
    assert 80 <= len(events) <= 120 and {c.get("urge") for c in events} <= {1, 2, 3}
    flowers = [c for c in game.cards if c.get("deck") == "flower"]
    assert 8 <= len(flowers) <= 12 and {c.get("flower") for c in flowers} == {"restroom", "elf"}


def test_copy_count_icons_are_checked_against_the_layout(tmp_path):
    import shutil

    from cardgen.load import bundled_games_dir, package_root

    data = tmp_path / "card_data" / "llll"
    shutil.copytree(bundled_games_dir() / "llll", data)
    # the game's own layout: inside the game folder (templates/layout.yaml), and beside its
    # card_data/ where earlier versions looked for it
    layouts = [data / "templates" / "layout.yaml", tmp_path / "templates" / "llll" / "layout.yaml"]
    for layout in layouts:
        shutil.copytree(package_root() / "templates" / "llll", layout.parent)
    ok = {r.id: r for r in check_game(load_game(str(data)), simulate=False).results}
    assert ok["claim-copy-count-icons"].ok
    for layout in layouts:
        text = layout.read_text(encoding="utf-8")
        assert 'count: "{{ card.count }}"' in text
        layout.write_text(text.replace('count: "{{ card.count }}"', 'count: "{{ card.vp }}"'), encoding="utf-8")
    game = load_game(str(data))
    bad = {r.id: r for r in check_game(game, simulate=False).results}["claim-copy-count-icons"]
    assert not bad.ok and "LL01 shows 5, has 2" in bad.message
    # the failure points at the first card that shows the wrong count
    assert bad.location == game.cards[0].location and bad.location.path.endswith("cards.yaml")


def test_numbered_ids_with_a_gap_fail_the_check(game_copy):
    folder = game_copy("requiem")
    path = folder / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("      - {suit: hourglass}\n      - {suit: coffin}\n",
                                 "      - {suit: hourglass, id: RQ99}\n      - {suit: coffin}\n", 1), encoding="utf-8")
    game = load_game(str(folder))
    result = {r.id: r for r in check_game(game, simulate=False).results}["contiguous-ids"]
    assert not result.ok and "do not run 1..49" in result.message
    line = next(i for i, t in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1) if "RQ99" in t)
    assert "RQ99 is card" in result.message
    assert result.location.path.endswith("cards.yaml") and result.location.line == line


def test_every_failed_check_names_a_file_and_line(game_copy, monkeypatch):
    folder = game_copy("llll")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("rounds: 8", "rounds: 7", 1), encoding="utf-8")
    game = load_game(str(folder))
    failed = [r for r in check_game(game, simulate=True).results if not r.ok]
    assert {"setup-3p", "setup-4p", "random-sim-3p"} <= {r.id for r in failed}
    assert all(r.location is not None for r in failed), failed
    setup = {r.id: r for r in failed}["setup-3p"]
    assert setup.location == game.where("rounds") and setup.location.path.endswith("game.yaml")
    line = next(i for i, t in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1) if "rounds: 7" in t)
    assert setup.location.line == line
    # an engine check that crashes on data it did not foresee is a failed check at game.yaml, not a traceback
    from cardgen.engine import llll

    def broken(_game):
        raise KeyError("surprise")

    monkeypatch.setattr(llll.Rules, "setup_checks", staticmethod(broken))
    crashed = {r.id: r for r in check_game(game, simulate=False).results}["llll-setup_checks"]
    assert not crashed.ok and "KeyError" in crashed.message and crashed.location == game.where("game.yaml")
