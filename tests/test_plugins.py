"""Rules engines as installed plugins (issue #25): what a designer does, as subprocesses.

`cardgen new mygame --engine` writes a game folder and its rules package; the package and a
plugin whose code fails to import are pip-installed into a throwaway venv, and that venv's
`python -m cardgen` runs check, simulate (with a bot and the search agents), report, sweep and
OpenSpiel on the new game, with no line of cardgen changed for it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from .conftest import BUNDLED

ROOT = Path(__file__).resolve().parent.parent

BROKEN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "broken-rules"
version = "0.3.1"

[project.entry-points."cardgen.engines"]
broken = "broken_rules:Rules"
"""


def run(python: Path | str, *args: str, cwd: Path, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def cardgen(python: Path | str, *args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return run(python, "-m", "cardgen", *args, cwd=cwd, **kw)


def throwaway_venv(where: Path) -> Path:
    """A venv that sees this test run's packages (cardgen as installed here, pyspiel ...) and
    takes installs of its own: made without pip (fast), and chained to this environment's
    site-packages by a .pth so that its cardgen is this checkout's, not another copy's."""
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(where)],
                   check=True, timeout=60)
    python = where / "bin" / "python"
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=where).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, "_parent_env.pth").write_text(f"import site; site.addsitedir({ours!r})\n", encoding="utf-8")
    return python


def pip_install(python: Path, *args: str, cwd: Path) -> None:
    """pip of this environment installing into the venv of `python`, offline-friendly: no build
    isolation (setuptools is here; `wheel` is installed first when this environment lacks it)."""
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
    if run(python, "-c", "import wheel", cwd=cwd).returncode != 0:
        subprocess.run([*pip, "wheel"], check=True, capture_output=True, timeout=240, cwd=cwd)
    done = subprocess.run([*pip, "--no-build-isolation", *args], capture_output=True, text=True, timeout=240, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def designer(tmp_path_factory):
    """A designer's folder after `cardgen new mygame --engine`, a broken plugin and a game naming
    it, both packages installed into a throwaway venv: (venv python, folder)."""
    home = tmp_path_factory.mktemp("designer")
    made = cardgen(sys.executable, "new", "mygame", "--engine", cwd=home)
    assert made.returncode == 0, made.stderr
    assert "pip install -e mygame-rules" in made.stdout
    broken = home / "broken-rules"
    (broken / "broken_rules").mkdir(parents=True)
    (broken / "pyproject.toml").write_text(BROKEN_PYPROJECT, encoding="utf-8")
    (broken / "broken_rules" / "__init__.py").write_text(
        'raise ImportError("broken_rules needs numpy 9, which is not installed")\n', encoding="utf-8")
    shutil.copytree(home / "mygame", home / "brokengame")
    game_yaml = home / "brokengame" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace("id: mygame", "id: brokengame")
                         .replace("engine: mygame", "engine: broken"), encoding="utf-8")
    python = throwaway_venv(home / "venv")
    pip_install(python, "-e", "mygame-rules", "./broken-rules", cwd=home)
    return python, home


def test_new_engine_writes_an_installable_rules_package(tmp_path):
    done = cardgen(sys.executable, "new", "dice-game", "--engine", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "dice-game-rules"
    pyproject = (package / "pyproject.toml").read_text(encoding="utf-8")
    assert 'name = "dice-game-rules"' in pyproject
    assert '[project.entry-points."cardgen.engines"]\ndice-game = "dice_game_rules:Rules"' in pyproject
    rules = (package / "src" / "dice_game_rules" / "rules.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^from (\S+) import", rules, re.M)) | set(re.findall(r"^import (\S+)", rules, re.M))
    assert {name for name in imported if name.startswith("cardgen")} == {"cardgen.engine.api"}  # the public API only
    assert "cardgen.testing" in (package / "tests" / "test_rules.py").read_text(encoding="utf-8")
    readme = (package / "README.md").read_text(encoding="utf-8")
    for step in ("pip install -e dice-game-rules", "cardgen check dice-game", "cardgen simulate dice-game",
                 "cardgen report dice-game", "cardgen sweep dice-game", 'pyspiel.load_game("cardgen_dice-game"'):
        assert step in readme, step
    assert "engine: dice-game" in (tmp_path / "dice-game" / "game.yaml").read_text(encoding="utf-8")
    # a second time, or with --from, it refuses in one line and writes nothing
    again = cardgen(sys.executable, "new", "other", "--engine", "--from", "llll", cwd=tmp_path)
    assert again.returncode == 1 and "--engine" in again.stderr and "Traceback" not in again.stderr
    assert not (tmp_path / "other").exists() and not (tmp_path / "other-rules").exists()
    shutil.rmtree(tmp_path / "dice-game")
    clash = cardgen(sys.executable, "new", "dice-game", "--engine", cwd=tmp_path)
    assert clash.returncode == 1 and "dice-game-rules: already exists" in clash.stderr
    assert not (tmp_path / "dice-game").exists()


