"""Build speed and memory, each measured against a floor in the same run (issue 14).

    python3 benchmarks/bench_build.py [--repeat 5] [--big 5000] [--only PART ...]

PART is one of sheets (1), png (2), rulebooks (3), full (4 and 5), list (6), memory (7); the
default runs them all.

1. Home sheets + print-shop PDFs of every bundled game, built in-process, against a floor: a
   bare ReportLab script that writes, for each of the two PDFs, the same pages (same page size),
   with binary streams as cardgen writes them, the same embedded fonts (IPAex Gothic and Mincho),
   and the same number of drawing operations of every kind our file holds: form XObjects and
   their placements, saved graphics states, transforms, clipping paths, colours and line
   settings, rectangles, line segments, and text shows of the same number of glyphs (the cards'
   own characters, one font subset per show as ours), with no layout logic.  `count_drawing`
   reads the counts from our file; the floor's own file reads back with the same counts.
   Target: ratio <= 1.5 (CPU time).
2. PNG: `--only png` (drawing the print-shop PDF, rasterising every face at 300 dpi, encoding,
   writing each file) against a floor that does the same at the least: draws the floor of 1. for
   the print-shop PDF, then renders each face page of our PDF (the same pixels) with PDFium,
   encodes it with a bare numpy PNG writer (our deflate library and level) on one thread, and
   writes each file.
   Target: ratio <= 1.3 (CPU time).
3. Rulebooks (every language of every game) against a floor: a one-pass platypus document with
   the same paragraphs (Paragraph, same fonts and sizes) and tables.  What the ratio measures is
   the layout and drawing overhead of our document kit over platypus, so both sides start
   equally cold: before each book of either side the caches are cleared (as in a new process),
   and the floor gets its paragraphs from our rulebook builder (the same content preparation:
   rules text read and rendered through Jinja, words, style, figures set up) inside its timed
   region; the two differ only in what turns paragraphs into pages.  Reported with it: the
   floor's content preparation alone, the ratio without it on both sides ("layout only": ours
   less that preparation over the floor's platypus pass), and the ratio as measured before
   session 34 ("old": the floor right after ours, reusing the caches ours had just filled,
   while ours started cleared).  Ours and the floors in turn, game by game, as in 1.
   Target: ratio <= 1.3 (CPU time).
4. Cold full build of the four games in a new process, one worker: CPU seconds. Target <= 8 s.
5. The same build with --workers 1 and with all cores, alternating: wall-time ratio.
   Target <= 0.6 on 2 cores.  A --workers 1 build already encodes PNGs on a second thread, so
   it is also run held to one core (Linux only; reported, no target): the speed-up over one
   core alone.  Also reported: the least wall time any schedule could reach, the single
   worker's CPU shared perfectly over the cores plus each extra worker's start-up CPU (a new
   process importing the renderers and reading the fonts, less one importing what the CLI has
   when it starts the workers).
6. `cardgen list` in a new process: wall and CPU seconds.  Target <= 0.15 s.
7. Peak memory (max RSS) of a sheets + print-shop build of a synthetic game of --big cards and
   of 1,000 cards, in new processes; the growth per card is the difference over the cards.
   Target: <= 200 MB at 5,000 cards.

Figures are medians of --repeat runs; ratios are taken in CPU time (this process, all
threads), which other work on a shared machine distorts far less than wall time, and for 1, 2
and 3 ours and the floor run in turn, game by game, the ratio being the median of the rounds'.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reportlab import rl_config  # noqa: E402
from reportlab.lib.units import mm  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from cardgen.build import build_game, make_options  # noqa: E402
from cardgen.fonts import GOTHIC, MINCHO, register_fonts  # noqa: E402
from cardgen.load import bundled_game_ids, load_game  # noqa: E402
from cardgen.memo import Memo  # noqa: E402
from cardgen.model import Text  # noqa: E402

TARGET_PDF_RATIO = 1.5
TARGET_PNG_RATIO = 1.3
TARGET_RULEBOOK_RATIO = 1.3
TARGET_FULL_CPU_S = 8.0
TARGET_PARALLEL = 0.6
TARGET_LIST_S = 0.15
TARGET_BIG_RSS_MB = 200.0


@dataclass
class Drawing:
    """What a PDF draws, each form counted once (a shared back is one form drawn once)."""

    pages: int = 0
    rects: int = 0
    segments: int = 0  # line and curve segments
    shows: int = 0  # text-showing operations
    glyphs: int = 0
    forms: int = 0  # form XObjects (a face, a shared back, an icon), each defined once
    placements: int = 0  # forms drawn (Do)
    saves: int = 0  # graphics states saved and restored (q ... Q)
    transforms: int = 0  # cm
    clips: int = 0  # clipping paths (W, W*)
    colours: int = 0  # fill and stroke colours set (rg, RG, k, K, g, G)
    line_states: int = 0  # line width, join, cap and dash set (w, j, J, d)


def count_drawing(pdf: bytes) -> Drawing:
    from pypdf import PdfReader
    from pypdf.generic import ContentStream

    reader = PdfReader(io.BytesIO(pdf))
    seen: set[int] = set()
    forms: list = []  # keep the form objects alive, so their ids stay unique
    total = Drawing(pages=len(reader.pages))

    def count(owner, resources) -> None:
        if id(owner) in seen:
            return
        seen.add(id(owner))
        data = owner.get_contents() if hasattr(owner, "get_contents") else owner
        xobjects = (resources or {}).get("/XObject", {}) if resources else {}
        for operands, op in ContentStream(data, reader).operations:
            if op == b"re":
                total.rects += 1
            elif op in (b"l", b"c"):
                total.segments += 1
            elif op in (b"Tj", b"'", b'"'):
                total.shows += 1
                total.glyphs += len(operands[-1])
            elif op == b"TJ":
                total.shows += 1
                total.glyphs += sum(len(item) for item in operands[0] if not isinstance(item, (int, float)))
            elif op == b"q":
                total.saves += 1
            elif op == b"cm":
                total.transforms += 1
            elif op in (b"W", b"W*"):
                total.clips += 1
            elif op in (b"rg", b"RG", b"k", b"K", b"g", b"G"):
                total.colours += 1
            elif op in (b"w", b"j", b"J", b"d"):
                total.line_states += 1
            elif op == b"Do":
                total.placements += 1
                form = xobjects[operands[0]].get_object()
                if id(form) not in seen:
                    total.forms += 1
                forms.append(form)
                count(form, form.get("/Resources"))

    for page in reader.pages:
        count(page, page["/Resources"])
    return total


def floor_mismatch(ours: Drawing, floor: Drawing) -> str:
    """How the floor's drawing differs from ours ('' when it is the same; glyphs within 2 %)."""
    out = [f"{name} {getattr(ours, name)} vs {getattr(floor, name)}" for name in vars(ours)
           if name != "glyphs" and getattr(ours, name) != getattr(floor, name)]
    if abs(floor.glyphs - ours.glyphs) > 0.02 * max(1, ours.glyphs):
        out.append(f"glyphs {ours.glyphs} vs {floor.glyphs}")
    return ", ".join(out)


