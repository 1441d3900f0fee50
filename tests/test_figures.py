"""Rulebook figures show the game's own cards: backs and faces drawn by the card renderer, deck counts
computed from the setup the figure shows, and a card's anatomy with numbered callouts at its layout
boxes. Everything is read back from the built PDF (pypdf for where each card face is placed,
pypdfium2 for pixels and text)."""

from __future__ import annotations

import io
import re
import shutil
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.errors import CardgenError
from cardgen.io.paths import package_root
from cardgen.load import bundled_games_dir, load_game
from cardgen.render.cards import icons
from cardgen.render.cards.card import card_size_mm
from cardgen.render.cards.layout import get_layout, resolve_colour
from cardgen.render.documents.figures import find_card
from cardgen.render.documents.rulebook import _Builder, build_rulebook

MM = 72 / 25.4


@lru_cache(maxsize=None)
def _book(game_id: str, lang: str = "ja") -> bytes:
    return build_rulebook(load_game(game_id), lang)


def _mul(a, b):
    """PDF matrices [a b c d e f] (row vectors): a then b."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def placed_faces(pdf: bytes) -> list[tuple[int, str, tuple[float, float, float, float]]]:
    """(page index, "Back…" or "Front…", (left, bottom, right, top) in page points) of every figure card face."""
    reader = PdfReader(io.BytesIO(pdf))
    out = []
    for index, page in enumerate(reader.pages):
        xobjects = page["/Resources"].get("/XObject", {}) if "/Resources" in page else {}
        ctm, stack = [1, 0, 0, 1, 0, 0], []
        for operands, op in ContentStream(page.get_contents(), reader).operations:
            if op == b"q":
                stack.append(ctm)
            elif op == b"Q":
                ctm = stack.pop()
            elif op == b"cm":
                ctm = _mul([float(v) for v in operands], ctm)
            elif op == b"Do" and "CardgenFig" in str(operands[0]):
                x0, y0, x1, y1 = (float(v) for v in xobjects[operands[0]].get_object()["/BBox"])
                corners = [(x * ctm[0] + y * ctm[2] + ctm[4], x * ctm[1] + y * ctm[3] + ctm[5])
                           for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
                xs, ys = [c[0] for c in corners], [c[1] for c in corners]
                out.append((index, str(operands[0]).split("CardgenFig")[-1], (min(xs), min(ys), max(xs), max(ys))))
    return out


def _back_colour(game_id: str) -> tuple[int, int, int]:
    """The fill of the back's full-card background rect, from the game's layout."""
    game = load_game(game_id)
    layout = get_layout(game)
    boxes, _ = layout.boxes(game.cards[0], "back")
    field = next(b for b in boxes if b.kind == "rect" and b.w >= layout.width - 0.01 and b.h >= layout.height - 0.01
                 and b.value("fill", {}, "ja"))
    rgb = icons.colour(resolve_colour(field.value("fill", {}, "ja"), layout.colours))
    return tuple(round(255 * v) for v in (rgb.red, rgb.green, rgb.blue))


@pytest.mark.parametrize("game_id", ["llll", "requiem"])
def test_a_figures_face_down_card_is_the_games_own_back(game_id):
    pdf = _book(game_id)
    backs = [p for p in placed_faces(pdf) if p[1].startswith("Back")]
    assert backs, "no back drawn in the figures"
    w_mm, h_mm = card_size_mm(load_game(game_id))
    page_index, _, (left, bottom, right, top) = backs[0]
    # the slot has the card's proportions
    assert (top - bottom) / (right - left) == pytest.approx(h_mm / w_mm, rel=0.01)
    scale = 150 / 72
    image = pdfium.PdfDocument(pdf)[page_index].render(scale=scale).to_pil().convert("RGB")
    height = image.height
    inset = 0.12 * (right - left)
    pixels = [image.getpixel((int(x * scale), int(height - y * scale)))
              for x in range(int(left + inset), int(right - inset), 2)
              for y in range(int(bottom + inset), int(top - inset), 2)]
    common, _ = Counter(pixels).most_common(1)[0]
    expected = _back_colour(game_id)
    assert max(abs(a - b) for a, b in zip(common, expected)) <= 6, (common, expected)


def _deck_counts(pdf: bytes) -> set[str]:
    """The numbers printed on the figures' face-down cards (a deck's label, e.g. 「16枚」)."""
    doc = pdfium.PdfDocument(pdf)
    found: set[str] = set()
    for page_index, name, (left, bottom, right, top) in placed_faces(pdf):
        if name.startswith("Back"):
            text = doc[page_index].get_textpage().get_text_bounded(left, bottom, right, top)
            found.update(re.sub(r"\s+", " ", m) for m in re.findall(r"\d+(?:\s*枚|\s+cards)?", text))
    return found


def test_alice_deck_count_is_the_total_less_the_cards_the_figure_lays_out():
    game = load_game("alice")
    spec = _Builder(game, "ja").figures()["setup"]
    out = 0
    for item in spec["items"]:
        if item["type"] == "card" and item.get("card"):
            out += 1
        if item["type"] == "row":
            out += sum(1 for c in item.get("cards") or [] if c)
    assert out == 7  # discard 1, memo 2, record 4, as the figure shows them
    assert _deck_counts(_book("alice")) == {f"{game.total - out}枚"}


def test_llll_deck_count_is_the_total_less_the_castle_and_the_cards_set_aside():
    game = load_game("llll")
    spec = _Builder(game, "en").figures()["setup"]
    castle = next(i for i in spec["items"] if i["type"] == "row")
    players = int(castle["n"])
    expected = game.total - players - game.param("set_aside_unseen")[players]
    assert expected < game.total
    assert _deck_counts(_book("llll", "en")) == {f"{expected} cards"}


@pytest.mark.parametrize("game_id,ref,names", [
    ("llll", "general", ["name", "initial", "ability", "stars", "copies", "number"]),
    ("alice", "red_weapon", ["crime", "colour_name", "crime_name", "clue", "event", "card_id"]),
])
def test_anatomy_markers_sit_beside_their_boxes(game_id, ref, names):
    pdf = _book(game_id)
    game = load_game(game_id)
    layout = get_layout(game)
    fronts = [p for p in placed_faces(pdf) if p[1].startswith("Front")]
    page_index, _, (left, bottom, right, top) = max(fronts, key=lambda p: p[2][2] - p[2][0])
    scale = (right - left) / (layout.width * MM)
    textpage = pdfium.PdfDocument(pdf)[page_index].get_textpage()
    markers: dict[str, list[tuple[float, float]]] = {}
    for i in range(textpage.count_chars()):
        ch = textpage.get_text_range(i, 1)
        l, b, r, t = textpage.get_charbox(i)
        cx, cy = (l + r) / 2, (b + t) / 2
        if ch.isdigit() and bottom - 5 * MM < cy < top + 5 * MM and not left <= cx <= right \
                and min(abs(cx - left), abs(cx - right)) < 15 * MM:
            markers.setdefault(ch, []).append((cx, cy))
    boxes = {b.name: b for b in layout.boxes(find_card(game, ref), "front")[0]}
    for n, name in enumerate(names, 1):
        assert len(markers.get(str(n), [])) == 1, f"marker {n} for box {name}: {markers.get(str(n))}"
        mx, my = markers[str(n)][0]
        box = boxes[name]
        box_top = top - box.y * MM * scale
        box_bottom = top - (box.y + box.h) * MM * scale
        nearest = min(max(my, box_bottom), box_top)
        assert abs(my - nearest) <= 3 * MM, f"marker {n} is {abs(my - nearest) / MM:.1f} mm off box {name}"
        on_left = box.x + box.w / 2 < layout.width / 2
        assert (mx < left) == on_left, f"marker {n} is on the wrong side of the card for box {name}"


# -- hostile input: every mistake at its file:line ----------------------------------------------

@pytest.fixture
def llll_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "llll"
    shutil.copytree(bundled_games_dir() / "llll", root)
    shutil.copytree(package_root() / "templates" / "llll", root / "templates")
    shutil.copyfile(package_root() / "templates" / "rulebook" / "figures" / "llll.yaml", root / "templates" / "figures.yaml")
    return root


def _replace(path: Path, old: str, new: str) -> int:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


def _error(call) -> str:
    with pytest.raises(CardgenError) as info:
        call()
    message = str(info.value)
    assert "Traceback" not in message
    return message


def test_an_unknown_card_in_a_figure_is_refused_at_its_line(llll_folder):
    line = _replace(llll_folder / "templates" / "figures.yaml", "card: priest,", "card: priestess,")
    message = _error(lambda: build_rulebook(load_game(str(llll_folder)), "ja"))
    assert re.search(rf"figures\.yaml:{line}:\d+", message), message
    assert "priestess" in message


def test_a_row_naming_an_unknown_card_is_refused_at_its_line(llll_folder):
    line = _replace(llll_folder / "templates" / "figures.yaml", "cards: [\"\", {{", "cards: [\"\", nobody, {{")
    message = _error(lambda: build_rulebook(load_game(str(llll_folder)), "en"))
    assert re.search(rf"figures\.yaml:{line}:\d+", message) and "nobody" in message, message


def test_a_row_card_that_is_not_a_name_is_refused_at_its_line(llll_folder):
    line = _replace(llll_folder / "templates" / "figures.yaml", "cards: [\"\", {{", "cards: [{a: [1]}, {{")
    message = _error(lambda: build_rulebook(load_game(str(llll_folder)), "ja"))
    assert re.search(rf"figures\.yaml:{line}:\d+", message) and "card id" in message, message


@pytest.mark.parametrize("old,new,word", [
    ("card_anatomy('general',", "card_anatomy('LL99',", "LL99"),
    ("boxes=['name', 'initial',", "boxes=['name', 'initials',", "initials"),
    ("boxes=['name', 'initial', 'ability', 'stars', 'copies', 'number']", "boxes=7", "box names"),
    ("boxes=['name', 'initial',", "boxes=[{'a': 1}, 'initial',", "box names"),
    ("'number']) }}", "'number'], width_mm=500) }}", "width_mm"),
])
def test_card_anatomy_mistakes_are_refused_at_the_rules_line(llll_folder, old, new, word):
    line = _replace(llll_folder / "rules.ja.md", old, new)
    message = _error(lambda: build_rulebook(load_game(str(llll_folder)), "ja"))
    assert re.search(rf"rules\.ja\.md:{line}:\d+", message), message
    assert word in message
