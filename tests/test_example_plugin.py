"""The example rules plugin (examples/crazy-eights): written on the public API only, installed in
CI by the README's test command, found through its entry point, passing the test kit, and
simulated and checked by the CLI like any bundled game."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardgen.registry import installed_engines

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "crazy-eights"
GAME = EXAMPLE / "crazy-eights"
PUBLIC = {"cardgen.engine.api", "cardgen.testing"}


def cardgen_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "cardgen":
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.split(".")[0] == "cardgen")
    return names


def test_the_example_imports_only_the_public_engine_api_and_the_test_kit():
    rules = cardgen_imports(EXAMPLE / "crazy_eights_rules" / "__init__.py")
    assert rules == {"cardgen.engine.api"}
    for test in (EXAMPLE / "tests").glob("test_*.py"):
        assert cardgen_imports(test) <= PUBLIC, test


def test_the_readme_and_ci_install_the_example_with_one_identical_command():
    command = 'pip install ".[test]" ./examples/crazy-eights && python -m pytest'
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in readme and command in ci


@pytest.fixture(scope="module")
def installed():
    if "crazy-eights" not in installed_engines():
        message = "the example plugin is not installed: pip install ./examples/crazy-eights (the README's test command)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)


def test_the_installed_example_passes_the_test_kit(installed):
    from cardgen.engine import engine_by_name
    from cardgen.testing import check_engine, load_game

    reports = check_engine(engine_by_name("crazy-eights"), load_game(str(GAME)), games=3)
    assert [r.players for r in reports] == [2, 3, 4, 5]


def run_cardgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_the_cli_checks_and_simulates_the_example_with_its_bot(installed):
    check = run_cardgen("check", str(GAME))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "crazy-eights-deal-5p" in check.stdout and "random-sim-5p" in check.stdout
    sim = run_cardgen("simulate", str(GAME), "--players", "3", "--policy", "shedder", "--policy", "random",
                      "--policy", "random", "--games", "30", "--seed", "1", "--workers", "1", "--format", "json")
    assert sim.returncode == 0, sim.stderr
    report = json.loads(sim.stdout)
    assert report["games"] == 30 and [s["policy"] for s in report["seats"]] == ["shedder", "random", "random"]
    assert sum(s["wins"] for s in report["seats"]) >= 30
