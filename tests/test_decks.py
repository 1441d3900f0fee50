"""Several decks and card sizes in one game (issue 28): a game made with `cardgen new`, given a poker
main deck (two backs) and a mini deck in game.yaml, builds its sheets, print-shop PDF, PNGs, TTS
deck and tuck box per deck. Run as a user would (subprocess) and read back (PDF sizes in mm, TTS json)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from .test_imposition import marks, read

PT = 72 / 25.4  # points per mm
POKER, MINI = (63.5, 88.9), (44.0, 68.0)
A4 = (210.0, 297.0)

DECKS = """decks:
  - id: main
    name: {ja: 山札, en: Main deck}
    size: poker
    types: [sun, moon, eclipse]
  - id: mini
    name: {en: Mini cards, ja: ミニカード}
    size: mini
    types: [token]
"""
TOKEN = """  - id: token
    name: {ja: 印, en: Token}
    count: 5
    suit: sun
    power: 1
"""
# the token's face fits a mini card; the eclipse has a back of its own kind (two backs in the main deck)
LAYOUT = """backs:
  dark:
    - {name: dark_field, kind: rect, at: full, fill: moon, bleed: true}

cards:
  - match: {type: token}
    front:
      - {name: paper, kind: rect, at: full, fill: sun_tint, bleed: true}
      - {name: name, kind: text, at: [4, 4, "W-8", 8], text: "{{ name }}", size: 12, min_size: 7, align: center, colour: ink}
  - match: {type: eclipse}
    back: dark
    front:
      - {name: paper, kind: rect, at: full, fill: moon_tint, bleed: true}
      - {name: name, kind: text, at: [4, 4, "W-8", 8], text: "{{ name }}", size: 12, min_size: 7, align: center, colour: ink}
  - match: {type: [sun, moon]}