def test_engines_lists_the_installed_ones_and_a_broken_one_in_a_line(designer):
    python, home = designer
    listed = cardgen(python, "engines", cwd=home)
    assert listed.returncode == 0, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert set(BUNDLED) | {"mygame", "broken"} <= set(lines)
    assert re.match(r"mygame +mygame-rules 0\.1\.0 +mygame_rules +players per game\.yaml +variants standard$", lines["mygame"])
    assert re.match(r"alice +cardgen \S+ +cardgen\.engine\.alice +players 1-2 +variants solo, versus$", lines["alice"])
    assert "broken-rules 0.3.1" in lines["broken"] and "ImportError: broken_rules needs numpy 9" in lines["broken"]
    assert "Traceback" not in listed.stdout + listed.stderr
    rows = {row["name"]: row for row in json.loads(cardgen(python, "engines", "--format", "json", cwd=home).stdout)}
    assert rows["mygame"] == {"name": "mygame", "distribution": "mygame-rules", "version": "0.1.0", "module": "mygame_rules",
                              "players": None, "variants": ["standard"], "error": None}
    assert rows["ohanatsumi"]["players"] == [1, 2, 3, 4, 5] and rows["broken"]["variants"] is None


def test_engines_prints_a_table_whose_columns_line_up(tmp_path):
    """The example plugin's distribution, cardgen-crazy-eights, is longer than a fixed column once was."""
    listed = cardgen(sys.executable, "engines", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("crazy-eights ") for line in lines)
    for column in ("players ", "cardgen"):
        starts = {line.index(f" {column}", len(line.split()[0])) for line in lines}
        assert len(starts) == 1, (column, listed.stdout)


