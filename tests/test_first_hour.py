"""The first hour of a new designer (issue 28): a copy to try a variant, a mapping that follows the
cards, messages that say what to do, and warnings said once. Run as a user would, as a subprocess."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image


def cardgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def new_game(tmp_path_factory) -> Path:
    """A game made by `cardgen new mygame`, made once; tests copy it before changing it."""
    where = tmp_path_factory.mktemp("new")
    made = cardgen("new", "mygame", cwd=where)
    assert made.returncode == 0, made.stderr
    return where / "mygame"


def copy_of(game: Path, where: Path, name: str = "mygame") -> Path:
    return Path(shutil.copytree(game, where / name))


def test_a_copy_under_another_folder_name_builds_named_by_the_folder(new_game, tmp_path):
    copy_of(new_game, tmp_path, "mg-try")
    checked = cardgen("check", "mg-try", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = cardgen("build", "mg-try", "--out", "out", "--only", "sheets", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "out" / "mg-try" / "mg-try-cards-a4.pdf").is_file()
    notes = [line for line in built.stdout.splitlines() if "game.yaml's id is 'mygame'" in line]
    assert len(notes) == 1 and "note:" in notes[0] and "'mg-try'" in notes[0]


def test_a_mapping_written_by_new_is_rewritten_for_changed_types_by_suggest(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    cards = game / "cards.yaml"
    text = cards.read_text(encoding="utf-8").replace("total: 12", "total: 16").replace("id: eclipse", "id: blackout")
    cards.write_text(text.replace("count: 2", "count: 6"), encoding="utf-8")  # six copies of power 5: more than one deck has
    before = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert before.returncode == 1
    stale = [line for line in before.stdout.splitlines() if "'eclipse' is not a card type" in line]
    assert stale and "run `cardgen mapping mygame --suggest`" in stale[0]

    suggested = cardgen("mapping", "mygame", "--suggest", cwd=tmp_path)
    assert suggested.returncode == 0, suggested.stdout + suggested.stderr
    assert (game / "mapping.yaml.bak").read_text(encoding="utf-8").count("eclipse") >= 1  # the designer's file is kept
    assert "needs 2 standard decks" in suggested.stdout
    after = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert after.returncode == 0, after.stdout
    built = cardgen("build", "mygame", "--out", "out", "--only", "standard", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "out" / "mygame" / "mygame-standard-deck.pdf").is_file()


def test_a_standard_card_used_too_often_says_to_run_suggest(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    cards = game / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("{power: 2}, {power: 4}, {power: 6}, {power: 8}, {power: 9}", ", ".join(["{power: 2}"] * 5)), encoding="utf-8")
    checked = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    over = [line for line in checked.stdout.splitlines() if "is used 5 times" in line]
    assert over and "raise decks to 5, or run `cardgen mapping mygame --suggest`" in over[0]


def test_a_colour_name_a_template_makes_that_the_layout_lacks_lists_the_defined_ones(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    layout = game / "templates" / "layout.yaml"
    layout.write_text(layout.read_text(encoding="utf-8").replace('fill: "{{ card.suit }}_tint"', 'fill: "star_tint"'), encoding="utf-8")
    checked = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    said = [line for line in checked.stdout.splitlines() if "star_tint" in line]
    assert said and "invalid literal" not in checked.stdout
    assert "(did you mean 'sun_tint'?)" in said[0] and "sun_tint, moon, moon_tint" in said[0]
    # the same name made by a template, for a new suit value
    layout.write_text(layout.read_text(encoding="utf-8").replace('fill: "star_tint"', 'fill: "{{ card.suit }}_tint"'), encoding="utf-8")
    game_yaml, cards = game / "game.yaml", game / "cards.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace("values: [sun, moon]", "values: [sun, moon, star]"), encoding="utf-8")
    cards.write_text(cards.read_text(encoding="utf-8").replace("suit: sun\n", "suit: star\n"), encoding="utf-8")
    checked = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    assert "invalid literal" not in checked.stdout
    said = [line for line in checked.stdout.splitlines() if "'star_tint' is not a colour" in line]
    assert said and "sun_tint, moon, moon_tint" in said[0] and "templates/layout.yaml:" in said[0]


def test_a_missing_text_in_a_spreadsheet_is_reported_at_its_cell_and_no_total_is_invented(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    exported = cardgen("export", "mygame", "--format", "csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    (game / "cards.yaml").unlink()
    rows = list(csv.reader(io.StringIO(exported.stdout)))
    header = rows[0]
    ability_ja, name_ja = header.index("ability_ja"), header.index("name_ja")
    for row in rows:
        if row[1] == "eclipse":
            row[ability_ja] = ""  # the English text stays in the next column
        if row[1] == "moon":
            row[name_ja] = ""  # a type without a name is dropped: the old code then "found" a wrong total
    with open(game / "cards.csv", "w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows(rows)
    first_eclipse = next(i for i, row in enumerate(rows, 1) if row[1] == "eclipse")
    first_moon = next(i for i, row in enumerate(rows, 1) if row[1] == "moon")
    checked = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    said = checked.stderr + checked.stdout
    assert f"cards.csv:{first_eclipse}:{ability_ja + 1}: card type 'eclipse'.ability: the 'ja' text is missing" in said
    assert f"cards.csv:{first_moon}:{name_ja + 1}: card type 'moon' name: the 'ja' text is missing" in said
    assert "total is" not in said


def test_an_unknown_template_helper_names_the_nearest_and_lists_the_helpers(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    rules = game / "rules.en.md"
    lines = rules.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "{{ component_list() }}" in text)
    lines[line - 1] = "{{ card_tabel() }}"
    rules.write_text("\n".join(lines) + "\n", encoding="utf-8")
    checked = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    said = [text for text in checked.stdout.splitlines() if "card_tabel" in text]
    assert len(said) == 1 and f"rules.en.md:{line}:1:" in said[0]
    assert "did you mean 'card_table'?" in said[0]
    assert "component_list()" in said[0] and "card_table()" in said[0]


def test_an_overflow_is_reported_once_per_type_with_its_copies(new_game, tmp_path):
    game = copy_of(new_game, tmp_path)
    cards = game / "cards.yaml"
    too_long = "When played, " + "discard one card and draw two cards, then " * 12 + "end."
    cards.write_text(cards.read_text(encoding="utf-8").replace(
        "    count: 5\n    suit: sun\n", f"    count: 5\n    suit: sun\n    ability: {{ja: 長い。, en: \"{too_long}\"}}\n"), encoding="utf-8")
    built = cardgen("build", "mygame", "--out", "out", "--only", "sheets", "--workers", "1", "--lang", "en", cwd=tmp_path)
    assert built.returncode == 1
    said = [line for line in built.stderr.splitlines() if "does not fit" in line]
    assert len(said) == 1, said
    sun_line = next(i for i, line in enumerate(cards.read_text(encoding="utf-8").splitlines(), 1) if line.strip() == "- id: sun")
    assert "card type 'sun' (front, 5 copies: sun-1–sun-5)" in said[0] and f"cards.yaml:{sun_line}:" in said[0]


def test_low_resolution_art_from_card_fields_is_one_warning_at_the_layout_line_that_places_it(tmp_path):
    game = Path(shutil.copytree(Path(__file__).parent / "fixtures" / "art_game", tmp_path / "art_game"))
    Image.new("RGB", (200, 100), (220, 0, 0)).save(game / "art" / "halves.png")  # each card names its own art file
    Image.new("RGB", (120, 80), (0, 60, 200)).save(game / "art" / "blue.jpg")
    layout_line = next(i for i, line in enumerate((game / "templates" / "layout.yaml").read_text(encoding="utf-8").splitlines(), 1)
                       if 'src: "{{ card.art }}"' in line)
    checked = cardgen("check", "art_game", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    warned = [line for line in checked.stdout.splitlines() if "dpi" in line]
    assert len(warned) == 1, warned
    assert f"templates/layout.yaml:{layout_line}:" in warned[0]
    assert "'art/halves.png' at 85 dpi" in warned[0] and "'art/blue.jpg'" in warned[0] and "px for this box" in warned[0]


def test_a_copy_may_not_take_a_bundled_games_name(new_game, tmp_path):
    copy_of(new_game, tmp_path, "llll")
    checked = cardgen("check", "llll", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    assert "folder name 'llll', which is a bundled game's id; rename the folder" in checked.stdout + checked.stderr
