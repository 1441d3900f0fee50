"""The Japanese text style check (cardgen/style.py) in `cardgen check` and `check --fix-style`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen import style
from cardgen.checks import style_checks
from cardgen.cli import cli
from cardgen.load import bundled_game_ids, load_game

FIXTURE = Path(__file__).parent / "fixtures" / "style_game"

# (file, line, column, rule, found, replacement): each mixed case of the fixture, where it is.
EXPECTED = [
    ("game.yaml", 17, 7, "width", "０", "0"),
    ("game.yaml", 21, 18, "bracket", "(", "（"),
    ("game.yaml", 21, 20, "bracket", ")", "）"),
    ("game.yaml", 22, 16, "kana", "ｶｰﾄﾞ", "カード"),
    ("game.yaml", 22, 21, "width", "１", "1"),
    ("game.yaml", 25, 19, "ellipsis", "...", "……"),
    ("game.yaml", 25, 61, "ellipsis-en", "···", "..."),
    ("game.yaml", 27, 17, "dash", "—", "――"),
    ("game.yaml", 27, 22, "dash", "—", "――"),
    ("game.yaml", 29, 38, "bracket", "(", "（"),
    ("game.yaml", 29, 45, "bracket", ")", "）"),
    ("cards.yaml", 7, 19, "width", "Ａ", "A"),
    ("cards.yaml", 7, 21, "width", "Ｋ", "K"),
    ("rules.ja.md", 4, 28, "bracket", "(", "（"),
    ("rules.ja.md", 4, 30, "bracket", ")", "）"),
    ("rules.ja.md", 6, 5, "width", "３", "3"),
]


def _summary(findings):
    return [(Path(f.location.path).name, f.location.line, f.location.column, f.rule, f.found, f.replacement) for f in findings]


@pytest.fixture()
def style_game(tmp_path) -> Path:
    dest = tmp_path / "style_game"
    shutil.copytree(FIXTURE, dest)
    return dest


@pytest.mark.parametrize("game_id", bundled_game_ids())
def test_bundled_games_pass_the_style_check(game_id):
    game = load_game(game_id)
    assert style.game_findings(game) == []
    results = style_checks(game)
    assert [(r.ok, r.warning) for r in results] == [(True, False)]


def test_each_mixed_case_is_a_warning_at_its_line_and_column(style_game):
    game = load_game(style_game)
    assert _summary(style.game_findings(game)) == EXPECTED
    results = style_checks(game)
    assert all(r.ok and r.warning for r in results)
    first = results[0]
    assert first.location.path.endswith("game.yaml") and (first.location.line, first.location.column) == (17, 7)
    assert "「0」" in first.message and "「０」" in first.message


def test_the_positions_point_at_the_characters(style_game):
    """Line and column are those of the file as a person opens it."""
    for name, line, column, _rule, found, _ in EXPECTED:
        text = (style_game / name).read_text(encoding="utf-8").splitlines()[line - 1]
        assert text[column - 1:column - 1 + len(found)] == found, (name, line)


def test_text_that_is_not_printed_is_left_alone(style_game):
    """Comments, keys, Jinja code, link targets and inline code are not text of the game."""
    lines = {(f.location.path.rsplit("/", 1)[-1], f.location.line) for f in style.game_findings(load_game(style_game))}
    assert ("rules.ja.md", 1) not in lines          # a Jinja comment with (K) ０ ...
    assert ("game.yaml", 31) not in lines           # clean ja and an English aside after a Japanese quote
    markdown = [f for f in style.game_findings(load_game(style_game)) if f.location.path.endswith(".md")]
    assert all(f.location.line != 6 or f.rule == "width" for f in markdown)  # the link target a_(b), `code (x)`


def test_fix_style_rewrites_only_the_offending_characters(style_game):
    before = {name: (style_game / name).read_text(encoding="utf-8") for name in ("game.yaml", "cards.yaml", "rules.ja.md")}
    result = CliRunner().invoke(cli, ["check", str(style_game), "--no-simulate", "--fix-style"])
    assert result.exit_code == 0, result.output
    assert "game.yaml: 11 style finding(s) fixed" in result.stderr
    assert "style:" in result.output and "warn" not in result.output
    after = {name: (style_game / name).read_text(encoding="utf-8") for name in before}
    assert style.game_findings(load_game(style_game)) == []
    # every line without a finding is byte for byte the same, comments included
    for name, text in before.items():
        touched = {line for n, line, *_ in EXPECTED if n == name}
        for number, (old, new) in enumerate(zip(text.splitlines(), after[name].splitlines()), 1):
            assert (old == new) != (number in touched), (name, number, old, new)
    assert "summary:\n  ja: 0ポイントから始める。   # a full-width digit (width)" in after["game.yaml"]
    assert 'name: {ja: "王（K）", en: "King (K)"}' in after["game.yaml"]
    assert "note: {ja: カードを1枚引く" in after["game.yaml"]
    assert "en: \"And then there were none...\"" in after["game.yaml"]
    assert "{% set K = name('king') ~ '（K）' %}" in after["rules.ja.md"]
    assert "https://example.com/a_(b)" in after["rules.ja.md"]


def test_check_reports_findings_without_fixing(style_game):
    result = CliRunner().invoke(cli, ["check", str(style_game), "--no-simulate"])
    assert result.exit_code == 0  # warnings, not failures
    assert f"{style_game.name}/game.yaml:17:7: style (width)" in result.output.replace("\\", "/")
    assert (style_game / "game.yaml").read_text(encoding="utf-8") == (FIXTURE / "game.yaml").read_text(encoding="utf-8")
    strict = CliRunner().invoke(cli, ["check", str(style_game), "--no-simulate", "--strict"])
    assert strict.exit_code == 1


def test_fix_keeps_crlf_line_endings(style_game):
    path = style_game / "cards.yaml"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    style.fix_files(load_game(style_game))
    data = path.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert "AとKは相討ち".encode() in data


def test_bundled_templates_are_reported_not_rewritten(tmp_path):
    """A game that uses a bundled template gets its findings, but cardgen never rewrites its own files."""
    fixed = style.fix_files(load_game("llll"))
    assert fixed == []  # nothing to fix in the bundled games
    root = tmp_path / "llll"
    shutil.copytree(Path(load_game("llll").root), root)
    game = load_game(root)
    assert [p.name for p in style.style_files(game)][:3] == ["game.yaml", "cards.yaml", "mapping.yaml"]
    assert all(p.is_file() for p in style.style_files(game))
