"""The layers of cardgen (ARCHITECTURE.md): imports only look down, and no two modules import each other.

Every `import` and `from ... import` between modules of the package, at the top or inside a
function, is read from the source with `ast` (as /work/shared/tools/import_cycles.py counts them).
`LAYERS` places every module; a module may import its own layer or one below, except that
engine and render never import each other, and inside render `cards` < `print` < `documents`.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import cardgen

PACKAGE = Path(cardgen.__file__).resolve().parent

# Each module (by its longest listed prefix) and its layer, lowest first. Keep ARCHITECTURE.md in step.
LAYERS: dict[str, int] = {
    # 0: plain data, readers and the rules every layer shares
    "cardgen.io": 0, "cardgen.model": 0, "cardgen.text": 0, "cardgen.sizes": 0, "cardgen.langs": 0, "cardgen.printed": 0,
    "cardgen.errors": 0, "cardgen.files": 0, "cardgen.memo": 0, "cardgen.fonts": 0, "cardgen.workers": 0,
    "cardgen.metrics": 0, "cardgen.agent_settings": 0, "cardgen.sweep_result": 0, "cardgen.registry": 0,
    # 1: the game model from a folder, and what reads it back out
    "cardgen.load": 1, "cardgen.words": 1, "cardgen.style": 1, "cardgen.mapping": 1, "cardgen.export": 1,
    # 2: the rules engine and the renderers, side by side
    "cardgen.engine": 2, "cardgen.render": 2,
    # 3: what composes them: checks, builds (with their cache, preview and presets), analyses, new games
    "cardgen.checks": 3, "cardgen.build": 3, "cardgen.cache": 3, "cardgen.preview": 3, "cardgen.presets": 3, "cardgen.handoff": 3,
    "cardgen.analysis": 3, "cardgen.scaffold": 3, "cardgen.testing": 3,
    # 4: commands
    "cardgen.cli": 4, "cardgen.commandline": 4, "cardgen.watch": 4, "cardgen.__main__": 4,
}
# Layer 2's two sides, which never import each other.
SIDES = ("cardgen.engine", "cardgen.render")
# Inside render: colour conversion below all; a face (cards) knows nothing of paper (print) or
# documents; print arranges faces; documents compose pages and may place faces.
RENDER: dict[str, int] = {"cardgen.render": 0, "cardgen.render.colour": 0, "cardgen.render.forms": 0, "cardgen.render.cards": 1,
                          "cardgen.render.print": 2, "cardgen.render.documents": 3}
# The model is plain data: it imports nothing of cardgen.
IMPORTS_NOTHING = ("cardgen.model",)


def modules(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package __init__)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def import_edges(root: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}, for imports between modules of the package.

    An import of a name resolves to the longest module it names (`from . import core` is
    cardgen.engine.core); a module importing its own package (`from .. import engine`) is
    no edge, as the package's __init__ runs before its members anyway."""
    mods = modules(root)
    edges: dict[str, dict[str, int]] = {m: {} for m in mods}
    for name, (path, is_package) in mods.items():
        base = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base[: len(base) - (node.level - 1)]
                    stem = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    edges[name].setdefault(target, node.lineno)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _place(name: str, table: dict[str, int]) -> tuple[str, int] | None:
    """The longest prefix of `name` in `table`, with its layer."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in table:
            return prefix, table[prefix]
    return None


def layer_violations(edges: dict[str, dict[str, int]]) -> list[str]:
    """Every import that looks up or sideways, as 'importer:line imports target (why)'."""
    wrong = []
    for name, targets in sorted(edges.items()):
        if name == "cardgen":
            continue
        if _place(name, LAYERS) is None:
            wrong.append(f"{name} has no layer: place it in tests/test_layers.py LAYERS and ARCHITECTURE.md")
            continue
        for target, line in sorted(targets.items()):
            where = f"{name}:{line} imports {target}"
            if name in IMPORTS_NOTHING:
                wrong.append(f"{where} ({name} is plain data and imports nothing of cardgen)")
                continue
            (_, mine), (_, theirs) = _place(name, LAYERS), _place(target, LAYERS)
            if theirs > mine:
                wrong.append(f"{where} (layer {theirs} is above layer {mine})")
                continue
            side, other = (next((s for s in SIDES if m == s or m.startswith(s + ".")), None) for m in (name, target))
            if side and other and side != other:
                wrong.append(f"{where} ({side} and {other} never import each other)")
                continue
            if side == other == "cardgen.render":
                (inner, mine_r), (outer, theirs_r) = _place(name, RENDER), _place(target, RENDER)
                if theirs_r > mine_r:
                    wrong.append(f"{where} (inside render, {outer} is above {inner})")
    return wrong


# A made-up tree with one of each fault: the checks must find them, or a clean result means nothing.
FAULTS = {"cardgen.render.cards.card": {"cardgen.render.documents.standard_sheet": 3},
          "cardgen.render.documents.standard_sheet": {"cardgen.render.cards.card": 5},
          "cardgen.engine.llll": {"cardgen.checks": 7}, "cardgen.checks": {},
          "cardgen.load": {"cardgen.engine": 9}, "cardgen.engine": {},
          "cardgen.render.documents.report": {"cardgen.engine.simulate": 11}, "cardgen.engine.simulate": {},
          "cardgen.model": {"cardgen.errors": 1}, "cardgen.errors": {}, "cardgen.newcomer": {}}


def test_no_import_cycles():
    assert cycles(FAULTS) == [["cardgen.render.cards.card", "cardgen.render.documents.standard_sheet"]]
    found = cycles(import_edges())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_imports_only_look_down():
    assert layer_violations(FAULTS) == [
        "cardgen.engine.llll:7 imports cardgen.checks (layer 3 is above layer 2)",
        "cardgen.load:9 imports cardgen.engine (layer 2 is above layer 1)",
        "cardgen.model:1 imports cardgen.errors (cardgen.model is plain data and imports nothing of cardgen)",
        "cardgen.newcomer has no layer: place it in tests/test_layers.py LAYERS and ARCHITECTURE.md",
        "cardgen.render.cards.card:3 imports cardgen.render.documents.standard_sheet "
        "(inside render, cardgen.render.documents is above cardgen.render.cards)",
        "cardgen.render.documents.report:11 imports cardgen.engine.simulate "
        "(cardgen.render and cardgen.engine never import each other)",
    ]
    wrong = layer_violations(import_edges())
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def _cardgen_modules_loaded(code: str) -> dict[str, list[str]]:
    """Run `code` in a fresh interpreter; it prints a JSON object of lists of module names."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


