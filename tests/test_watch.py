"""`cardgen watch`: one rebuild after a change redraws only what the change touches, a data error is
shown in the terminal and on the preview page while the watcher keeps running, and the real
watchfiles loop rebuilds on a save and exits 130 on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from cardgen.build import make_options
from cardgen.watch import Watcher, watch

OUTPUTS = ("sheets", "png")


def _rebuilt(line: str) -> set[str]:
    """What a watch line says was redrawn ("... rebuilt shop, 1 PNG, sheets in 0.87 s")."""
    found = re.search(r"rebuilt (.*) in [0-9.]+ s$", line)
    return set(found.group(1).split(", ")) if found else set()


def test_rebuild_after_a_change_redraws_only_the_changed_card(game_copy, tmp_path):
    game = game_copy("alice")
    lines: list[str] = []
    watcher = Watcher(str(game), make_options(out=tmp_path / "out", outputs=OUTPUTS), lines.append)
    assert watcher.rebuild()
    pngs = [int(item.split()[0]) for item in _rebuilt(lines[-1]) if item.endswith(" PNG")]
    assert pngs and pngs[0] >= 23, lines[-1]  # every face on a first build
    cards = game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("凶眼の持ち主", "鋭い凶眼の持ち主"), encoding="utf-8")
    assert watcher.rebuild([cards])
    assert "cards.yaml changed: " in lines[-1] and _rebuilt(lines[-1]) == {"sheets", "shop", "1 PNG"}, lines[-1]
    assert watcher.rebuild([cards])  # saved again unchanged: nothing to draw
    assert "rebuilt nothing (unchanged)" in lines[-1]


def test_a_data_error_is_shown_and_the_watcher_carries_on(game_copy, tmp_path):
    game = game_copy("alice")
    lines: list[str] = []
    out = tmp_path / "out"
    watcher = Watcher(str(game), make_options(out=out, outputs=OUTPUTS), lines.append)
    assert watcher.rebuild()
    cards = game / "cards.yaml"
    good = cards.read_text(encoding="utf-8")
    cards.write_text(good + "\ntypes: [<script>alert(1)</script>\n", encoding="utf-8")
    assert not watcher.rebuild([cards])
    assert "build failed" in lines[-1] and "cards.yaml:" in lines[-1]
    page = (out / "alice" / "preview.html").read_text(encoding="utf-8")
    assert 'class="error"' in page and "cards.yaml:" in page
    assert page.count('class="face front"') == 23  # the last good cards stay on the page
    cards.write_text(good, encoding="utf-8")
    assert watcher.rebuild([cards])
    assert 'class="error"' not in (out / "alice" / "preview.html").read_text(encoding="utf-8")


def test_the_watch_loop_rebuilds_on_a_save(game_copy, tmp_path):
    game = game_copy("alice")
    lines: list[str] = []
    stop = threading.Event()
    runner = threading.Thread(target=watch, args=(str(game), make_options(out=tmp_path / "out", outputs=OUTPUTS)),
                              kwargs={"echo": lines.append, "stop_event": stop, "rust_timeout": 200}, daemon=True)
    runner.start()
    deadline = time.monotonic() + 60
    while not any(line.startswith("watching") for line in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the watcher is registered just after it says so
    cards = game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("凶眼の持ち主", "鋭い凶眼の持ち主"), encoding="utf-8")
    while not any("cards.yaml changed" in line for line in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    runner.join(10)
    assert not runner.is_alive()
    assert any("cards.yaml changed: " in line and _rebuilt(line) == {"sheets", "shop", "1 PNG"} for line in lines), lines


def test_ctrl_c_exits_130_quietly(game_copy, tmp_path):
    game = game_copy("alice")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "watch", str(game), "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        said = [proc.stdout.readline() for _ in range(2)]  # the first build's line, then "watching ..."
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "rebuilt" in said[0] and said[1].startswith("watching"), (said, err)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "interrupted"


def test_editor_and_office_temporary_files_are_not_inputs(tmp_path):
    watcher = Watcher("alice", make_options(out=tmp_path / "out"))
    game = tmp_path / "game"
    for temporary in ("~$cards.xlsx", ".cards.yaml.swp", "cards.yaml.swo", "sedX4k2Qa", "cards.yaml~", ".#cards.yaml", "4913"):
        assert not watcher.wanted(str(game / temporary)), temporary
    for real in ("cards.xlsx", "cards.yaml", "seeds.yaml", "sedan.png", "layout.yaml"):
        assert watcher.wanted(str(game / real)), real


def test_a_rebuild_names_only_the_files_whose_bytes_changed(game_copy, tmp_path):
    game = game_copy("alice")
    lines: list[str] = []
    watcher = Watcher(str(game), make_options(out=tmp_path / "out", outputs=("rules",)), lines.append)
    assert watcher.rebuild()
    cards, rules, lock = game / "cards.yaml", game / "rules.en.md", game / "~$cards.xlsx"
    lock.write_bytes(b"lock")
    rules.touch()  # saved without an edit
    cards.write_text(cards.read_text(encoding="utf-8").replace("凶眼の持ち主", "鋭い凶眼の持ち主"), encoding="utf-8")
    assert watcher.rebuild([lock, rules, cards])
    assert " cards.yaml changed: " in lines[-1] and "rules.en.md" not in lines[-1] and "~$" not in lines[-1], lines[-1]


def test_watch_takes_the_build_options(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from cardgen import watch as watch_module
    from cardgen.cli import cli

    seen = {}
    monkeypatch.setattr(watch_module, "watch", lambda spec, options, echo=print: seen.update(options=options))
    result = CliRunner().invoke(cli, ["watch", "alice", "--out", str(tmp_path), "--preset", "mpc", "--paper", "letter",
                                      "--imposition", "gutterfold", "--card-size", "mini"])
    assert result.exit_code == 0, result.output
    options = seen["options"]
    assert (options.preset, options.paper, options.imposition, options.card_size) == ("mpc", "letter", "gutterfold", "mini")
