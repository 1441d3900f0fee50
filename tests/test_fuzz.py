"""Fuzz the bundled game folders: no traceback, no hang, no code run, nothing written outside
--out, and `check` passing means `build` passes (tests/fuzzing.py has the mutations and rules).

CI runs CI_CASES cases (about 70 s on two cores); `python -m pytest -m slow` runs thousands,
with png and tts. A failure lists every cause once, with its cases and the last lines of one
traceback; reproduce a case with `python benchmarks/fuzz_game_folders.py --case <id> --keep DIR`.
"""

from __future__ import annotations

import os

import pytest

from . import fuzzing

# `check` now lays out every output, so a case whose data loads costs 3-7 s; 64 cases take
# about 70 s on two cores. CARDGEN_FUZZ_CASES=N runs more.
CI_CASES = int(os.environ.get("CARDGEN_FUZZ_CASES", "64"))
WORKERS = min(2, os.cpu_count() or 1)


def _run(count: int, start: int = 0, slow: bool = False, mode: str = "fork", games: tuple[str, ...] = fuzzing.GAMES) -> None:
    findings, stats = fuzzing.run_many(fuzzing.cases(count, start, games), WORKERS, slow=slow, mode=mode)
    assert stats["cases"] == count
    if findings:
        cases = len({f.case for f in findings})
        pytest.fail(f"{cases} of {count} fuzz cases broke the trust rules "
                    f"({len(fuzzing.group(findings))} causes):\n{fuzzing.report(findings)}\n\n"
                    f"reproduce: {fuzzing.repro(findings[0].case)}", pytrace=False)


def test_fuzz_game_folders_ci():
    _run(CI_CASES)


def test_fuzz_cases_are_deterministic(tmp_path):
    one, folder_one = fuzzing.make_case("ohanatsumi", 7, tmp_path / "a")
    two, folder_two = fuzzing.make_case("ohanatsumi", 7, tmp_path / "b")
    assert one.mutations == two.mutations
    for path in folder_one.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (folder_two / path.relative_to(folder_one)).read_bytes()


def test_fuzz_pristine_games_pass_check_and_build():
    """The harness itself: the unmutated bundled games (seed None) raise no finding."""
    findings, stats = fuzzing.run_many([(game, None) for game in fuzzing.GAMES], WORKERS)
    assert not findings, fuzzing.report(findings)
    assert stats["check_ok"] == stats["build_ok"] == len(fuzzing.GAMES), stats


# Beyond the folder (tests/fuzzing.py, "Beyond the game folder"): hostile --scheduler/--vary
# options (about a second each) and a damaged build cache between two builds (three builds each).
CI_OPTION_CASES, CI_CACHE_CASES = 16, 1


def _run_surfaces(options: int, cache: int, start: int = 0) -> None:
    jobs = [("options", start + i) for i in range(options)]
    jobs += [(f"cache:{fuzzing.CACHE_GAMES[i % len(fuzzing.CACHE_GAMES)]}", start + i) for i in range(cache)]
    findings, stats = fuzzing.run_many(jobs, WORKERS)
    assert stats["cases"] == len(jobs)
    if findings:
        pytest.fail(f"{len({f.case for f in findings})} of {len(jobs)} cases broke the trust rules:\n"
                    f"{fuzzing.report(findings)}\n\nreproduce: {fuzzing.repro(findings[0].case)}", pytrace=False)


def test_fuzz_cache_and_options_ci():
    _run_surfaces(CI_OPTION_CASES, CI_CACHE_CASES)


@pytest.mark.slow
def test_fuzz_cache_and_options_many():
    _run_surfaces(300, 40, start=400_000)


@pytest.mark.slow
def test_fuzz_game_folders_thousands():
    _run(4000, start=100_000)


@pytest.mark.slow
def test_fuzz_game_folders_png_tts():
    _run(400, start=200_000, slow=True)


@pytest.mark.slow
def test_fuzz_game_folders_fresh_processes():
    _run(200, start=300_000, mode="subprocess")


def test_fuzz_spreadsheets_svg_images_fonts_ci():
    """A seeded sample of the art fixture's cases, most of which mutate a spreadsheet, an SVG, an
    image or a font (tests/fuzz_surfaces.py)."""
    _run(40, start=500_000, games=("art_game",))
