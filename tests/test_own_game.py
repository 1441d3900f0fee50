"""A game folder holds everything it needs: a copy of any bundled game's folder builds anywhere,
its templates are found in the folder first, and a build says which optional outputs it skipped."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from cardgen.build import check_outputs
from cardgen.cli import cli
from cardgen.io.paths import bundled_templates
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED


def copy_game(game_id: str, where: Path, new_id: str | None = None) -> Path:
    """The bundled game's folder alone (none of its templates), optionally renamed with its id."""
    target = where / (new_id or game_id)
    shutil.copytree(bundled_games_dir() / game_id, target)
    if new_id:
        game_yaml = target / "game.yaml"
        game_yaml.write_text(re.sub(rf"(?m)^id: {game_id}$", f"id: {new_id}", game_yaml.read_text(encoding="utf-8")), encoding="utf-8")
    return target


@pytest.mark.parametrize("game_id", BUNDLED)
def test_a_copied_bundled_folder_lays_out_everything(game_id, tmp_path):
    folder = copy_game(game_id, tmp_path / "elsewhere")
    results = check_outputs(load_game(folder))
    failed = [f"{r.location}: {r.message}" for r in results if not r.ok]
    assert not failed
    assert any(r.id == "build" and r.ok for r in results)


def test_a_copied_bundled_folder_builds_from_the_command_line(tmp_path, monkeypatch):
    folder = copy_game("alice", tmp_path / "games")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(out), "--workers", "1", "--only", "rules",
                                      "--only", "playtest", "--only", "sheets"])
    assert result.exit_code == 0, result.output
    for name in ("alice-rules-ja.pdf", "alice-rules-en.pdf", "alice-playtest.pdf", "alice-cards-a4.pdf"):
        pdf = PdfReader(out / "alice" / name)
        assert len(pdf.pages) >= 1
    # the rulebook has its figures (bundled for the id 'alice'): the setup figure's caption is printed
    text = "".join(page.extract_text() for page in PdfReader(out / "alice" / "alice-rules-en.pdf").pages)
    assert "Figure 1" in text


def test_a_renamed_copy_is_told_how_to_become_its_own_game(tmp_path):
    folder = copy_game("llll", tmp_path)
    renamed = folder.rename(tmp_path / "mine")
    result = CliRunner().invoke(cli, ["check", str(renamed), "--no-simulate"])
    assert result.exit_code == 1
    assert "id 'llll' differs from the folder name 'mine'" in result.output
    assert "cardgen new mine --from llll" in result.output


def test_a_renamed_game_without_figures_fails_at_the_line_that_calls_for_them(tmp_path):
    folder = copy_game("llll", tmp_path, new_id="mine")
    (folder / "templates").mkdir()
    shutil.copy(bundled_templates() / "llll" / "layout.yaml", folder / "templates" / "layout.yaml")  # only the figures are missing
    lines = (folder / "rules.ja.md").read_text(encoding="utf-8").splitlines()
    call = next(i for i, line in enumerate(lines, 1) if "setup_figure()" in line)
    failed = [r for r in check_outputs(load_game(folder)) if not r.ok and "figures" in r.message]
    assert failed and failed[0].location.path.endswith("rules.ja.md") and failed[0].location.line == call
    assert "templates/figures.yaml" in failed[0].message


def test_the_game_folder_templates_come_first(tmp_path):
    """A renamed copy with the bundled layout, figures and playtest spec in its own templates/ is whole again."""
    folder = copy_game("llll", tmp_path, new_id="mine")
    own = folder / "templates"
    own.mkdir()
    shutil.copy(bundled_templates() / "rulebook" / "figures" / "llll.yaml", own / "figures.yaml")
    for name in ("layout.yaml", "playtest.yaml"):
        shutil.copy(bundled_templates() / "llll" / name, own / name)
    results = check_outputs(load_game(folder))
    assert [r for r in results if not r.ok] == []
    notes = [r.message for r in results if r.id == "optional-output"]
    assert notes == ["balance report (cardgen report) unavailable: no templates/report.yaml"]


