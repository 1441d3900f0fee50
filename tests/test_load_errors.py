"""Each kind of bad input gives file:line:column and what to do, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.errors import DataError
from cardgen.load import load_game


def replace_line(path: Path, old: str, new: str) -> int:
    """Replace the first line equal (stripped) to `old`; return its 1-based line number."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if line.strip() == old:
            indent = line[: len(line) - len(line.lstrip())]
            lines[number - 1] = indent + new
            path.write_text("\n".join(lines), encoding="utf-8")
            return number
    raise AssertionError(f"line {old!r} not found in {path}")


def problems_of(folder: Path) -> list[str]:
    with pytest.raises(DataError) as info:
        load_game(str(folder))
    return [str(p) for p in info.value.problems]


def assert_problem(problems: list[str], filename: str, line: int, *words: str) -> None:
    pattern = re.compile(rf"{re.escape(filename)}:{line}:\d+: ")
    hits = [p for p in problems if pattern.search(p) and all(w in p for w in words)]
    assert hits, f"no problem at {filename}:{line} mentioning {words}; got {problems}"


def test_unknown_key(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "vp: 5", "victory: 5")
    assert_problem(problems_of(folder), "cards.yaml", line, "unknown field 'victory'", "card_fields")


def test_wrong_type(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "vp: 5", "vp: five")
    assert_problem(problems_of(folder), "cards.yaml", line, "vp", "whole number", "'five'")


def test_missing_field(game_copy):
    folder = game_copy("llll")
    replace_line(folder / "cards.yaml", "initial: N", "# initial removed")
    type_line = (folder / "cards.yaml").read_text(encoding="utf-8").split("\n").index("  - id: noble") + 1
    # Both noble cards lack it; the problem points at the card type that should carry it.
    assert_problem(problems_of(folder), "cards.yaml", type_line, "required field 'initial' is missing")


def test_count_differs_from_copies(game_copy):
    folder = game_copy("requiem")
    lines = (folder / "cards.yaml").read_text(encoding="utf-8").split("\n")
    # The mage type lists two copies; declare three.
    start = lines.index("  - id: mage")
    count_line = next(i for i in range(start, len(lines)) if lines[i].strip() == "count: 2") + 1
    lines[count_line - 1] = "    count: 3"
    (folder / "cards.yaml").write_text("\n".join(lines), encoding="utf-8")
    problems = problems_of(folder)
    assert_problem(problems, "cards.yaml", count_line, "count is 3 but 2 copies are listed")


def test_declared_total_differs(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "total: 32", "total: 31")
    assert_problem(problems_of(folder), "cards.yaml", line, "total is 31", "32 cards")


def test_duplicate_type_id(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "- id: noble", "- id: princess")
    assert_problem(problems_of(folder), "cards.yaml", line, "'princess' is used twice")


def test_duplicate_card_id(game_copy):
    folder = game_copy("requiem")
    text = (folder / "cards.yaml").read_text(encoding="utf-8")
    text = text.replace("      - {suit: hourglass}\n      - {suit: coffin}\n", "      - {suit: hourglass, id: RQ01}\n      - {suit: coffin}\n", 1)
    (folder / "cards.yaml").write_text(text, encoding="utf-8")
    problems = problems_of(folder)
    assert any("card id 'RQ01' is used twice" in p and re.search(r"cards\.yaml:\d+:\d+", p) for p in problems), problems


def test_missing_language(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "name: {ja: 貴族, en: Noble}", "name: {ja: 貴族}")
    assert_problem(problems_of(folder), "cards.yaml", line, "'en' text is missing")


def test_yaml_syntax_error(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "vp: 4", "vp: [4")
    problems = problems_of(folder)
    found = [int(m.group(1)) for p in problems if "YAML syntax error" in p
             for m in [re.search(r"cards\.yaml:(\d+):\d+", p)] if m]
    # The parser notices an unclosed bracket at or a few lines after where it opened.
    assert found and line <= found[0] <= line + 3, problems


def test_unsafe_tag_is_rejected(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "vp: 5", "vp: !!python/name:os.system")
    assert_problem(problems_of(folder), "cards.yaml", line, "tag", "not allowed")


def test_bad_enum_value(game_copy):
    folder = game_copy("requiem")
    line = replace_line(folder / "cards.yaml", "suit: coffin", "suit: diamonds")
    assert_problem(problems_of(folder), "cards.yaml", line, "'diamonds' is not one of")


def test_cli_reports_without_traceback(game_copy):
    folder = game_copy("llll")
    line = replace_line(folder / "cards.yaml", "vp: 5", "vp: five")
    result = CliRunner().invoke(cli, ["check", str(folder)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert re.search(rf"cards\.yaml:{line}:\d+: .*vp", result.output)


def test_unknown_game_is_a_clear_error():
    result = CliRunner().invoke(cli, ["check", "no-such-game"])
    assert result.exit_code == 1
    assert "no such game" in result.output and "llll" in result.output
