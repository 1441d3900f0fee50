"""CPU time of the home-print PDFs by imposition, against the duplex build before issue 11.

    python benchmarks/bench_imposition.py [--repeat 7] [--paper a4]

Builds the home-print PDF (`sheets_pdf`, what `cardgen build --only sheets` renders) of all
four bundled games, in this process:

- before:     `cardgen/render/print/sheet.py` as it was before issue 11 part A (read from git,
              commit BASELINE), duplex long, no bleed: "today's duplex build";
- duplex:     the current default (automatic home bleed, haloed marks, checklist page);
- gutterfold: the current gutterfold pages (and checklist);
- simplex:    for reference.

Each run renders all four games; runs are interleaved (before, duplex, gutterfold, simplex,
before, ...) after one warm-up round, and the median CPU time (time.process_time) of each is
reported with its ratio to `before`.  Target (issue 11): duplex and gutterfold <= 1.3x.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardgen.load import bundled_game_ids, load_game  # noqa: E402
from cardgen.render.cards import card as card_render  # noqa: E402
from cardgen.render.print import sheet  # noqa: E402

BASELINE = "9889df3"  # the last commit before the issue 11 part A sheet changes
TARGET = 1.3


def load_baseline():
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASELINE}:cardgen/render/print/sheet.py"],
                            check=True, capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("cardgen.render._sheet_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "cardgen.render"
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, "sheet.py@" + BASELINE, "exec"), module.__dict__)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--paper", default="a4", choices=sorted(sheet.PAPERS))
    args = parser.parse_args()
    before = load_baseline()
    games = [load_game(g) for g in bundled_game_ids()]
    decks = [(g, card_render.faces(g), card_render.card_size_mm(g)) for g in games]

    def run_before():
        for game, pairs, size in decks:
            before.sheets_pdf(game, pairs, before.compute_layout(args.paper, *size), "long", (0.0, 0.0), "ja", [])

    def run(imposition):
        def go():
            for game, pairs, size in decks:
                layout = sheet.compute_layout(args.paper, *size, None, imposition=imposition)
                sheet.sheets_pdf(game, pairs, layout, "long", (0.0, 0.0), "ja", [])
        return go

    runs = {"before": run_before, "duplex": run("duplex"), "gutterfold": run("gutterfold"), "simplex": run("simplex")}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for name, fn in runs.items():  # warm-up: fonts, layouts, text caches
        fn()
    for _ in range(args.repeat):
        for name, fn in runs.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    base = statistics.median(times["before"])
    print(f"home-print PDFs of {', '.join(g.id for g in games)} on {args.paper}, median CPU of {args.repeat} runs")
    ok = True
    for name, ts in times.items():
        med = statistics.median(ts)
        ratio = med / base
        judged = name in ("duplex", "gutterfold")
        verdict = ("ok" if ratio <= TARGET else "OVER") if judged else ""
        ok &= ratio <= TARGET or not judged
        print(f"  {name:<10} {med * 1000:8.1f} ms  {ratio:5.2f}x  {verdict}")
    print(f"target: duplex and gutterfold <= {TARGET}x of before ({BASELINE} duplex): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