"""


def cardgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def two_decks(tmp_path_factory) -> Path:
    """`cardgen new mygame` with a mini token type and `decks:`; returns the folder holding it."""
    where = tmp_path_factory.mktemp("decks")
    made = cardgen("new", "mygame", cwd=where)
    assert made.returncode == 0, made.stderr
    game = where / "mygame"
    _edit(game / "game.yaml", "card_size: poker\n", "card_size: poker\n" + DECKS)
    _edit(game / "cards.yaml", "total: 12", "total: 17")
    (game / "cards.yaml").write_text((game / "cards.yaml").read_text(encoding="utf-8") + TOKEN, encoding="utf-8")
    _edit(game / "templates" / "layout.yaml", "cards:\n  - front:", LAYOUT + "    front:")
    _edit(game / "mapping.yaml", "types:\n", "types:\n  token: {print: true, reason: {ja: 印は別の山, en: tokens are a deck apart}}\n")
    return where


@pytest.fixture(scope="module")
def built(two_decks) -> Path:
    done = cardgen("build", "mygame", "--out", "out", "--lang", "en", "--workers", "1",
                   *[f"--only={o}" for o in ("sheets", "shop", "tts", "tuckbox", "rules")], cwd=two_decks)
    assert done.returncode == 0, done.stdout + done.stderr
    return two_decks / "out" / "mygame"


def _card_size(segs) -> tuple[float, float]:
    """The card's trimmed width and height on a sheet, in mm: the widest gap between the cut lines
    its crop marks show (the narrow gaps are the bleed between two cards)."""
    def widest(values):
        lines = sorted({round(v, 2) for v in values})
        return max(b - a for a, b in zip(lines, lines[1:]))
    cut = marks(segs)
    return widest(x1 for x1, y1, x2, y2 in cut if abs(x1 - x2) < 1e-6), widest(y1 for x1, y1, x2, y2 in cut if abs(y1 - y2) < 1e-6)


@pytest.mark.parametrize("deck, size, cards", [("main", POKER, 12), ("mini", MINI, 5)])
def test_each_deck_has_its_own_sheets_print_shop_pdf_and_tuck_box_at_its_card_size(built, deck, size, cards):
    folder = built / "decks" / deck
    sheets = PdfReader(folder / f"mygame-{deck}-cards-a4-en.pdf")
    page = sheets.pages[0]
    assert (float(page.mediabox.width) / PT, float(page.mediabox.height) / PT) == pytest.approx(A4, abs=0.01)
    forms, segs = read(sheets, page)
    fronts = {f.card_id for f in forms}
    kind = "token" if deck == "mini" else ("sun", "moon", "eclipse")
    assert fronts and all(card.startswith(kind) for card in fronts)  # one deck, one card size, on a sheet
    assert _card_size(segs) == pytest.approx(size, abs=0.01)
    assert ("Main deck" if deck == "main" else "Mini cards") in page.extract_text()  # the page says which deck

    shop = PdfReader(folder / f"mygame-{deck}-print-shop-en.pdf")
    assert len(shop.pages) == 2 * cards
    trims = {(round(float(p.trimbox.width) / PT, 2), round(float(p.trimbox.height) / PT, 2)) for p in shop.pages}
    assert trims == {size}

    # the deck's own tuck box: its cards, sized for its card (a little clearance around it)
    tuck = PdfReader(folder / f"mygame-{deck}-tuckbox-en.pdf").pages[0].extract_text()
    found = re.search(r"(\d+) cards \([\d.]+ mm each\), inside ([\d.]+) × ([\d.]+)", tuck)
    assert found and int(found[1]) == cards
    assert size[0] < float(found[2]) <= size[0] + 3 and size[1] < float(found[3]) <= size[1] + 3


def test_tts_has_one_deck_per_declared_deck_side_by_side_and_two_backs_make_one_unique_back_deck(built):
    saved = json.loads((built / "tts-en" / "mygame.json").read_text(encoding="utf-8"))
    decks = saved["ObjectStates"]
    assert [(d["Name"], d["Nickname"], len(d["ContainedObjects"])) for d in decks] == [
        ("DeckCustom", "A New Game (Main deck)", 12), ("DeckCustom", "A New Game (Mini cards)", 5)]
    assert decks[0]["Transform"]["posX"] != decks[1]["Transform"]["posX"]
    # each deck at its card size on TTS's poker-sized card model
    assert [(d["Transform"]["scaleX"], d["Transform"]["scaleZ"]) for d in decks] == [
        (1.0, 1.0), (pytest.approx(44 / 63.5, abs=1e-3), pytest.approx(68 / 88.9, abs=1e-3))]
    main, mini = (list(d["CustomDeck"].values()) for d in decks)
    assert len(main) == 1 and main[0]["UniqueBack"] is True  # sun/moon back and the eclipse's dark back
    assert len(mini) == 1 and mini[0]["UniqueBack"] is False
    assert {c["Description"] for c in decks[1]["ContainedObjects"]} == {f"token-{n}" for n in range(1, 6)}
    for deck in (main[0], mini[0]):  # every image it names was written
        for url in (deck["FaceURL"], deck["BackURL"]):
            assert (built / "tts-en" / url.rsplit("/", 1)[1]).is_file()
    # the back sheet: the eclipse's slots show its dark back, the sun's the game's common back
    backs = Image.open(built / "tts-en" / main[0]["BackURL"].rsplit("/", 1)[1]).convert("RGB")
    cards = [c["Description"] for c in decks[0]["ContainedObjects"]]
    width, height = backs.size[0] // main[0]["NumWidth"], backs.size[1] // main[0]["NumHeight"]
    colour = lambda slot: backs.getpixel((slot % 10 * width + width // 2, slot // 10 * height + 3))  # noqa: E731
    assert colour(cards.index("eclipse-1")) != colour(cards.index("sun-1"))


def test_the_rulebook_lists_each_deck_with_its_card_size(built):
    text = "".join(page.extract_text() for page in PdfReader(built / "mygame-rules-en.pdf").pages)
    assert re.search(r"Main deck \(63\.5 × 88\.9 mm\)\s*12", text)
    assert re.search(r"Mini cards \(44 × 68 mm\)\s*5", text)


def test_a_preset_builds_the_decks_of_its_card_size_and_says_why_it_skips_the_others(two_decks):
    done = cardgen("build", "mygame", "--out", "out-tgc", "--workers", "1", "--preset", "tgc", "--format", "json", cwd=two_decks)
    assert done.returncode == 0, done.stdout + done.stderr
    [report] = json.loads(done.stdout)
    assert any(note.startswith("deck 'mini' (mini, 44 x 68 mm) skipped for --preset tgc") for note in report["skipped"])
    assert [(deck["game"], deck["cards"]) for deck in report["decks"]] == [("mygame-main", 12)]
    pngs = sorted((two_decks / "out-tgc" / "mygame" / "decks" / "main" / "png-tgc").rglob("*.png"))
    assert pngs and {Image.open(p).size for p in pngs} == {(825, 1125)}
    assert not (two_decks / "out-tgc" / "mygame" / "decks" / "mini").exists()
    # the game's preview page (the one `watch` keeps current) shows the deck's images from its folder
    page = (two_decks / "out-tgc" / "mygame" / "preview.html").read_text(encoding="utf-8")
    images = re.findall(r'src="([^"?]+)\?', page)
    assert len(images) == 2 * 12 and all((two_decks / "out-tgc" / "mygame" / src).is_file() for src in images)


def test_a_type_in_no_deck_or_two_decks_is_an_error_at_its_line(two_decks, tmp_path):
    game = Path(shutil.copytree(two_decks / "mygame", tmp_path / "mygame"))
    _edit(game / "game.yaml", "types: [sun, moon, eclipse]", "types: [sun, moon, moon, comet]")
    _edit(game / "game.yaml", "size: mini", "size: huge")
    done = cardgen("check", "mygame", "--no-simulate", cwd=tmp_path)
    assert done.returncode == 1
    lines = (game / "game.yaml").read_text(encoding="utf-8").splitlines()
    at = {n: i + 1 for i, line in enumerate(lines) for n in ("types: [sun", "size: huge", "decks:") if line.startswith(n) or line.strip().startswith(n)}
    out = done.stdout + done.stderr
    assert f"game.yaml:{at['types: [sun']}:" in out and "card type 'moon' is already in deck 'main'" in out
    assert "'comet' is not a card type; use one of: sun, moon, eclipse, token" in out
    assert f"game.yaml:{at['size: huge']}:" in out and "card size 'huge' is unknown" in out
    assert f"game.yaml:{at['decks:']}:" in out and "card type(s) eclipse are in no deck" in out
    assert "Traceback" not in out


def test_a_layout_entry_for_every_card_is_checked_at_each_decks_size_and_the_message_says_which(two_decks, tmp_path):
    game = Path(shutil.copytree(two_decks / "mygame", tmp_path / "mygame"))
    _edit(game / "templates" / "layout.yaml", "  - match: {type: [sun, moon]}\n    front:", "  - front:")
    done = cardgen("build", "mygame", "--out", "out", "--only", "sheets", "--workers", "1", cwd=tmp_path)
    assert done.returncode == 1
    line = next(i + 1 for i, text in enumerate((game / "templates" / "layout.yaml").read_text(encoding="utf-8").splitlines())
                if "name: ability" in text)
    assert re.search(rf"layout\.yaml:{line}:\d+: box 'ability': .* on a 44 x 68 mm card \(deck 'mini'; .*'match: \{{type: \[\.\.\.\]\}}'", done.stderr)
    assert not (tmp_path / "out" / "mygame").exists()  # the main deck is not written either


def test_card_size_is_the_decks_own(two_decks):
    done = cardgen("build", "mygame", "--out", "out-tarot", "--card-size", "tarot", "--only", "sheets", cwd=two_decks)
    assert done.returncode == 1
    assert "--card-size tarot: mygame declares its decks' sizes (main: poker, mini: mini); change a deck's 'size' in game.yaml" in done.stderr
    assert not (two_decks / "out-tarot" / "mygame").exists()


def test_a_rulebook_figure_draws_a_card_of_a_larger_deck_at_that_decks_size(two_decks, tmp_path):
    game = Path(shutil.copytree(two_decks / "mygame", tmp_path / "mygame"))
    _edit(game / "game.yaml", "size: mini", "size: tarot")
    # a box below a poker card's bottom edge (88.9 mm): only a tarot card (120 mm) holds it
    _edit(game / "templates" / "layout.yaml", 'align: center, colour: ink}\n  - match: {type: eclipse}',
          'align: center, colour: ink}\n      - {name: big, kind: text, at: [10, 100, 40, 10], text: "Far down", size: 12}\n'
          '  - match: {type: eclipse}')
    for lang in ("en", "ja"):
        with open(game / f"rules.{lang}.md", "a", encoding="utf-8") as rules:
            rules.write("\n{{ card_anatomy('token', boxes=['name', 'big']) }}\n")
    done = cardgen("build", "mygame", "--out", "out", "--only", "rules", "--workers", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = "".join(page.extract_text() for page in PdfReader(tmp_path / "out" / "mygame" / "mygame-rules-en.pdf").pages)
    assert "Far down" in text and "Mini cards (70 × 120 mm)" in text


def test_the_playtest_kits_draft_deck_prints_each_deck_at_its_size(two_decks, tmp_path):
    from pypdf.generic import ContentStream

    game = Path(shutil.copytree(two_decks / "mygame", tmp_path / "mygame"))
    (game / "templates" / "playtest.yaml").write_text(
        "sheets:\n  - title: {ja: 記録, en: Record}\n    blocks:\n      - text: {ja: メモ, en: Notes}\n", encoding="utf-8")
    done = cardgen("build", "mygame", "--out", "out", "--only", "playtest", "--lang", "en", "--workers", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    reader = PdfReader(tmp_path / "out" / "mygame" / "mygame-playtest-en.pdf")
    sizes_by_deck = {}
    for page in reader.pages:
        text = page.extract_text()
        # a draft card is titled with its name (its generated id, token-1, is not printed)
        token, sun = re.search(r"^Token$", text, re.M), re.search(r"^Sun$", text, re.M)
        if not token and not sun:
            continue
        rects = {(round(float(w) / PT, 1), round(float(h) / PT, 1))
                 for operands, op in ContentStream(page.get_contents(), reader).operations if op == b"re"
                 for _x, _y, w, h in [operands]}
        assert not (token and sun)  # never two decks (two sizes) on one sheet
        sizes_by_deck.setdefault("mini" if token else "main", set()).update(rects)
    assert (63.5, 88.9) in sizes_by_deck["main"] and (44.0, 68.0) not in sizes_by_deck["main"]
    assert (44.0, 68.0) in sizes_by_deck["mini"] and (63.5, 88.9) not in sizes_by_deck["mini"]


def test_check_passes_and_says_each_decks_size_cards_and_backs(two_decks):
    done = cardgen("check", "mygame", "--no-simulate", cwd=two_decks)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deck 'main': 12 cards of sun, moon, eclipse, poker 63.5 x 88.9 mm, back(s): dark, default" in done.stdout
    assert "deck 'mini': 5 cards of token, mini 44 x 68 mm, back(s): default" in done.stdout


def test_a_renamed_deck_leaves_no_sheets_of_its_old_name(two_decks, tmp_path):
    game = Path(shutil.copytree(two_decks / "mygame", tmp_path / "mygame"))
    build = ("build", "mygame", "--out", "out", "--only", "sheets", "--workers", "1")
    assert cardgen(*build, "--only", "png", cwd=tmp_path).returncode == 0
    assert (tmp_path / "out" / "mygame" / "decks" / "mini" / "png").is_dir()
    (tmp_path / "out" / "mygame" / "decks" / "mini" / "notes.txt").write_text("mine", encoding="utf-8")
    _edit(game / "game.yaml", "id: mini", "id: tokens")
    done = cardgen(*build, cwd=tmp_path)  # a build of any output clears the old deck's folder
    assert done.returncode == 0, done.stdout + done.stderr
    decks = tmp_path / "out" / "mygame" / "decks"
    assert (decks / "tokens" / "mygame-tokens-cards-a4.pdf").is_file()
    assert sorted(p.relative_to(decks).as_posix() for p in (decks / "mini").rglob("*")) == ["mini/notes.txt"]  # what is not ours stays
