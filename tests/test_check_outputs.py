"""`check` reads everything `build` and `report` read, so that a game passing check builds."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.io.paths import bundled_templates


def _check(folder) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    return result.exit_code, result.output


def test_check_lays_out_every_output_of_a_bundled_game(game_copy):
    code, output = _check(game_copy("alice"))
    assert code == 0, output
    assert "ok   build: every output lays out (ja, en)" in output


def test_report_spec_with_an_unknown_policy_fails_check_at_its_file(game_copy):
    folder = game_copy("llll")
    (folder / "templates").mkdir()
    text = (bundled_templates() / "llll" / "report.yaml").read_text(encoding="utf-8")
    assert "policies: [greedy]" in text
    (folder / "templates" / "report.yaml").write_text(text.replace("policies: [greedy]", "policies: [grreedy]", 1), encoding="utf-8")
    code, output = _check(folder)
    assert code == 1
    assert "game.yaml:1:1: report.yaml: run" in output and "'grreedy'" in output


def test_report_spec_typo_fails_check_at_its_line(game_copy):
    folder = game_copy("llll")
    (folder / "templates").mkdir()
    shutil.copy(bundled_templates() / "llll" / "report.yaml", folder / "templates" / "report.yaml")
    spec = folder / "templates" / "report.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("title:", "titel:", 1), encoding="utf-8")
    code, output = _check(folder)
    assert code == 1
    assert "report.yaml:" in output and "unknown key 'titel'" in output


def test_sandbox_refuses_internals_even_where_undefined_names_are_lenient():
    """Card layouts render leniently (a missing field prints nothing), but reaching for Python
    internals is refused there too, not silently printed as an empty string."""
    import pytest

    from cardgen.errors import DataError
    from cardgen.io import sandbox
    from cardgen.model import Location

    assert sandbox.render("[{{ missing }}]", {}, Location("layout.yaml", 3, 5), strict=False) == "[]"
    with pytest.raises(DataError, match=r"layout.yaml:3:5: .*'__init__'.* not allowed"):
        sandbox.render("{{ cycler.__init__ }}", {}, Location("layout.yaml", 3, 5), strict=False)


def test_undefined_name_passed_to_a_rulebook_directive_is_a_message_at_its_line(game_copy):
    """Found by the fuzz run (alice-5085): a directive receives an undefined name as an argument
    and runs only after the text is rendered; its error must still name the rules line."""
    folder = game_copy("alice")
    rules = folder / "rules.en.md"
    lines = rules.read_text(encoding="utf-8").split("\n")
    lines.insert(2, "{{ card_table(labels=no_such_labels) }}")
    rules.write_text("\n".join(lines), encoding="utf-8")
    code, output = _check(folder)
    assert code == 1
    assert "rules.en.md:3:1:" in output and "no_such_labels" in output
    assert "Traceback" not in output and "internal error" not in output


def _llll_with_small_initial(game_copy, floor: str | None):
    folder = game_copy("llll")
    (folder / "templates").mkdir()
    layout = (bundled_templates() / "llll" / "layout.yaml").read_text(encoding="utf-8")
    needle = 'text: "{{ card.initial }}", font: mincho, size: 22,'
    assert needle in layout
    layout = layout.replace(needle, 'text: "{{ card.initial }}", font: mincho, size: 5,')
    if floor:
        layout = f"text_floor: {floor}\n" + layout
    (folder / "templates" / "layout.yaml").write_text(layout, encoding="utf-8")
    return folder


def test_card_text_below_6_pt_is_a_warning_naming_the_box_and_its_line(game_copy):
    code, output = _check(_llll_with_small_initial(game_copy, None))
    assert code == 0, output
    warn = [line for line in output.splitlines() if line.startswith("  warn text-size:")]
    assert len(warn) == 1, output
    assert "layout.yaml:" in warn[0] and "text box 'initial' is printed at 5 pt" in warn[0]
    assert "card LL01 and 31 other card(s)" in warn[0]


def test_card_text_below_the_layouts_floor_fails_check(game_copy):
    code, output = _check(_llll_with_small_initial(game_copy, "5.5"))
    assert code == 1
    assert "FAIL text-size:" in output and "below the layout's text_floor 5.5 pt" in output


def test_a_closed_pipe_ends_quietly():
    """`cardgen list | head -1`: the reader goes away after the first line while the next game is
    still loading; the next line meets a closed pipe: no traceback, no 'internal error'."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    first = b""
    while not first.endswith(b"\n"):
        first += proc.stdout.read(1)
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert first.startswith(b"alice ")
    assert proc.wait(timeout=60) == 0, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr and "Exception ignored" not in stderr


def test_a_huge_number_in_a_rules_template_is_a_message_at_its_line(game_copy):
    """Found by the 2,000-case fuzz run (requiem-5226): Jinja's lexer raises ValueError, not a
    syntax error, for a number literal of more than 4,300 digits."""
    folder = game_copy("requiem")
    rules = folder / "rules.en.md"
    lines = rules.read_text(encoding="utf-8").split("\n")
    lines.insert(4, "{{ " + "1" * 5000 + " }}")
    rules.write_text("\n".join(lines), encoding="utf-8")
    code, output = _check(folder)
    assert code == 1 and "rules.en.md:5:" in output and "4300 digits" in output
    assert "Traceback" not in output and "internal error" not in output


def test_a_runaway_box_position_is_a_message_at_its_line(game_copy):
    folder = game_copy("llll")
    (folder / "templates").mkdir()
    layout = (bundled_templates() / "llll" / "layout.yaml").read_text(encoding="utf-8")
    needle = "at: [4.5, 4.5, 14, 14]"
    assert needle in layout
    line = layout[: layout.index(needle)].count("\n") + 1
    (folder / "templates" / "layout.yaml").write_text(layout.replace(needle, "at: [4.5, 4.5, 1e308*10, 14]", 1), encoding="utf-8")
    code, output = _check(folder)
    assert code == 1 and f"layout.yaml:{line}:" in output and "outside -1000..1000 mm" in output