def card_text(game, lang: str) -> str:
    """Every text the cards carry (names, ids, every field), in `lang`, run together."""
    parts = []
    for card in game.cards:
        parts += [card.id, card.name.get(lang)]
        for value in card.fields.values():
            parts.append(value.get(lang) if isinstance(value, Text) else str(value))
    return "".join(parts)


def subset_pools(font: str, text: str, doc) -> list[tuple[int, str]]:
    """The distinct characters of `text` grouped by the font subset each falls in for `doc` (a
    show within one subset is one Tj), each group repeated to make a pool to cut shows from."""
    f = pdfmetrics.getFont(font)
    f.splitString(text, doc)  # assigns every character its subset, as drawing the text would
    groups: dict[int, list[str]] = {}
    for code, n in f.state[doc].assignments.items():
        if n >> 8 or n > 32:  # not the reserved low codes of subset 0
            groups.setdefault(n >> 8, []).append(chr(code))
    # each pool is its characters once (a cycle), then repeated so a show of up to 256 glyphs can start anywhere in the cycle
    return [(len(chars), "".join(chars) * (2 + 256 // len(chars))) for chars in groups.values()] or [(1, "x" * 257)]


def floor_pdf(game, d: Drawing, pagesize: tuple[float, float] = (210 * mm, 297 * mm), lang: str = "ja") -> bytes:
    """The bare ReportLab floor: the same pages (and page size), fonts (Gothic and Mincho), number
    of text shows and glyphs (taken from the cards' own texts), rectangles, line segments, form
    XObjects and their placements, saved graphics states, transforms and clipping paths as our
    file, written with binary streams as ours are, with no layout logic at all."""
    register_fonts()
    rl_config.useA85 = 0
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=pagesize, invariant=1, pageCompression=1, initialFontName=GOTHIC)
    text = card_text(game, lang) or "x"
    pools = {font: subset_pools(font, text, c._doc) for font in (MINCHO, GOTHIC)}
    # The drawing is shared out over the forms and the pages; the placements go on the pages.
    parts = d.pages + d.forms
    # a clipping path is a rectangle, and every page and form starts with a transform
    # and every rectangle and line batch sets its colour and width
    totals = (d.shows, d.rects - d.clips, d.segments, d.saves - d.placements, d.clips, d.transforms - d.placements - parts,
              d.colours - (d.rects - d.clips), d.line_states)
    done = shown = at = 0

    def draw() -> None:
        nonlocal at, done, shown
        # this part's exact share of each total (the shares add up to the totals)
        shows, rects, segments, saves, clips, transforms, colours, line_states = (
            max(0, n * (done + 1) // parts - n * done // parts) for n in totals)
        done += 1
        for k in range(clips):
            path = c.beginPath()
            path.rect(k % 150 * mm, k % 250 * mm, 60 * mm, 90 * mm)
            c.clipPath(path, stroke=0, fill=0)
        for k in range(rects):
            c.setFillColorRGB(0.9, 0.85 - (k % 40) * 0.01, 0.7)
            c.rect((10 + k % 150) * mm, (10 + k % 250) * mm, 40 * mm, 50 * mm, stroke=1, fill=1)
        for k in range(shows):
            font = MINCHO if k % 3 == 0 else GOTHIC
            c.setFont(font, 7)
            # one show is one Tj of `length` glyphs, as ours are: its characters from one subset
            cycle, pool = pools[font][k % len(pools[font])]
            length = d.glyphs * (shown + 1) // d.shows - d.glyphs * shown // d.shows  # glyphs shared out exactly
            shown += 1
            chunk = pool[at % cycle:at % cycle + length]
            at += length
            c.drawString((10 + (k % 3) * 63) * mm, (280 - (k // 3 % 70) * 3.8) * mm, chunk)
        for k in range(line_states):
            c.setLineWidth(0.4 + k % 3 * 0.1)
        for k in range(colours):
            (c.setStrokeColorRGB if k % 2 else c.setFillColorRGB)(0.2, 0.3 + k % 40 * 0.01, 0.4)
        for k in range(0, segments, 4):
            c.lines([(5 * mm, (10 + (k + j) % 250) * mm, 9 * mm, (10 + (k + j) % 250) * mm) for j in range(min(4, segments - k))])
        for k in range(max(saves, transforms)):
            c.saveState()
            if k < transforms:
                c.translate(0.1, 0.1)
            c.restoreState()

    for k in range(d.forms):
        c.beginForm(f"F{k}", 0, 0, 70 * mm, 95 * mm)
        draw()
        c.endForm()
    placed = 0
    for page in range(d.pages):
        draw()
        placements = d.placements * (page + 1) // d.pages - d.placements * page // d.pages
        for k in range(placements if d.forms else 0):
            c.saveState()
            c.translate((10 + k % 3 * 63) * mm, (10 + k // 3 % 3 * 88) * mm)
            c.doForm(f"F{placed % d.forms}")  # every form in turn, so each is drawn somewhere
            placed += 1
            c.restoreState()
        c.showPage()
    c.save()
    return buffer.getvalue()


def cold(options):
    """The options without the on-disk build cache: a repeat must draw everything again, as the floor does."""
    return replace(options, cache=False)


def clear_caches() -> None:
    """Forget cached text fitting, layouts and memos (not the registered fonts), so that every
    measured build does all its work, as a first build in a new process does."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("cardgen.") or name == "cardgen.fonts":
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type):
                continue  # a class with a cache_clear method (Memo) is not a cache
            if callable(value) and hasattr(value, "cache_clear") and (getattr(value, "__module__", None) == name
                                                                      or isinstance(value, Memo)):
                value.cache_clear()


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """Median wall time, median CPU time (this process, all threads) and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def page_size(pdf: bytes) -> tuple[float, float]:
    from pypdf import PdfReader

    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    return float(box.width), float(box.height)


def paired_rounds(games, repeat: int, ours, floor, what: str, detail=lambda game: "") -> float:
    """Ours and the floor in turn, game by game, `repeat` rounds; the ratio of a round is its
    total CPU time of ours over the floor's, and the result is the median of the rounds' ratios
    (a machine whose speed drifts slows both sides of a round alike). Prints each game's medians."""
    per_game: dict[str, tuple[list[float], list[float]]] = {g.id: ([], []) for g in games}
    ratios = []
    for _ in range(repeat):
        round_ours = round_floor = 0.0
        for game in games:
            cpu = time.process_time()
            ours(game)
            t_ours = time.process_time() - cpu
            cpu = time.process_time()
            floor(game)
            t_floor = time.process_time() - cpu
            per_game[game.id][0].append(t_ours)
            per_game[game.id][1].append(t_floor)
            round_ours += t_ours
            round_floor += t_floor
        ratios.append(round_ours / round_floor)
    for game in games:
        o, f = (statistics.median(v) for v in per_game[game.id])
        print(f"  {game.id:<11} {detail(game)} {what} {o * 1000:7.1f} ms CPU, floor {f * 1000:7.1f} ms: {o / f:.2f}x")
    print(f"  rounds' ratios: {', '.join(f'{r:.2f}' for r in ratios)}")
    return statistics.median(ratios)


def rulebook_rounds(games, repeat: int) -> tuple[float, float, float]:
    """Part 3's rounds: every book of a game by ours, then by the floor as measured before session
    34 (warm from ours), then by the floor started cold, game by game; the caches are cleared
    before every cold book, outside its timed region.  Medians over the rounds of the ratios
    (ours / cold floor, ours / old floor, layout only: (ours - prep) / (cold floor - prep), prep
    being the cold floor's content preparation); prints each game's medians."""
    from cardgen.render.documents.rulebook import build_rulebook

    def cpu_of(fn) -> float:
        start = time.process_time()
        fn()
        return time.process_time() - start

    names = ("ours", "floor", "prep", "old floor")
    per_game = {g.id: {n: [] for n in names} for g in games}
    ratios: dict[str, list[float]] = {"new": [], "old": [], "layout": []}
    for _ in range(repeat):
        total = dict.fromkeys(names, 0.0)
        for game in games:
            spent = dict.fromkeys(names, 0.0)
            for lang in game.languages:
                clear_caches()  # each book does all its work, as the first in a new process
                spent["ours"] += cpu_of(lambda: build_rulebook(game, lang))
            for lang in game.languages:  # the old floor: our caches of this game still warm
                spent["old floor"] += cpu_of(lambda: floor_rulebook(game, lang))
            for lang in game.languages:
                clear_caches()
                content: list = []
                prep = cpu_of(lambda: content.extend(rulebook_content(game, lang)))
                spent["prep"] += prep
                spent["floor"] += prep + cpu_of(lambda: floor_rulebook(game, lang, content))
            for n in names:
                per_game[game.id][n].append(spent[n])
                total[n] += spent[n]
        ratios["new"].append(total["ours"] / total["floor"])
        ratios["old"].append(total["ours"] / total["old floor"])
        ratios["layout"].append((total["ours"] - total["prep"]) / (total["floor"] - total["prep"]))
    for game in games:
        m = {n: statistics.median(v) * 1000 for n, v in per_game[game.id].items()}
        print(f"  {game.id:<11} {'+'.join(game.languages)} rulebooks {m['ours']:7.1f} ms CPU, floor {m['floor']:7.1f} ms "
              f"(content preparation {m['prep']:5.1f} ms): {m['ours'] / m['floor']:.2f}x; old floor {m['old floor']:7.1f} ms")
    print(f"  rounds' ratios: {', '.join(f'{r:.2f}' for r in ratios['new'])}")
    return tuple(statistics.median(ratios[k]) for k in ("new", "old", "layout"))  # type: ignore[return-value]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def floor_pngs(shop_pdf: bytes, pages: list[int], dpi: int = 300, into: Path | None = None) -> int:
    """The raster part of the PNG floor: render each page `pages` names with PDFium (RGB, 300 dpi)
    and make a PNG (Up filter, deflated by the same library at the same level as ours, one
    thread), written to a file in `into` as ours are.  Returns the bytes made."""
    import numpy as np
    import pypdfium2 as pdfium

    from cardgen.render.cards.raster import PNG_LEVEL, _deflate

    if into is not None:
        into.mkdir(parents=True, exist_ok=True)
    pdf = pdfium.PdfDocument(shop_pdf)
    made = 0
    for index in pages:
        page = pdf[index]
        bitmap = page.render(scale=dpi / 72, rev_byteorder=True)
        pixels = bitmap.to_numpy()[:, :, :3]
        h, w = pixels.shape[:2]
        rows = np.empty((h, w * 3 + 1), dtype=np.uint8)
        rows[:, 0] = 2
        body = rows[:, 1:].reshape(h, w, 3)
        body[0] = pixels[0]
        np.subtract(pixels[1:], pixels[:-1], out=body[1:])
        data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + _chunk(b"IDAT", _deflate.compress(rows, PNG_LEVEL)) + _chunk(b"IEND", b""))
        made += len(data)
        if into is not None:
            (into / f"{index}.png").write_bytes(data)
        bitmap.close()
        page.close()
    pdf.close()
    return made


def png_pages(game) -> list[int]:
    """The print-shop pages cardgen writes as PNGs: every front and own back, each shared back once."""
    from cardgen.render.cards.card import faces
    from cardgen.render.print.printshop import page_labels

    seen, pages = set(), []
    for index, _, _, group in page_labels(game, faces(game)):
        if group is not None:
            if group in seen:
                continue
            seen.add(group)
        pages.append(index)
    return pages


def _floor_doc(buffer):
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    return SimpleDocTemplate(buffer, pagesize=A4, invariant=1, pageCompression=1, initialFontName=GOTHIC,
                             leftMargin=18 * mm, rightMargin=18 * mm, topMargin=20 * mm, bottomMargin=20 * mm)


def rulebook_content(game, lang: str) -> list:
    """The rulebook's content as our builder prepares it (paragraphs, tables, figures), for the floor."""
    from cardgen.render.documents.rulebook import _Builder

    return _Builder(game, lang).flowables(_floor_doc(io.BytesIO()).width)


def floor_rulebook(game, lang: str, content: list | None = None) -> bytes:
    """The rulebook floor: one platypus pass over the same paragraphs (as Paragraphs in the same
    fonts and sizes) and tables (their cells as Paragraphs), no contents, no figures; `content`
    is `rulebook_content(game, lang)`, prepared here if not given."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, Table
    from reportlab.platypus.tables import TableStyle

    from cardgen.render.documents.rulebook import TextBlock

    rl_config.useA85 = 0
    if content is None:
        content = rulebook_content(game, lang)
    buffer = io.BytesIO()
    doc = _floor_doc(buffer)
    styles: dict = {}

    def style(block: TextBlock) -> ParagraphStyle:
        st = block.style
        key = (st.font, st.size, st.leading)
        if key not in styles:
            styles[key] = ParagraphStyle(f"s{len(styles)}", fontName=st.font, fontSize=st.size, leading=st.leading,
                                         wordWrap="CJK" if lang == "ja" else None)
        return styles[key]

    def para(block: TextBlock) -> Paragraph:
        text = block.plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br/>")
        return Paragraph(text, style(block))

    def cell(value):
        if isinstance(value, TextBlock):
            return para(value)
        if isinstance(value, (list, tuple)):
            return [cell(v) for v in value]
        return value if isinstance(value, str) else ""

    story = []
    for flowable in content:
        if isinstance(flowable, TextBlock):
            story.append(para(flowable))
        elif isinstance(flowable, Table):
            data = [[cell(v) for v in row] for row in flowable._cellvalues]
            table = Table(data, colWidths=flowable._colWidths, repeatRows=getattr(flowable, "repeatRows", 0))
            table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, (0.6, 0.6, 0.6)), ("VALIGN", (0, 0), (-1, -1), "TOP")]))
            story.append(table)
    doc.build(story)
    return buffer.getvalue()


# A new process runs as an installed cardgen does: with its modules' bytecode cached (pip compiles
# it at install). PYTHONDONTWRITEBYTECODE, set on some development machines, would make every
# process compile every module again and measure the compiler.
_USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(args: list[str], one_core: bool = False) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system of the process and its children) and max RSS (MB)
    of a fresh process (held to one core if `one_core`); raises SystemExit if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    pin = (lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})) if one_core else None
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=_USER_ENV, preexec_fn=pin)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


# What a build worker process does before its first task (cardgen.build._init_build_worker),
# beyond what it has from the CLI process it is forked from.
WORKER_FORKED_FROM = "import cardgen.cli, cardgen.build"
WORKER_STARTUP = WORKER_FORKED_FROM + "; cardgen.build._init_build_worker(None)"

BIG_SCRIPT = r"""
import dataclasses, resource, sys, tempfile
sys.path.insert(0, {root!r})
from cardgen.build import build_game, make_options
from cardgen.load import load_game
base = load_game("ohanatsumi")
cards = [dataclasses.replace(c, id=f"{{c.id}}x{{k}}") for k in range(-(-{n} // base.total)) for c in base.cards][:{n}]
game = dataclasses.replace(base, cards=tuple(cards), declared_total={n})
with tempfile.TemporaryDirectory() as out:
    build_game(game, dataclasses.replace(make_options(out=out, outputs=("sheets", "shop")), cache=False))
# This process's own peak (VmHWM, in kB): Linux's ru_maxrss keeps the peak of the process that
# forked us across exec, so a child of a big benchmark process would report the parent's size.
try:
    peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak / 1024)
"""


def big_build_rss(n: int) -> float:
    """Max RSS (MB) of a new process building sheets + print-shop of an n-card game (ohanatsumi's
    cards repeated with new ids; made in memory, as the loader caps a game folder at 2,000 cards)."""
    proc = subprocess.run([sys.executable, "-c", BIG_SCRIPT.format(root=str(ROOT), n=n)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{n}-card build failed:\n{proc.stderr[-3000:]}")
    return float(proc.stdout.strip().splitlines()[-1])


def machine_speed(repeat: int) -> float:
    """CPU seconds of a fixed pure-Python workload (loops, dicts, strings), median of `repeat`:
    the absolute targets (4 and 6) hold on a machine of one speed, and these shared machines'
    speed differs from one session to the next by up to 2x; ratios to a floor do not depend on it."""
    def work() -> None:
        counts: dict[str, int] = {}
        for i in range(600_000):
            key = "k" + str(i % 997)
            counts[key] = counts.get(key, 0) + i
    return timed(work, repeat)[1]


PARTS = ("sheets", "png", "rulebooks", "full", "list", "memory")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big", type=int, default=5000, help="cards of the synthetic game for the memory figure")
    parser.add_argument("--only", action="append", choices=PARTS, help="run only this part (repeatable; default: all)")
    args = parser.parse_args()
    chosen = set(args.only or PARTS)
    games = [load_game(g) for g in bundled_game_ids()]
    print(f"games: {', '.join(g.id for g in games)} ({sum(g.total for g in games)} cards); {os.cpu_count()} cores; "
          f"load average before: {os.getloadavg()[0]:.2f}; medians of {args.repeat} runs")
    print(f"machine speed: {machine_speed(args.repeat):.3f} CPU s for the reference workload (lower is faster)")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        cli = [sys.executable, "-m", "cardgen"]
        # 1. sheets + print shop vs the floor
        if "sheets" in chosen:
            options = cold(make_options(out=out / "a", outputs=("sheets", "shop")))
            build_game(games[0], options)  # warm fonts and layouts, as the floor's fonts are warm
            floors_of = {}
            for game in games:
                parts = []
                for pdf_path in build_game(game, options).files:
                    pdf = pdf_path.read_bytes()
                    d = count_drawing(pdf)
                    size = page_size(pdf)
                    parts.append((d, size))
                    mismatch = floor_mismatch(d, count_drawing(floor_pdf(game, d, size)))
                    if mismatch:
                        ok = False
                        print(f"  {pdf_path.name}: the floor does not draw what ours does: {mismatch}")
                floors_of[game.id] = parts
            ratio = paired_rounds(
                games, args.repeat,
                lambda game: (clear_caches(), build_game(game, options)),
                lambda game: [floor_pdf(game, d, size) for d, size in floors_of[game.id]],
                "sheets + shop")
            ok &= ratio <= TARGET_PDF_RATIO
            print(f"1. sheets + print-shop PDFs, all games: ratio {ratio:.2f} (target <= {TARGET_PDF_RATIO})")
        # 2. PNG vs the PNG floor
        if "png" in chosen:
            png_options = cold(make_options(out=out / "p", outputs=("png",)))
            shop_options = cold(make_options(out=out / "s", outputs=("shop",)))
            png_floor_of = {}
            for game in games:
                shop = build_game(game, shop_options).files[0].read_bytes()
                # ours draws the print-shop PDF, then renders, encodes and writes each face: so does the floor
                # (the floor's drawing is timed; the faces rendered are ours, the same pixels)
                png_floor_of[game.id] = (shop, png_pages(game), count_drawing(shop), page_size(shop))
            floor_dir = out / "floor-png"

            def png_floor(game) -> None:
                shop, pages, drawing, size = png_floor_of[game.id]
                floor_pdf(game, drawing, size)
                floor_pngs(shop, pages, into=floor_dir)

            faces_n = sum(len(png_floor_of[g.id][1]) for g in games)
            ratio = paired_rounds(games, args.repeat, lambda game: (clear_caches(), build_game(game, png_options)), png_floor,
                                  "PNG", lambda game: f"{len(png_floor_of[game.id][1]):>3} faces")
            ok &= ratio <= TARGET_PNG_RATIO
            print(f"2. PNG, {faces_n} faces: ratio {ratio:.2f} (target <= {TARGET_PNG_RATIO})")
        # 3. rulebooks vs a one-pass platypus floor
        if "rulebooks" in chosen:
            from cardgen.render.documents.rulebook import build_rulebook

            for game in games:  # warm fonts and imports, on both sides
                for lang in game.languages:
                    build_rulebook(game, lang)
                    floor_rulebook(game, lang)
            books = sum(len(g.languages) for g in games)
            ratio, old, layout_only = rulebook_rounds(games, args.repeat)
            ok &= ratio <= TARGET_RULEBOOK_RATIO
            print(f"3. rulebooks ({books}): ratio {ratio:.2f} (target <= {TARGET_RULEBOOK_RATIO}); "
                  f"layout only {layout_only:.2f}, old {old:.2f} (reported)")
        # 4 and 5. cold full builds, one worker and all cores, alternating
        if "full" in chosen:
            one, many, core = [], [], []
            pinnable = hasattr(os, "sched_setaffinity")
            for i in range(args.repeat):
                one.append(run([*cli, "build", "--out", str(out / f"w1-{i}"), "--workers", "1"]))
                many.append(run([*cli, "build", "--out", str(out / f"wn-{i}")]))
                if pinnable:
                    core.append(run([*cli, "build", "--out", str(out / f"c1-{i}"), "--workers", "1"], one_core=True))
            full_cpu = statistics.median(c for _, c, _ in one)
            ok &= full_cpu <= TARGET_FULL_CPU_S
            print(f"4. cold full build, --workers 1: {full_cpu:.2f} CPU s, {statistics.median(w for w, _, _ in one):.2f} s wall "
                  f"(target <= {TARGET_FULL_CPU_S:g} CPU s)")
            pratio = statistics.median(b[0] / a[0] for a, b in zip(one, many))
            ok &= pratio <= TARGET_PARALLEL
            print(f"5. cold full build, all {os.cpu_count()} cores: {statistics.median(w for w, _, _ in many):.2f} s wall, "
                  f"{statistics.median(c for _, c, _ in many):.2f} CPU s; wall ratio to one worker {pratio:.2f} (target <= {TARGET_PARALLEL})")
            # The least wall time any schedule could reach: the single worker's CPU (its PNG encoder
            # threads included) shared perfectly over the cores, plus what each extra worker process
            # must do before it can build (its imports and fonts), nothing else.
            startup = statistics.median(run([sys.executable, "-c", WORKER_STARTUP])[1] - run([sys.executable, "-c", WORKER_FORKED_FROM])[1]
                                        for _ in range(args.repeat))
            cores = os.cpu_count() or 1
            least = (full_cpu + (cores - 1) * startup) / cores
            print(f"   least wall on {cores} cores: (one worker's {full_cpu:.2f} CPU s + {cores - 1} worker start-up of {startup:.2f} s) "
                  f"/ {cores} = {least:.2f} s: ratio {least / statistics.median(w for w, _, _ in one):.2f} (reported)")
            if core:
                print(f"   one worker held to one core: {statistics.median(w for w, _, _ in core):.2f} s wall; all cores' wall ratio "
                      f"to it {statistics.median(b[0] / c[0] for b, c in zip(many, core)):.2f} (reported)")
        # 6. cardgen list
        if "list" in chosen:
            lists = [run([*cli, "list"]) for _ in range(args.repeat)]
            list_wall = statistics.median(w for w, _, _ in lists)
            ok &= list_wall <= TARGET_LIST_S
            print(f"6. cardgen list: {list_wall:.3f} s wall, {statistics.median(c for _, c, _ in lists):.3f} CPU s "
                  f"(python -c pass: {statistics.median(run([sys.executable, '-c', 'pass'])[0] for _ in range(args.repeat)):.3f} s) "
                  f"(target <= {TARGET_LIST_S})")
    # 7. memory of a big build
    if "memory" in chosen:
        small, big = big_build_rss(1000), big_build_rss(args.big)
        per_card = (big - small) * 1024 / (args.big - 1000)
        ok &= big <= TARGET_BIG_RSS_MB
        print(f"7. sheets + shop of {args.big} cards: peak RSS {big:.0f} MB (1,000 cards: {small:.0f} MB): "
              f"{per_card:.1f} KB per card (target <= {TARGET_BIG_RSS_MB:g} MB)")
    print(f"load average after: {os.getloadavg()[0]:.2f}; machine speed after: {machine_speed(args.repeat):.3f} CPU s")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
