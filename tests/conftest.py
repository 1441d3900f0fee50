from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardgen.load import bundled_games_dir

BUNDLED = ("llll", "requiem", "alice", "ohanatsumi")


@pytest.fixture
def game_copy(tmp_path: Path):
    """Copy a bundled game into a temporary folder so a test can break it."""

    def make(game_id: str = "llll") -> Path:
        target = tmp_path / game_id
        shutil.copytree(bundled_games_dir() / game_id, target)
        return target

    return make
