"""The CLI's conventions, as a user meets them: -h, bare `cardgen`, --format json, colour only on a
terminal (and never under NO_COLOR), -q/-v, defaults from a cardgen.toml beside the game, and
completion of the game argument."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from cardgen.cli import cli


def run(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, **(env or {})}
    return subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=full_env)


def without_timing(out: str) -> list[str]:
    """simulate's and sweep's results without their last line, which says how long the run took."""
    return out.splitlines()[:-1]


def test_bare_cardgen_prints_help_and_succeeds():
    done = run()
    assert done.returncode == 0, done.stderr
    assert "Usage: cardgen" in done.stdout and "build" in done.stdout


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_dash_h_is_help_on_every_command(command):
    result = CliRunner().invoke(cli, [command, "-h"])
    assert result.exit_code == 0, result.output
    assert f"cli {command} [OPTIONS]" in result.output
    assert "-h, --help" in result.output


def test_list_as_json():
    done = run("list", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {"alice", "llll"} <= {row["id"] for row in rows}
    assert all(row["cards"] > 0 and row["min_players"] <= row["max_players"] for row in rows)


def test_build_as_json_lists_files_written_and_skipped_with_why(game_copy, tmp_path):
    game = game_copy("alice")
    (game / "mapping.yaml").unlink()
    out = tmp_path / "out"
    done = run("build", str(game), "--out", str(out), "--only", "rules", "--only", "standard", "--format", "json")
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)
    assert result["game"] == "alice"
    assert result["files"] and all(Path(f).is_file() for f in result["files"])
    assert any("standard-deck sheet skipped" in why for why in result["skipped"]), result["skipped"]


def test_warn_and_fail_are_coloured_on_a_terminal_only_and_never_under_no_color(game_copy):
    game = game_copy("alice")
    cards = game / "cards.yaml"  # a full-width digit: a style warning (a failure with --strict)
    cards.write_text(cards.read_text(encoding="utf-8").replace("凶眼の持ち主", "凶眼の持ち主１"), encoding="utf-8")
    args = ["check", str(game), "--no-simulate"]
    coloured = CliRunner().invoke(cli, args, color=True)
    strict = CliRunner().invoke(cli, [*args, "--strict"], color=True)
    plain = CliRunner(env={"NO_COLOR": "1"}).invoke(cli, args, color=True)
    assert any("\x1b[33mwarn\x1b[0m style:" in line for line in coloured.output.splitlines()), coloured.output
    assert any("FAIL\x1b[0m style:" in line for line in strict.output.splitlines()), strict.output
    assert " ok " in coloured.output and "\x1b[33mok" not in coloured.output  # only the marks that need attention
    assert " warn style:" in plain.output and "\x1b[" not in plain.output
    piped = run(*args)  # not a terminal: no colour either
    assert " warn style:" in piped.stdout and "\x1b[" not in piped.stdout


def test_quiet_hides_notes_and_verbose_lists_every_file(game_copy, tmp_path):
    game = game_copy("alice")
    (game / "mapping.yaml").unlink()
    args = ("build", str(game), "--out", str(tmp_path / "out"), "--only", "rules", "--only", "standard")
    normal, quiet, verbose = run(*args), run("-q", *args), run("-v", *args)
    assert normal.returncode == quiet.returncode == verbose.returncode == 0
    assert "note: standard-deck sheet skipped" in normal.stdout
    assert "note:" not in quiet.stdout and "Building decks" not in quiet.stderr
    assert "wrote " in verbose.stdout and "wrote " not in normal.stdout


def test_cardgen_toml_beside_the_game_gives_defaults(game_copy, tmp_path):
    game = game_copy("alice")
    (tmp_path / "cardgen.toml").write_text('[tool.cardgen]\nout = "printed"\npaper = "letter"\n', encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run("build", str(game), "--only", "rules", "--format", "json", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)
    assert Path(result["out_dir"]) == tmp_path / "printed" / "alice"  # `out` is relative to the cardgen.toml
    rules = next(f for f in result["files"] if f.endswith(".pdf"))
    assert round(float(PdfReader(rules).pages[0].mediabox.width)) == 612  # US Letter, 8.5 in, from `paper`
    given = run("build", str(game), "--only", "rules", "--out", str(tmp_path / "mine"), "--format", "json", cwd=tmp_path)
    assert Path(json.loads(given.stdout)[0]["out_dir"]).parts[-2] == "mine"  # the command line wins


@pytest.mark.parametrize("text, where, says", [
    ('[tool.cardgen]\nout = "x"\npaper = "a3"\n', "cardgen.toml:3:1", "'a3' is not one of"),
    ('[tool.cardgen]\n\ncolour = "red"\n', "cardgen.toml:3:1", "use one of paper, preset, lang, out"),
    ('[tool.cardgen]\nlang = \n', "cardgen.toml:2:", "not valid TOML"),
])
def test_a_bad_cardgen_toml_is_one_line_at_its_place(game_copy, tmp_path, text, where, says):
    game = game_copy("alice")
    (tmp_path / "cardgen.toml").write_text(text, encoding="utf-8")
    done = run("build", str(game), "--only", "rules", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert where in line and says in line and "Traceback" not in done.stderr, line


def test_game_argument_completes_bundled_ids_and_game_folders(tmp_path):
    (tmp_path / "mygame").mkdir()
    (tmp_path / "mygame" / "game.yaml").write_text("id: mygame\n", encoding="utf-8")
    env = {"_CARDGEN_COMPLETE": "bash_complete", "COMP_CWORD": "2"}
    ids = run(env={**env, "COMP_WORDS": "cardgen build al"}, cwd=tmp_path)
    folders = run(env={**env, "COMP_WORDS": "cardgen watch my"}, cwd=tmp_path)
    assert "plain,alice" in ids.stdout.splitlines(), ids.stdout
    assert "plain,mygame" in folders.stdout.splitlines(), folders.stdout
    nested = run(env={**env, "COMP_WORDS": f"cardgen check {tmp_path}/my"}, cwd=tmp_path)
    assert f"plain,{tmp_path}/mygame" in nested.stdout.splitlines(), nested.stdout


def test_report_as_json_names_the_pdf_and_each_run(tmp_path):
    done = run("report", "alice", "--games", "4", "--out", str(tmp_path), "--format", "json", "-j", "1")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert Path(report["file"]).is_file() and report["file"].endswith("alice-balance.pdf")
    assert report["runs"] and all(run_["result"]["game"] == "alice" for run_ in report["runs"])


def test_quiet_simulate_shows_no_progress():
    normal, quiet = run("simulate", "alice", "--games", "3", "-j", "1"), run("-q", "simulate", "alice", "--games", "3", "-j", "1")
    assert normal.returncode == quiet.returncode == 0, quiet.stderr
    assert "simulating" in normal.stderr and "simulating" not in quiet.stderr
    assert without_timing(quiet.stdout) == without_timing(normal.stdout)  # the results themselves are the same


def test_quiet_sweep_shows_no_progress(tmp_path):
    args = ("sweep", "alice", "--vary", "memo_limit=3..4", "--games", "2", "--no-report", "-j", "1", "--out")
    normal, quiet = run(*args, str(tmp_path / "a")), run("-q", *args, str(tmp_path / "b"))  # apart: neither reuses the other
    assert normal.returncode == quiet.returncode == 0, quiet.stderr
    assert "sweep: 2/2 points" in normal.stderr, normal.stderr
    assert quiet.stderr == ""
    assert without_timing(quiet.stdout) == without_timing(normal.stdout)
