from __future__ import annotations

import atexit
import io
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from cardgen.load import bundled_games_dir

BUNDLED = ("llll", "requiem", "alice", "ohanatsumi")
T = TypeVar("T")

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


def shared_across_workers(tmp_path_factory, name: str, make: Callable[[], T]) -> T:
    """`make()`, computed once for the whole run: under pytest-xdist the first worker to ask pickles
    it into the run's shared temp folder (under a lock) and the others read it, so a build that
    several test files check is made once, not once per worker."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/, above each worker's popen-gwK/
    try:
        import fcntl
    except ImportError:  # no flock (Windows): each process makes its own
        return make()
    path = base / f"shared-{name}.pickle"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = make()
        path.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def rulebooks(tmp_path_factory) -> dict[tuple[str, str], bytes]:
    """Every bundled game's rulebook PDF in ja and en (tests/test_rulebook.py and
    test_documents_review.py both read them)."""
    from cardgen.load import load_game
    from cardgen.render.documents.rulebook import build_rulebook

    return shared_across_workers(tmp_path_factory, "rulebooks", lambda: {
        (game, lang): build_rulebook(load_game(game), lang) for game in BUNDLED for lang in ("ja", "en")})


@pytest.fixture(scope="session")
def rulebook_texts(tmp_path_factory, rulebooks) -> dict[tuple[str, str], list[str]]:
    """Each rulebook's text, page by page, as pypdf reads it back."""
    from pypdf import PdfReader

    return shared_across_workers(tmp_path_factory, "rulebook-texts", lambda: {
        key: [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages] for key, data in rulebooks.items()})


def catalog_lang(pdf: bytes | str | Path) -> str | None:
    """The /Lang of a PDF's catalog as pypdf reads it back (None when the file sets none)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf)
    lang = reader.trailer["/Root"].get("/Lang")
    return None if lang is None else str(lang)