IMPORT_ALL = """
import importlib, json, pkgutil, sys
def loaded():
    return sorted(m for m in sys.modules if m.startswith("cardgen"))
def import_all(name):
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(info.name)
"""


def test_the_engine_loads_no_renderer_and_nothing_above_it():
    found = _cardgen_modules_loaded(IMPORT_ALL + "import_all('cardgen.engine')\nprint(json.dumps({'loaded': loaded()}))\n")
    assert "cardgen.engine.llll" in found["loaded"]
    above = [m for m in found["loaded"] if m.startswith(("cardgen.render", "cardgen.checks", "cardgen.build", "cardgen.analysis"))]
    assert not above, f"importing cardgen.engine loaded {above}"


def test_card_faces_load_no_engine_paper_or_documents():
    """Importing the card renderers, and drawing every face of a game with art and a standard
    corner index, loads nothing of the engine, of paper or documents, nor anything above."""
    art_game = Path(__file__).parent / "fixtures" / "art_game"
    code = IMPORT_ALL + f"""
import_all("cardgen.render.cards")
imported = loaded()
import io
from reportlab.pdfgen.canvas import Canvas
from cardgen.load import load_game
from cardgen.render.colour import to_cmyk
games = [load_game("llll"), load_game({str(art_game)!r})]
before = set(loaded())
from cardgen.render.cards.card import card_size_mm, draw_corner_index, draw_face, faces
indexed = 0
for game in games:
    w, h = card_size_mm(game)
    for canvas in (Canvas(io.BytesIO()), Canvas(io.BytesIO(), enforceColorSpace=to_cmyk)):
        for front, back in faces(game):
            for face in (front, back):
                draw_face(canvas, game, face, 0, 0, w, h, 3, "en", [])
            indexed += draw_corner_index(canvas, game, front.card, 0, 0, w, h, "en")
print(json.dumps({{"imported": imported, "drawing": sorted(set(loaded()) - before), "indexed": indexed}}))
"""
    found = _cardgen_modules_loaded(code)
    assert "cardgen.render.cards.card" in found["imported"] and found["indexed"] > 0
    above = ("cardgen.engine", "cardgen.render.print", "cardgen.render.documents", "cardgen.checks", "cardgen.build",
             "cardgen.analysis")
    for step in ("imported", "drawing"):
        wrong = [m for m in found[step] if m.startswith(above)]
        assert not wrong, f"{step} the card renderers loaded {wrong}"