def test_a_plugin_that_fails_to_import_is_one_line_and_stops_nothing_else(designer):
    python, home = designer
    failed = cardgen(python, "check", "brokengame", "--no-simulate", cwd=home)
    assert failed.returncode == 1
    line = next(i for i, t in enumerate((home / "brokengame" / "game.yaml").read_text(encoding="utf-8").split("\n"), 1)
                if t.startswith("engine:"))
    assert failed.stderr.count("\n") == 1, failed.stderr
    assert re.match(rf"error: brokengame/game\.yaml:{line}:9: the rules engine 'broken' \(distribution broken-rules 0\.3\.1, "
                    r"broken_rules:Rules\) failed to import: ImportError: broken_rules needs numpy 9", failed.stderr), failed.stderr
    debug = cardgen(python, "check", "brokengame", "--no-simulate", cwd=home, env={"CARDGEN_DEBUG": "1"})
    assert debug.returncode == 1 and "Traceback" in debug.stderr and 'broken_rules/__init__.py", line 1' in debug.stderr
    # every command that does not need it still works
    assert cardgen(python, "list", cwd=home).returncode == 0
    checked = cardgen(python, "check", "mygame", "--no-simulate", cwd=home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = cardgen(python, "build", "mygame", "--only", "sheets", "--out", "out", cwd=home)
    assert built.returncode == 0, built.stderr
    assert any((home / "out" / "mygame").iterdir())


def test_an_unknown_engine_names_the_installed_ones_and_how_to_write_one(tmp_path):
    cardgen(sys.executable, "new", "lonely", cwd=tmp_path)
    game_yaml = tmp_path / "lonely" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8") + "engine: nosuch\n", encoding="utf-8")
    line = len(game_yaml.read_text(encoding="utf-8").rstrip("\n").split("\n"))
    done = cardgen(sys.executable, "check", "lonely", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert re.search(rf"lonely/game\.yaml:{line}:9: no installed rules engine is called 'nosuch' \(installed: [^)]*llll[^)]*\); "
                     r"write one with `cardgen new NAME --engine`", done.stderr), done.stderr


def test_every_analysis_runs_on_the_new_game_through_its_plugin(designer):
    python, home = designer
    checked = cardgen(python, "check", "mygame", cwd=home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for expected in ("ok   setup-4p: 4 players × 3 cards = 12 of 12 cards", "ok   random-sim-2p: 30 random games",
                     "ok   random-sim-4p: 30 random games"):
        assert expected in checked.stdout
    searched = cardgen(python, "simulate", "mygame", "--players", "2", "--policy", "ismcts:50", "--policy", "openspiel-ismcts:10",
                       "--games", "6", "-j", "1", "--format", "json", cwd=home)
    assert searched.returncode == 0, searched.stderr
    assert json.loads(searched.stdout)["policies"] == ["ismcts:50", "openspiel-ismcts:10"]
    mixed = cardgen(python, "simulate", "mygame", "--players", "4", "--policy", "random", "--policy", "greedy",
                    "--policy", "rollout:4:greedy", "--policy", "ismcts-keep:10:greedy", "--games", "4", "-j", "1",
                    "--save-records", "records", cwd=home)
    assert mixed.returncode == 0, mixed.stderr
    replayed = cardgen(python, "replay", "records/mygame-000003.yaml", "--format", "json", cwd=home)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["ok"] and json.loads(replayed.stdout)["finished"]
    (home / "position.yaml").write_text("game: mygame\nplayers: 4\nphase: play\n", encoding="utf-8")
    positioned = cardgen(python, "replay", "records/mygame-000003.yaml", "--from", "position.yaml", cwd=home)
    assert positioned.returncode == 1 and positioned.stderr == (
        "error: position.yaml:1:7: mygame's rules engine 'mygame' does not build positions; replay the record from "
        "the start of the game (without --from)\n")
    reported = cardgen(python, "report", "mygame", "--games", "100", "--out", "out", "-j", "2", cwd=home)
    assert reported.returncode == 0, reported.stderr
    assert (home / "out" / "mygame" / "mygame-balance.pdf").stat().st_size > 10_000
    swept = cardgen(python, "sweep", "mygame", "--vary", "hand=2,3", "--games", "20", "--no-report", "--format", "csv",
                    "--out", "out", "-j", "1", cwd=home)
    assert swept.returncode == 0, swept.stderr
    assert [row.split(",")[1] for row in swept.stdout.strip().splitlines()[1:]] == ["2", "3"]  # point, hand, ...
    bridged = run(python, "-c", textwrap.dedent("""\
        import pyspiel
        from cardgen.engine import openspiel_bridge
        from cardgen.load import load_game
        openspiel_bridge.register("mygame", load_game("mygame"))
        game = pyspiel.load_game("cardgen_mygame", {"players": 3})
        pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
        print(game.num_players())"""), cwd=home)
    assert bridged.returncode == 0 and bridged.stdout.strip() == "3", bridged.stderr


def test_the_rules_package_passes_its_own_tests(designer):
    python, home = designer
    done = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "mygame-rules/tests", cwd=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


# Downstream of the engines: what must work for any installed engine, so none may name a bundled game.
DOWNSTREAM = ["cardgen/checks.py", "cardgen/cli.py", "cardgen/build.py", "cardgen/load.py", "cardgen/registry.py",
              "cardgen/testing.py", "cardgen/scaffold.py", "cardgen/metrics.py", "cardgen/sweep_result.py",
              "cardgen/agent_settings.py", "cardgen/render/documents/report.py",
              "cardgen/render/documents/sweep_report.py", "cardgen/analysis", "cardgen/engine"]


def test_nothing_downstream_names_a_bundled_game():
    named = re.compile(r"(?<![a-z])(" + "|".join(BUNDLED) + r")(?![a-z])", re.I)
    games = {ROOT / "cardgen" / "engine" / f"{game}.py" for game in BUNDLED}
    found = []
    for entry in DOWNSTREAM:
        path = ROOT / entry
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            if source in games:
                continue
            for number, text in enumerate(source.read_text(encoding="utf-8").split("\n"), 1):
                if named.search(text):
                    found.append(f"{source.relative_to(ROOT)}:{number}: {text.strip()}")
    assert not found, "\n".join(found)


def test_a_worker_without_the_engine_fails_in_one_line_naming_it():
    """What a Dask worker runs (simulate's chunks, sweep's points), given a game whose engine is
    not installed where it runs: one line naming the engine and the machine."""
    from dataclasses import replace

    from cardgen.analysis.sweep import _run_point
    from cardgen.engine.simulate import _run_chunk_on
    from cardgen.load import load_game
    from cardgen.registry import EngineError

    game = replace(load_game("llll"), engine="elsewhere")
    chunk = (str(game.root), 3, "standard", ("random",) * 3, False, 0, 0, 2, None)
    for work in (lambda: _run_chunk_on(game, chunk), lambda: _run_point((game, 0, 2, 3, "standard", ["random"], False))):
        with pytest.raises(EngineError) as failed:
            work()
        assert re.fullmatch(r"the worker on \S+ \(\S+\) has no rules engine 'elsewhere' for llll; install the distribution "
                            r"that provides it on every worker, as on the machine that sent the work", str(failed.value))


def test_no_engine_at_all_says_cardgens_own_metadata_is_stale(monkeypatch, tmp_path):
    """An editable cardgen installed before its pyproject declared the entry points finds no
    engine, not even the bundled ones: the message says to reinstall, not to write an engine."""
    from cardgen import registry
    from cardgen.errors import DataError
    from cardgen.load import load_game

    monkeypatch.setattr(registry, "installed_engines", lambda: {})
    registry.engine_by_name.cache_clear()
    try:
        with pytest.raises(DataError, match=r"game\.yaml:\d+:9: no rules engine is installed, not even cardgen's own, so "
                                            r"'llll' cannot be found: .*reinstall cardgen \(`pip install -e \.`"):
            load_game("llll")
    finally:
        registry.engine_by_name.cache_clear()
