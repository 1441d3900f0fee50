"""Rebuild speed with the build cache, and how fast `cardgen watch` shows a save (issue 10).

    python3 benchmarks/bench_rebuild.py [--repeat 3] [--game ohanatsumi]

1. Cold build against a rebuild after changing one card's text (one copy's `boss_text` in
   ohanatsumi), CPU time, in the same run:
   - cold: `cardgen build GAME --workers 1` in a new process, empty output folder (so no cache);
     the CPU time of the whole process (start-up, imports and fonts included).
   - watch rebuild: `Watcher.rebuild` in a process that has built once (what `cardgen watch`
     does after a save); its CPU time.  Target: <= 0.35 x cold.
   - CLI rebuild: `cardgen build GAME --workers 1` again in a new process, cache warm.  Reported.
2. `cardgen watch` latency: from writing cards.yaml to preview.html naming the new build
   (preview-build.js changes), for the bundled game with at least 100 cards.  Target: <= 2 s.

Figures are medians of --repeat runs (each on a fresh copy of the game).  The CPU times are this
machine's, taken with resource.getrusage (process and its waited-for children).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_RATIO = 0.35
TARGET_LATENCY_S = 2.0
EDITS = {  # a text of one card (one copy) per game, and what to change it to; a new value each edit
    "ohanatsumi": "店主の検品がやたらと丁寧で",
}

_WATCH_ONCE = r"""
import resource, sys, time
from pathlib import Path
from cardgen.build import make_options
from cardgen.watch import Watcher
game, out, old, new = sys.argv[1:5]
watcher = Watcher(game, make_options(out=out), lambda line: None)
assert watcher.rebuild()
cards = Path(game) / "cards.yaml"
cards.write_text(cards.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
start = time.process_time()
lines = []
watcher.echo = lines.append
assert watcher.rebuild([cards])
print(time.process_time() - start)
print(lines[-1], file=sys.stderr)
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_cpu(args: list[str], env: dict) -> tuple[float, str]:
    before = _children_cpu()
    run = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{run.stdout}\n{run.stderr}")
    return _children_cpu() - before, run.stdout + run.stderr


def _copy(game: str, into: Path) -> Path:
    from cardgen.load import bundled_games_dir

    target = into / game
    shutil.copytree(bundled_games_dir() / game, target)
    return target


def rebuild_ratio(game: str, repeat: int, env: dict) -> None:
    old = EDITS[game]
    cold, watch_rebuild, cli_rebuild = [], [], []
    for i in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            folder = _copy(game, Path(tmp))
            out = Path(tmp) / "out"
            build = [sys.executable, "-m", "cardgen", "build", str(folder), "--out", str(out), "--workers", "1"]
            cpu, _ = _run_cpu(build, env)
            cold.append(cpu)
            cards = folder / "cards.yaml"
            cards.write_text(cards.read_text(encoding="utf-8").replace(old, old[:-1] + f"{i}" + old[-1]), encoding="utf-8")
            cpu, _ = _run_cpu(build, env)
            cli_rebuild.append(cpu)
            # The same build again, nothing changed: a new process must find every entry (the keys
            # hold nothing of a process, but they do hold cardgen's own source: an edit to it misses).
            entries = len(list((out / ".cache" / game).iterdir()))
            _run_cpu(build, env)
            added = len(list((out / ".cache" / game).iterdir())) - entries
            if added:
                print(f"  run {i + 1}: an unchanged rebuild in a new process missed the cache ({added} new entries): "
                      f"was cardgen's source edited meanwhile?")
            # the watch rebuild: a process that has built once, then rebuilds after the edit
            shutil.rmtree(out)
            run = subprocess.run([sys.executable, "-c", _WATCH_ONCE, str(folder), str(out), old[:-1] + f"{i}" + old[-1],
                                  old[:-1] + f"{i}x" + old[-1]], capture_output=True, text=True, env=env, cwd=ROOT)
            if run.returncode != 0:
                raise SystemExit(run.stderr)
            watch_rebuild.append(float(run.stdout.split()[-1]))
            said = run.stderr.strip().splitlines()[-1]
        print(f"  run {i + 1}: cold {cold[-1]:.2f} s, watch rebuild {watch_rebuild[-1]:.2f} s, CLI rebuild {cli_rebuild[-1]:.2f} s"
              f"   [{said.split(' ', 1)[1]}]")
    c, w, b = (statistics.median(x) for x in (cold, watch_rebuild, cli_rebuild))
    print(f"  cold build (new process, --workers 1):        {c:.2f} s CPU")
    print(f"  rebuild after one card changed, in watch:    {w:.2f} s CPU = {w / c:.2f} x cold "
          f"(target <= {TARGET_RATIO}) {'PASS' if w / c <= TARGET_RATIO else 'FAIL'}")
    print(f"  rebuild after one card changed, new process: {b:.2f} s CPU = {b / c:.2f} x cold (reported)")


def watch_latency(game: str, repeat: int, env: dict) -> None:
    from cardgen.load import load_game

    old = EDITS[game]
    total = load_game(game).total
    with tempfile.TemporaryDirectory() as tmp:
        folder = _copy(game, Path(tmp))
        out = Path(tmp) / "out"
        marker = out / game / "preview-build.js"
        proc = subprocess.Popen([sys.executable, "-m", "cardgen", "watch", str(folder), "--out", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(env, PYTHONUNBUFFERED="1"), cwd=ROOT)
        try:
            while not (line := proc.stdout.readline()).startswith("watching"):
                if not line:
                    raise SystemExit("cardgen watch ended before watching")
            time.sleep(0.5)
            cards = folder / "cards.yaml"
            latencies = []
            current = old
            for i in range(repeat):
                before = marker.read_text()
                edited = old[:-1] + f"{i}" + old[-1]
                text = cards.read_text(encoding="utf-8").replace(current, edited)
                current = edited
                start = time.perf_counter()
                cards.write_text(text, encoding="utf-8")
                while marker.read_text() == before:
                    if time.perf_counter() - start > 30:
                        raise SystemExit("preview.html did not change within 30 s")
                    time.sleep(0.01)
                latencies.append(time.perf_counter() - start)
                said = proc.stdout.readline().strip()  # the rebuild's line: wait for it to finish before the next save
                print(f"  save {i + 1}: preview updated after {latencies[-1]:.2f} s   [{said}]")
        finally:
            proc.terminate()
            proc.wait(10)
    m = statistics.median(latencies)
    print(f"  {game} ({total} cards): save -> preview.html updated, median {m:.2f} s "
          f"(target <= {TARGET_LATENCY_S} s) {'PASS' if m <= TARGET_LATENCY_S else 'FAIL'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--game", default="ohanatsumi", choices=sorted(EDITS))
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}   (nice {os.nice(0)}, {os.cpu_count()} cores)")
    print("1. rebuild after changing one card's text")
    rebuild_ratio(args.game, args.repeat, env)
    print("2. cardgen watch: save -> preview")
    watch_latency(args.game, max(3, args.repeat), env)


if __name__ == "__main__":
    main()
