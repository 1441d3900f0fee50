from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from cardgen.load import bundled_games_dir

BUNDLED = ("llll", "requiem", "alice", "ohanatsumi")

# The build cache's secret (cardgen/cache.py) is kept in a folder of this test run, never in the
# user's own ~/.cache/cardgen; commands the tests start inherit it. Under pytest-xdist each worker
# has its own (a subfolder of the one the controller made and removes), so no two share a cache.
if not os.environ.get("CARDGEN_CACHE_HOME"):
    os.environ["CARDGEN_CACHE_HOME"] = tempfile.mkdtemp(prefix="cardgen-test-cache-home-")
    atexit.register(shutil.rmtree, os.environ["CARDGEN_CACHE_HOME"], True)
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["CARDGEN_CACHE_HOME"] = os.path.join(os.environ["CARDGEN_CACHE_HOME"], os.environ["PYTEST_XDIST_WORKER"])


@pytest.fixture
def game_copy(tmp_path: Path):
    """Copy a bundled game into a temporary folder so a test can break it."""

    def make(game_id: str = "llll") -> Path:
        target = tmp_path / game_id
        shutil.copytree(bundled_games_dir() / game_id, target)
        return target

    return make
