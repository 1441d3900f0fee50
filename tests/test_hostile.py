"""Hostile game folders, one test per case of the trust issue: no code runs, nothing outside the
folder is read, no traceback, no hang, nothing written outside --out, and `check` refuses what
`build` would refuse, with `file:line:column: what; what to do`.

Every command runs in a forked child with a hard time limit (tests/fuzzing.py), from its own
working folder; after each one the test checks that no CANARY file appeared, that nothing
changed outside --out, and that no text from outside the game folder is in the messages or
the outputs.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from . import fuzzing
from tests.processes import assert_no_process_left

SECRET = "OUTSIDE-SECRET-TEXT-7f3a"  # in a file beside the game folder: must never show up
CANARY_PAYLOAD = "{{ cycler.__init__.__globals__.os.popen('touch CANARY').read() }}"
MARKERS = fuzzing.OUTSIDE_MARKERS + (SECRET,)


class Folder:
    """A copy of a bundled game in tmp_path/games/<game>, run from tmp_path/cwd into tmp_path/out."""

    def __init__(self, tmp_path: Path, game: str, templates: bool = False):
        self.base = tmp_path
        self.game = game
        self.games = tmp_path / "games"
        self.folder = self.games / game
        self.cwd = tmp_path / "cwd"
        self.out = tmp_path / "out"
        self.cwd.mkdir()
        shutil.copytree(fuzzing.REPO / "card_data" / game, self.folder)
        (self.games / "x.yaml").write_text(f"secret: {SECRET}\n")
        (tmp_path / "x.yaml").write_text(f"secret: {SECRET}\n")
        if templates:
            (self.folder / "templates").mkdir()
            for name in fuzzing.TEMPLATE_FILES:
                shutil.copyfile(fuzzing.REPO / "templates" / game / name, self.folder / "templates" / name)

    def path(self, name: str) -> Path:
        return self.folder / name

    def line_of(self, name: str, needle: str) -> int:
        for i, line in enumerate(self.path(name).read_text(encoding="utf-8").splitlines(), 1):
            if needle in line:
                return i
        raise AssertionError(f"{needle!r} not in {name}")

    def replace(self, name: str, old: str, new: str, count: int = 1) -> int:
        """Replace text in a file of the game; return the (1-based) line of the first replacement."""
        text = self.path(name).read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {name}"
        line = text[: text.index(old)].count("\n") + 1
        self.path(name).write_text(text.replace(old, new, count), encoding="utf-8")
        return line

    def run(self, *args: str, limit: float = 20.0) -> fuzzing.Step:
        before = fuzzing.snapshot(self.base, fuzzing.REPO / "card_data", fuzzing.REPO / "templates", exclude=(self.out,))
        steps, timed_out, stray = fuzzing.run_commands([list(args)], self.cwd, limit=limit, stop_unless_zero=False)
        after = fuzzing.snapshot(self.base, fuzzing.REPO / "card_data", fuzzing.REPO / "templates", exclude=(self.out,))
        command = "cardgen " + " ".join(args)
        assert not timed_out, f"{command}: still running after {limit} s; stack:\n{stray[-3000:]}"
        assert steps, f"{command}: no result\n{stray[-3000:]}"
        step = steps[0]
        assert step.exception is None, f"{command}: exception escaped:\n{step.exception}"
        assert "Traceback" not in step.output, f"{command}: traceback in the output:\n{step.output}"
        assert step.exit_code in (0, 1, 2), f"{command}: exit {step.exit_code}:\n{step.output}"
        canaries = fuzzing.find_canaries(self.base) + [str(p) for p in (fuzzing.REPO / "CANARY", Path.cwd() / "CANARY") if p.exists()]
        assert not canaries, f"{command}: code from the game folder ran: {canaries}"
        diff = fuzzing.changed(before, after)
        assert not diff, f"{command}: wrote outside --out: {diff[:10]}"
        for marker in MARKERS:
            assert marker not in step.output, f"{command}: text from outside the game folder in the output:\n{step.output}"
        if self.out.exists():
            written = fuzzing.outputs_text(self.out)
            for marker in MARKERS:
                assert marker not in written, f"{command}: text from outside the game folder in the outputs"
        return step

    def check(self, *extra: str, limit: float = 20.0) -> fuzzing.Step:
        return self.run("check", str(self.folder), "--no-simulate", *extra, limit=limit)

    def build(self, *only: str, extra: tuple[str, ...] = (), limit: float = 30.0) -> fuzzing.Step:
        args = ["build", str(self.folder), "--out", str(self.out)]
        for o in only or fuzzing.FAST_OUTPUTS:
            args += ["--only", o]
        return self.run(*args, *extra, limit=limit)


def refused(step: fuzzing.Step, file: str, line: int | None = None, *words: str) -> None:
    """Exit 1 with an `error:` naming `file:line:column` (any line if None) and each of `words`."""
    out = step.output
    assert step.exit_code == 1, f"{step.command}: expected exit 1 (refused), got {step.exit_code}:\n{out[-3000:]}"
    where = rf"{re.escape(file)}:{line if line is not None else r'[0-9]+'}:[0-9]+"
    assert re.search(where, out), f"{step.command}: the message does not name {file}:{line or 'LINE'}:COLUMN:\n{out[-3000:]}"
    for word in words:
        assert word.lower() in out.lower(), f"{step.command}: the message does not mention {word!r}:\n{out[-3000:]}"


def refused_everywhere(folder: Folder, file: str, line: int | None = None, *words: str, build: bool = True) -> None:
    """`check` refuses the folder at file:line, and so does `build` (check passing means build passes)."""
    refused(folder.check(), file, line, *words)
    if build:
        refused(folder.build(), file, line, *words)


@pytest.fixture
def game(tmp_path):
    def make(game_id: str = "llll", templates: bool = False) -> Folder:
        return Folder(tmp_path, game_id, templates)

    fuzzing.warm_up()
    return make


# --- code must not run: Jinja payloads ----------------------------------------------------------

def test_jinja_payload_in_rules_markdown(game):
    g = game("llll")
    line = g.replace("rules.en.md", "# Overview", CANARY_PAYLOAD + "\n\n# Overview")
    refused_everywhere(g, "rules.en.md", line)


def test_jinja_payload_in_layout_text(game):
    g = game("llll", templates=True)
    line = g.replace("templates/layout.yaml", 'text: "{{ card.initial }}", font: mincho, size: 22',
                     f'text: "{CANARY_PAYLOAD}", font: mincho, size: 22')
    refused_everywhere(g, "layout.yaml", line)


def test_jinja_payload_in_playtest_yaml(game):
    g = game("llll", templates=True)
    line = g.replace("templates/playtest.yaml", "{{ param('starting_action_points') }}です", CANARY_PAYLOAD + "です")
    refused(g.check(), "playtest.yaml", line)
    refused(g.build("playtest"), "playtest.yaml", line)


# --- nothing outside the folder is read -----------------------------------------------------------

def test_layout_include_of_an_absolute_path(game):
    g = game("llll", templates=True)
    line = g.replace("templates/layout.yaml", "include: [common/backs.yaml]", "include: [/etc/passwd]")
    refused_everywhere(g, "layout.yaml", line, "/etc/passwd")  # Folder.run: none of its text anywhere


def test_layout_include_climbing_out_with_dotdot(game):
    g = game("llll", templates=True)
    line = g.replace("templates/layout.yaml", "include: [common/backs.yaml]", "include: [../x.yaml, ../../x.yaml]")
    refused_everywhere(g, "layout.yaml", line, "x.yaml")


# --- no hang, no memory blow-up ----------------------------------------------------------------------

def _bomb(depth: int = 10) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{d}: &a{d} [" + ", ".join([f"*a{d - 1}"] * 9) + "]" for d in range(1, depth + 1)]
    return "\n".join(lines) + "\n"


def test_alias_bomb_in_cards_yaml(game):
    g = game("llll")
    text = g.path("cards.yaml").read_text(encoding="utf-8")
    g.path("cards.yaml").write_text(_bomb() + text, encoding="utf-8")
    step = g.check(limit=10)
    refused(step, "cards.yaml")
    assert step.seconds < 5, f"alias bomb took {step.seconds:.1f} s to refuse"


def test_alias_bomb_in_layout_yaml(game):
    g = game("llll", templates=True)
    text = g.path("templates/layout.yaml").read_text(encoding="utf-8")
    g.path("templates/layout.yaml").write_text(text + _bomb(), encoding="utf-8")
    step = g.check(limit=10)
    refused(step, "layout.yaml")
    assert step.seconds < 5, f"alias bomb took {step.seconds:.1f} s to refuse"


def test_huge_count(game):
    g = game("llll")
    line = g.replace("cards.yaml", "count: 2", "count: 1000000000000")
    refused_everywhere(g, "cards.yaml", line)


def test_huge_player_count(game):
    g = game("llll")
    line = g.replace("game.yaml", "players: {min: 3, max: 4}", "players: {min: 3, max: 1000000}")
    refused_everywhere(g, "game.yaml", line)


def test_huge_id_format_width(game):
    g = game("llll")
    line = g.replace("game.yaml", 'id_format: "LL{n:02d}"', 'id_format: "LL{n:0300000000d}"')
    refused_everywhere(g, "game.yaml", line, "id_format")


def test_huge_card_size_in_game_yaml(game):
    g = game("llll")
    line = g.replace("game.yaml", "card_size: poker", "card_size: 100000x100000")
    refused(g.check(), "game.yaml", line, "100000x100000")
    refused(g.build("png"), "game.yaml", line, "100000x100000")


def test_huge_card_size_option_with_png(game):
    g = game("llll")
    step = g.run("build", str(g.folder), "--out", str(g.out), "--only", "png", "--card-size", "100000x100000", limit=10)
    assert step.exit_code in (1, 2), f"expected a refusal, got exit {step.exit_code}:\n{step.output[-2000:]}"
    assert "100000" in step.output and "--card-size" in step.output, step.output[-2000:]
    assert step.seconds < 5
    assert not list(g.out.rglob("*.png")), "PNG files written for a refused card size"


# --- rule parameters and composition: `check` refuses at the line ---------------------------------------

def test_required_rule_parameter_removed(game):
    g = game("llll")
    g.replace("game.yaml", "  rounds: 8                       # 第８ラウンド目の協力者フェイズで終了\n", "")
    refused_everywhere(g, "game.yaml", None, "rounds")


@pytest.mark.parametrize("game_id, old, new, key", [
    ("llll", "princess_uses_to_win: 2", "princess_uses_to_win: -2", "princess_uses_to_win"),
    ("ohanatsumi", "elf_urge_default: 1", "elf_urge_default: abc", "elf_urge_default"),
    ("alice", "max_investigation_phases: 100", "max_investigation_phases: -100", "max_investigation_phases"),
])
def test_nonsense_rule_numbers(game, game_id, old, new, key):
    g = game(game_id)
    line = g.replace("game.yaml", old, new)
    refused_everywhere(g, "game.yaml", line, key)


def test_event_without_urge(game):
    g = game("ohanatsumi")
    start = g.line_of("cards.yaml", "- id: ev_elf_watering")
    g.replace("cards.yaml", "    deck: event\n    urge: 1\n", "    deck: event\n", count=1)
    step = g.check()
    refused(step, "cards.yaml", None, "urge")
    lines = [int(m) for m in re.findall(r"cards\.yaml:([0-9]+):", step.output)]
    assert any(start <= n <= start + 8 for n in lines), f"no location inside ev_elf_watering (line {start}):\n{step.output}"


@pytest.mark.parametrize("char", ["\x07", "\x00", "\x1b"], ids=["BEL", "NUL", "ESC"])
def test_control_character_in_a_yaml_comment(game, char):
    g = game("llll")
    line = g.replace("game.yaml", "  rounds: 8                       # 第８", f"  rounds: 8                       # {char} 第８")
    step = g.check()
    if step.exit_code == 0:  # a comment may be ignored; then build must pass too
        assert g.build().exit_code == 0
    else:
        refused(step, "game.yaml", line)
        refused(g.build(), "game.yaml", line)


def test_invalid_utf8_in_rules_markdown(game):
    g = game("llll")
    data = g.path("rules.en.md").read_bytes()
    at = data.index(b"# Overview")
    line = data[:at].count(b"\n") + 1
    g.path("rules.en.md").write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    refused_everywhere(g, "rules.en.md", line, "UTF-8")


def test_id_format_attribute_access(game):
    g = game("llll")
    line = g.replace("game.yaml", 'id_format: "LL{n:02d}"', 'id_format: "LL{n.foo}"')
    refused_everywhere(g, "game.yaml", line, "id_format")


def test_card_id_of_300_characters(game):
    g = game("llll")
    g.replace("game.yaml", 'id_format: "LL{n:02d}"\n', "")  # ids become <type>-<copy>
    line = g.replace("cards.yaml", "  - id: princess", "  - id: " + "p" * 300)
    refused_everywhere(g, "cards.yaml", line)


@pytest.mark.parametrize("first, second", [("P/1", "P_1"), ("P1", "p1")])
def test_card_ids_that_clash_as_file_names(game, first, second):
    g = game("llll")
    g.replace("game.yaml", 'id_format: "LL{n:02d}"\n', "")  # ids become <type>-<copy>
    g.replace("cards.yaml", "  - id: princess", f'  - id: "{first}"')
    line = g.replace("cards.yaml", "  - id: noble", f'  - id: "{second}"')
    step = g.check()
    refused(step, "cards.yaml")
    assert re.search(rf"cards\.yaml:({g.line_of('cards.yaml', first)}|{line}):", step.output), step.output[-2000:]
    refused(g.build("png"), "cards.yaml")


def test_game_folder_given_as_dotdot_with_game_id_dotdot(game, tmp_path):
    g = game("llll")
    a = g.games / "a"
    shutil.copytree(g.folder, a)
    (a / "b").mkdir()
    (a / "game.yaml").write_text((a / "game.yaml").read_text(encoding="utf-8").replace("id: llll", 'id: ".."', 1), encoding="utf-8")
    spec = os.path.relpath(a / "b", g.cwd) + "/.."
    check = g.run("check", spec, "--no-simulate")
    refused(check, "game.yaml", 2)
    build = g.run("build", spec, "--out", str(g.out), "--only", "rules")
    refused(build, "game.yaml", 2)
    assert not g.out.exists() or not any(g.out.rglob("*.pdf")), "a refused game wrote outputs"


# --- broken side files fail `check`, not only `build` ---------------------------------------------------

@pytest.mark.parametrize("name, content", [
    ("mapping.yaml", ""),
    ("mapping.yaml", "types: [\n"),
    ("templates/layout.yaml", ""),
    ("templates/layout.yaml", "cards:\n  - front: [\n"),
    ("rules.en.md", "# Overview\n\n{% if %}\n"),
    ("rules.ja.md", "# 概要\n\n{{ total \n"),
], ids=["mapping-empty", "mapping-broken", "layout-empty", "layout-broken", "rules-en-broken", "rules-ja-broken"])
def test_broken_side_file_fails_check(game, name, content):
    g = game("llll", templates=name.startswith("templates/"))
    g.path(name).write_text(content, encoding="utf-8")
    refused_everywhere(g, Path(name).name)


def test_report_spec_typo(game):
    g = game("llll", templates=True)
    line = g.replace("templates/report.yaml", "  - title: {ja: 4人・全員が貪欲方針", "  - titel: {ja: 4人・全員が貪欲方針")
    step = g.run("report", str(g.folder), "--games", "2", "--workers", "1", "--out", str(g.out), limit=60)
    refused(step, "report.yaml", line, "titel")


# --- outputs: only inside --out, whole, and locked --------------------------------------------------------

def test_out_with_a_file_where_the_game_folder_goes(game):
    g = game("llll")
    g.out.mkdir()
    (g.out / "llll").write_text("not a folder")
    step = g.build("rules")
    assert step.exit_code == 1, step.output
    assert "llll" in step.output and "error" in step.output.lower(), step.output
    assert (g.out / "llll").read_text() == "not a folder"


def test_out_with_a_folder_where_a_pdf_goes(game):
    g = game("llll")
    (g.out / "llll" / "llll-rules-en.pdf").mkdir(parents=True)
    step = g.build("rules")
    assert step.exit_code == 1, step.output
    assert "llll-rules-en.pdf" in step.output, step.output
    assert (g.out / "llll" / "llll-rules-en.pdf").is_dir()


def test_stale_temp_file_of_a_killed_build_is_removed(game):
    g = game("ohanatsumi")
    png = g.out / "ohanatsumi" / "png"
    png.mkdir(parents=True)
    stale = png / ".OH002-front.png.x1y2z3.tmp"
    stale.write_bytes(b"half a png")
    step = g.build("png", limit=90)
    assert step.exit_code == 0, step.output[-2000:]
    assert not stale.exists(), "the stale temporary file of a killed build is still there"
    assert not list(g.out.rglob("*.tmp"))


def _cardgen(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cardgen", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)


def _finish(proc: subprocess.Popen, timeout: float) -> tuple[int, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running after {timeout} s:\n{err.decode(errors='replace')[-2000:]}")
    return proc.returncode, (out + err).decode("utf-8", "replace")


def test_two_builds_into_the_same_out(game):
    g = game("ohanatsumi")
    args = ("build", str(g.folder), "--out", str(g.out), "--only", "sheets", "--only", "shop", "--only", "png")
    first = _cardgen(*args, cwd=g.cwd)
    second = _cardgen(*args, cwd=g.cwd)
    results = [_finish(first, 180), _finish(second, 180)]
    for code, text in results:
        assert "Traceback" not in text, text[-3000:]
        assert code in (0, 1), f"exit {code}:\n{text[-3000:]}"
        if code == 1:  # refused: says that another build holds the folder
            assert re.search(r"lock|another build|in use|already", text, re.I), text[-3000:]
    assert 0 in [code for code, _ in results], results
    assert not list(g.out.rglob("*.tmp")), "temporary files left behind"
    from pypdf import PdfReader

    for pdf in (g.out / "ohanatsumi").glob("*.pdf"):
        assert len(PdfReader(pdf).pages) > 0
    assert len(list((g.out / "ohanatsumi" / "png").glob("*.png"))) == 152


def test_ctrl_c_during_simulate(tmp_path):
    proc = _cardgen("simulate", "llll", "--games", "200000", "--workers", "2", cwd=tmp_path)
    time.sleep(4)
    assert proc.poll() is None, "simulate ended before Ctrl-C"
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: SIGINT to the whole foreground group
    code, text = _finish(proc, 20)
    assert "Traceback" not in text, text[-3000:]
    assert code == 130, f"exit {code}:\n{text[-3000:]}"
    lines = [line for line in re.split(r"[\r\n]+", text) if line.strip() and not line.lstrip().startswith("simulating")]
    assert len(lines) == 1, f"expected one line after Ctrl-C, got {len(lines)}:\n" + "\n".join(lines[:30])
    assert_no_process_left(proc.pid)


# --- replay records ---------------------------------------------------------------------------------------

@pytest.fixture
def record(tmp_path) -> Path:
    steps, timed_out, stray = fuzzing.run_commands(
        [["simulate", "llll", "--games", "1", "--seed", "3", "--workers", "1", "--save-records", str(tmp_path / "recs")]],
        tmp_path, limit=60)
    assert not timed_out and steps and steps[0].exit_code == 0, (steps, stray)
    return next((tmp_path / "recs").glob("*.yaml"))


def _replay(path: Path) -> fuzzing.Step:
    steps, timed_out, stray = fuzzing.run_commands([["replay", str(path)]], path.parent, limit=20)
    assert not timed_out, stray[-3000:]
    step = steps[0]
    assert step.exception is None, step.exception
    assert "Traceback" not in step.output, step.output
    return step


def test_replay_record_with_scores_not_a_list(record):
    text = record.read_text(encoding="utf-8")
    assert "    scores: [" in text
    line = text[: text.index("    scores: [")].count("\n") + 1
    record.write_text(re.sub(r"    scores: \[.*\]", "    scores: 5", text), encoding="utf-8")
    refused(_replay(record), record.name, line, "scores")


def test_replay_record_with_unknown_card_in_deck_order(record):
    text = record.read_text(encoding="utf-8")
    order = ", ".join([f"LL{n:02d}" for n in range(1, 32)] + ["ZZ99"])
    text = re.sub(r"^seed: .*$", f"deck_order: [{order}]", text, count=1, flags=re.M)
    record.write_text(text, encoding="utf-8")
    line = text[: text.index("deck_order:")].count("\n") + 1
    refused(_replay(record), record.name, line, "ZZ99")