def test_build_and_check_say_which_optional_output_they_skipped(tmp_path, monkeypatch):
    folder = copy_game("alice", tmp_path, new_id="mine")
    (folder / "rules.ja.md").write_text("# ルール\n\n遊び方。\n", encoding="utf-8")
    (folder / "rules.en.md").write_text("# Rules\n\nHow to play.\n", encoding="utf-8")
    (folder / "mapping.yaml").unlink()
    monkeypatch.chdir(tmp_path)
    built = CliRunner().invoke(cli, ["build", str(folder), "--out", "out", "--workers", "1", "--only", "playtest", "--only", "standard"])
    assert built.exit_code == 0, built.output
    assert "note: playtest kit skipped: no templates/playtest.yaml" in built.output
    assert "note: standard-deck sheet skipped: no mapping.yaml" in built.output
    assert not (tmp_path / "out" / "mine").exists() or not list((tmp_path / "out" / "mine").glob("*.pdf"))
    checked = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    assert "optional-output: playtest kit skipped: no templates/playtest.yaml" in checked.output
    assert "optional-output: cards use the generic layout: no templates/layout.yaml" in checked.output


# --- cardgen new ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cards", ["yaml", "csv", "xlsx"])
def test_a_new_game_checks_and_builds_as_generated(cards, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    made = runner.invoke(cli, ["new", "mygame", "--cards", cards])
    assert made.exit_code == 0, made.output
    folder = tmp_path / "mygame"
    lists = sorted(p.name for p in folder.iterdir() if p.name.startswith("cards."))
    assert lists == [f"cards.{cards}"]
    for name in ("game.yaml", "rules.ja.md", "rules.en.md", "mapping.yaml", "templates/layout.yaml", "art/sun.svg", "icons/sun.svg"):
        assert (folder / name).is_file(), name
    checked = runner.invoke(cli, ["check", "mygame"])
    assert checked.exit_code == 0, checked.output
    assert "optional-output: playtest kit skipped" in checked.output
    assert "warn" not in checked.output  # a new game starts clean: no style finding in its sample texts
    built = runner.invoke(cli, ["build", "mygame", "--workers", "1", "--only", "sheets", "--only", "rules", "--only", "standard",
                                "--only", "png"])
    assert built.exit_code == 0, built.output
    out = tmp_path / "output" / "mygame"
    sheets = PdfReader(out / "mygame-cards-a4.pdf")
    assert len(sheets.pages) == 5  # 12 cards: two fronts, two backs, and the card checklist
    assert "太陽" in sheets.pages[0].extract_text()
    # the eclipse's ability holds an icon (icons/sun.svg): drawn, not printed as its markup
    eclipse = sheets.pages[2].extract_text()
    assert "出したとき、" in eclipse and ":sun:" not in eclipse
    # the image box draws art/sun.svg: the middle of the art box (x = W/2, y = 20 + 36/2 mm; 1/8 in bleed, 300 dpi)
    from PIL import Image

    face = Image.open(out / "png" / "sun-1-front.png").convert("RGB")
    px = lambda mm: round((mm + 3.175) / 25.4 * 300)  # noqa: E731
    assert face.getpixel((px(63.5 / 2), px(38))) == (0xE8, 0xA3, 0x3D)
    assert "A sample game for 2–4 players with 12 cards" in PdfReader(out / "mygame-rules-en.pdf").pages[1].extract_text()
    assert (out / "mygame-standard-deck.pdf").is_file()


def test_a_new_game_from_a_bundled_one_is_its_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["new", "letters", "--from", "llll"])
    assert made.exit_code == 0, made.output
    folder = tmp_path / "letters"
    assert sorted(p.name for p in (folder / "templates").iterdir()) == ["figures.yaml", "layout.yaml", "playtest.yaml", "report.yaml"]
    game = load_game(folder)
    assert game.id == "letters" and game.total == 32
    # it no longer needs the bundled templates of 'llll': each is found in its own folder
    from cardgen.io.paths import game_template
    for name in ("layout.yaml", "figures.yaml", "playtest.yaml", "report.yaml"):
        assert game_template(game, name) == folder / "templates" / name
    assert [r for r in check_outputs(game) if not r.ok] == []


def test_new_refuses_what_it_cannot_make(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    for args, message in ((["new", "taken"], "already exists"), (["new", "bad name"], "may use only letters"),
                          (["new", "x", "--from", "nope"], "no such bundled game")):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and message in result.output, result.output
    assert (tmp_path / "taken" / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / "x").exists() and not list(tmp_path.glob(".*new"))
