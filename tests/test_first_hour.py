"""The first hour of a new designer (issue 28): a copy to try a variant, a mapping that follows the
cards, messages that say what to do, and warnings said once. Run as a user would, as a subprocess."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


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
