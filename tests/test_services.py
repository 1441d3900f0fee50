"""Handing off to a print service (issue 27): what `build --preset X` writes is what the service
takes, with no renaming, pairing or splitting by hand. Everything runs through the CLI."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.load import load_game
from cardgen.presets import PRESET_NAMES
from cardgen.render.cards.card import back_group

PT_MM = 25.4 / 72


def cardgen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def page_texts(path: Path) -> list[str]:
    """Each page's text (PDFium: pypdf takes a minute over the embedded Japanese fonts)."""
    document = pdfium.PdfDocument(path)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def test_dtc_puts_each_cards_back_page_before_its_front(tmp_path):
    """DTC's page order (presets.py): back, front for every card; the default print-shop file keeps front, back."""
    done = cardgen("build", "ohanatsumi", "--preset", "dtc", "--out", str(tmp_path / "dtc"))
    assert done.returncode == 0, done.stderr
    plain = cardgen("build", "ohanatsumi", "--only", "shop", "--out", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    dtc = page_texts(tmp_path / "dtc" / "ohanatsumi" / "ohanatsumi-dtc-cmyk.pdf")
    fronts_first = page_texts(tmp_path / "plain" / "ohanatsumi" / "ohanatsumi-print-shop.pdf")
    assert len(dtc) == len(fronts_first) == len(PdfReader(tmp_path / "dtc" / "ohanatsumi" / "ohanatsumi-dtc-cmyk.pdf").pages) == 260
    assert dtc[0] != dtc[1]  # a card's two faces differ, so the order below is seen
    for card in range(len(dtc) // 2):
        front, back = fronts_first[2 * card], fronts_first[2 * card + 1]
        assert (dtc[2 * card], dtc[2 * card + 1]) == (back, front), f"card {card + 1}"
    assert "裏面" in dtc[1] and "裏面" not in dtc[0]  # OH001's front names its back (裏面: ...); it is page 2
    rows = manifest(tmp_path / "dtc" / "ohanatsumi" / "manifest-dtc.csv")
    assert [r["card"] for r in rows] == [card.id for card in load_game("ohanatsumi").cards]
    for card, row in enumerate(rows):
        front, back = (int(row[k].split("#page=")[1]) for k in ("file", "back file"))
        assert row["file"].startswith("ohanatsumi-dtc-cmyk.pdf#")
        assert (dtc[front - 1], dtc[back - 1]) == (fronts_first[2 * card], fronts_first[2 * card + 1])


@pytest.fixture(scope="module")
def ohanatsumi_png(tmp_path_factory):
    """ohanatsumi (two shared backs and twenty cards with their own) built for MPC and TGC."""
    out = tmp_path_factory.mktemp("services")
    for preset in ("mpc", "tgc"):
        done = cardgen("build", "ohanatsumi", "--preset", preset, "--out", str(out))
        assert done.returncode == 0, done.stderr
    return out / "ohanatsumi"


def manifest(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def backs_by_card(game) -> dict[str, str]:
    return {card.id: back_group(game, card) for card in game.cards}


def test_mpc_order_file_gives_every_slot_its_front_and_its_back(ohanatsumi_png):
    """cards.xml as the MPC Autofill desktop client reads it (handoff.py): slots 0..n-1, each with a
    front, each with the back of its own card's group; every id a file in the folder."""
    game = load_game("ohanatsumi")
    folder = ohanatsumi_png / "png-mpc"
    order = ElementTree.parse(folder / "cards.xml").getroot()
    quantity = int(order.findtext("details/quantity"))
    assert quantity == game.total == 130
    assert int(order.findtext("details/bracket")) == 144  # MPC's bracket for 109..144 cards
    assert order.findtext("details/stock") == "(S30) Standard Smooth"

    def slots(face: str) -> dict[int, str]:
        out: dict[int, str] = {}
        for card in order.findall(f"{face}/card"):
            assert (folder / card.findtext("id")).is_file()
            for slot in card.findtext("slots").split(","):
                assert int(slot) not in out
                out[int(slot)] = card.findtext("id")
        return out

    fronts, backs = slots("fronts"), slots("backs")
    cardback = order.findtext("cardback")
    assert (folder / cardback).is_file()
    assert sorted(fronts) == list(range(quantity))
    back_of = {n: backs.get(n, cardback) for n in range(quantity)}
    groups = backs_by_card(game)
    by_group: dict[str, set[str]] = {}
    for n, card in enumerate(game.cards):
        assert card.id in fronts[n]
        by_group.setdefault(groups[card.id], set()).add(back_of[n])
        if groups[card.id].startswith("own:"):
            assert card.id in back_of[n] and back_of[n].endswith("-back.png")
    shared = {g: files for g, files in by_group.items() if not g.startswith("own:")}
    assert len(shared) == 2 and all(len(files) == 1 for files in shared.values())  # one back file per group
    assert len({next(iter(files)) for files in shared.values()}) == 2  # and the two groups' backs differ
    rows = manifest(folder / "manifest.csv")
    assert sum(int(r["copies"]) for r in rows) == quantity
    assert {r["file"]: r["back file"] for r in rows} == {fronts[n]: back_of[n] for n in range(quantity)}


def test_tgc_has_one_deck_folder_per_back(ohanatsumi_png):
    game = load_game("ohanatsumi")
    folder = ohanatsumi_png / "png-tgc"
    groups = backs_by_card(game)
    decks = {path.name: path for path in folder.iterdir() if path.is_dir()}
    assert set(decks) == {g for g in groups.values() if not g.startswith("own:")} | {"own-backs"}
    assert not list(folder.glob("*.png"))  # every image is in a deck
    rows = manifest(folder / "manifest.csv")
    for row in rows:
        deck = row["file"].split("/")[0]
        assert row["back file"].split("/")[0] == deck and (folder / row["file"]).is_file() and (folder / row["back file"]).is_file()
        for card_id in row["card"].split():
            group = groups[card_id]
            assert deck == ("own-backs" if group.startswith("own:") else group)
    for name, deck in decks.items():
        if name != "own-backs":  # a deck takes one back
            assert [p.name for p in deck.glob("back*.png")] == ["back.png"]
    assert sum(int(r["copies"]) for r in rows) == game.total


def starter(tmp_path: Path) -> Path:
    done = cardgen("new", str(tmp_path / "mygame"))
    assert done.returncode == 0, done.stderr
    return tmp_path / "mygame"


def test_identical_copies_are_one_image_with_a_quantity_unless_the_face_differs(tmp_path):
    game_dir = starter(tmp_path)
    done = cardgen("build", str(game_dir), "--preset", "mpc", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "out" / "mygame" / "png-mpc"
    rows = manifest(folder / "manifest.csv")
    game = load_game(game_dir)
    twins = [card.id for card in game.cards if card.type_id == "eclipse"]
    assert len(twins) == 2
    assert [(r["card"].split(), int(r["copies"])) for r in rows if twins[0] in r["card"]] == [(twins, 2)]
    assert len(rows) == game.total - 1 and len(list(folder.glob("*-front.png"))) == game.total - 1
    order = ElementTree.parse(folder / "cards.xml").getroot()
    assert [c.findtext("slots") for c in order.findall("fronts/card") if twins[0] in c.findtext("id")] == ["10,11"]
    # a layout that draws each copy's own id makes the copies different images again
    layout = game_dir / "templates" / "layout.yaml"
    own_id = '      - {name: copy_id, kind: text, at: ["W-24", "H-8", 20, 4], text: "{{ card.id }}", size: 6.5, align: right}\n'
    layout.write_text(layout.read_text(encoding="utf-8").replace("      - {name: ability,", own_id + "      - {name: ability,"),
                      encoding="utf-8")
    done = cardgen("build", str(game_dir), "--preset", "mpc", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    rows = manifest(folder / "manifest.csv")
    assert len(rows) == game.total and all(r["copies"] == "1" for r in rows)
    assert len(list(folder.glob("*-front.png"))) == game.total


def test_the_starter_game_keeps_every_presets_safe_zone(tmp_path):
    game_dir = starter(tmp_path)
    for preset in PRESET_NAMES:
        done = cardgen("check", str(game_dir), "--preset", preset, "--no-simulate")
        assert done.returncode == 0, (preset, done.stdout, done.stderr)


def test_build_with_a_preset_stops_at_a_box_outside_its_safe_zone(tmp_path):
    """Like an overflow: exit 1, one file:line message per box, nothing written; --allow-unsafe builds."""
    game_dir = starter(tmp_path)
    layout = game_dir / "templates" / "layout.yaml"
    text = layout.read_text(encoding="utf-8")
    assert "at: [4, 3.5, 12, 10]" in text
    layout.write_text(text.replace("at: [4, 3.5, 12, 10]", "at: [4, 3, 12, 10]"), encoding="utf-8")  # the power box 3 mm from the top
    out = tmp_path / "out"
    done = cardgen("build", str(game_dir), "--preset", "tgc", "--out", str(out))
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    cards = [card.id for card in load_game(game_dir).cards]
    assert len(errors) == len(cards) + 1 and "Traceback" not in done.stderr
    assert all(re.search(r"layout\.yaml:\d+:\d+: card \S+ \(front\), box 'power': .*3 mm \(top\)", e) for e in errors[:-1])
    assert "--allow-unsafe" in errors[-1]
    assert not (out / "mygame" / "png-tgc").exists()
    done = cardgen("build", str(game_dir), "--preset", "tgc", "--out", str(out), "--allow-unsafe")
    assert done.returncode == 0, done.stderr
    assert (out / "mygame" / "png-tgc" / "manifest.csv").is_file()


def placed_forms(page) -> list[tuple[tuple[float, float, float, float], tuple[int, int, int, int]]]:
    """Every card face drawn on a sheet page: its bleed box in mm (page space) and the rotation of its matrix."""
    content = ContentStream(page.get_contents(), page.pdf)
    xobjects = page["/Resources"]["/XObject"]
    stack, ctm, out = [], (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), []
    for operands, op in content.operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            A, B, C, D, E, F = ctm
            ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)
        elif op == b"Do":
            x0, y0, x1, y1 = (float(v) for v in xobjects[operands[0]].get_object()["/BBox"])
            A, B, C, D, E, F = ctm
            corners = [(A * x + C * y + E, B * x + D * y + F) for x in (x0, x1) for y in (y0, y1)]
            xs, ys = [p[0] * PT_MM for p in corners], [p[1] * PT_MM for p in corners]
            out.append(((min(xs), min(ys), max(xs), max(ys)), (round(A), round(B), round(C), round(D))))
    return out


def test_letter_warns_of_thin_bleed_and_fit_bleed_gives_eight_cards_with_real_bleed(tmp_path):
    """Poker on Letter: 9 a sheet keep 0.45 mm top and bottom; --fit bleed lays 8 on their side with
    real bleed, measured from where the PDF places each face (and each back behind its front)."""
    W, H, LETTER_W = 63.5, 88.9, 215.9
    count = cardgen("build", "alice", "--paper", "letter", "--only", "sheets", "--out", str(tmp_path / "count"))
    assert count.returncode == 0, count.stderr
    warning = [line for line in count.stdout.splitlines() if "warning:" in line]
    assert len(warning) == 1 and "0.45 mm" in warning[0] and "--fit bleed gives 8 cards" in warning[0]
    nine = PdfReader(tmp_path / "count" / "alice" / "alice-cards-letter.pdf")
    assert len(placed_forms(nine.pages[0])) == 9
    done = cardgen("build", "alice", "--paper", "letter", "--only", "sheets", "--fit", "bleed", "--out", str(tmp_path / "bleed"))
    assert done.returncode == 0, done.stderr
    assert "warning:" not in done.stdout
    reader = PdfReader(tmp_path / "bleed" / "alice" / "alice-cards-letter.pdf")
    fronts, backs = placed_forms(reader.pages[0]), placed_forms(reader.pages[1])
    assert len(fronts) == len(backs) == 8
    for (box, turn), (back_box, back_turn) in zip(fronts, backs):
        x0, y0, x1, y1 = box
        bleed_x, bleed_y = (x1 - x0 - H) / 2, (y1 - y0 - W) / 2  # on its side: the card's height runs across the page
        assert turn == (0, 1, -1, 0) and min(bleed_x, bleed_y) >= 1.5
        assert 5 - 1e-6 <= x0 and x1 <= LETTER_W - 5 + 1e-6  # inside the printer margin
        # long-edge duplex: the back is the front mirrored left-right, turned the other way (tops on the same edge)
        assert back_turn == (0, -1, 1, 0)
        assert back_box == pytest.approx((LETTER_W - x1, y0, LETTER_W - x0, y1), abs=0.01)
    boxes = [b for b, _ in fronts]
    assert all(a[2] <= b[0] + 1e-3 or b[2] <= a[0] + 1e-3 or a[3] <= b[1] + 1e-3 or b[3] <= a[1] + 1e-3
               for i, a in enumerate(boxes) for b in boxes[i + 1:])  # no two cards overlap


@pytest.mark.parametrize("imposition", ["duplex", "simplex"])
def test_home_preset_manifest_names_each_cards_sheet_pages(tmp_path, imposition):
    done = cardgen("build", "alice", "--preset", "home-a4", "--only", "sheets", "--imposition", imposition, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    pdf = tmp_path / "alice" / "alice-cards-a4.pdf"
    texts = page_texts(pdf)
    rows = manifest(tmp_path / "alice" / "manifest-home-a4.csv")
    game = load_game("alice")
    assert [r["card"] for r in rows] == [card.id for card in game.cards]
    fronts = set()
    for row in rows:
        front, back = (int(row[k].split("#page=")[1]) for k in ("file", "back file"))
        assert row["file"].startswith("alice-cards-a4.pdf#") and front != back
        assert row["card"] in texts[front - 1]  # alice's fronts print the card's id
        fronts.add(front)
    backs = {int(r["back file"].split("#page=")[1]) for r in rows}
    assert not fronts & backs and len(fronts) == len(backs) == -(-game.total // 9)
    if imposition == "simplex":  # every front sheet, then every back sheet
        assert max(fronts) < min(backs)


def test_fit_bleed_with_gutterfold_says_what_to_do(tmp_path):
    done = cardgen("build", "alice", "--fit", "bleed", "--imposition", "gutterfold", "--out", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "--fit bleed" in done.stderr and "--imposition duplex" in done.stderr
    assert not (tmp_path / "alice").exists()


def test_cards_on_their_side_after_a_short_edge_flip_keep_their_backs_turned_the_same_way(tmp_path):
    """A short-edge flip mirrors top and bottom and keeps left and right: each back lies at its
    front's mirror image across the page's middle line, turned like the front."""
    LETTER_H = 279.4
    done = cardgen("build", "alice", "--paper", "letter", "--only", "sheets", "--fit", "bleed", "--duplex", "short",
                   "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    reader = PdfReader(tmp_path / "alice" / "alice-cards-letter.pdf")
    fronts, backs = placed_forms(reader.pages[0]), placed_forms(reader.pages[1])
    assert len(fronts) == len(backs) == 8
    for ((x0, y0, x1, y1), turn), (back_box, back_turn) in zip(fronts, backs):
        assert turn == back_turn == (0, 1, -1, 0)
        assert back_box == pytest.approx((x0, LETTER_H - y1, x1, LETTER_H - y0), abs=0.01)


def test_a_rebuild_removes_deck_folders_the_game_no_longer_has(tmp_path):
    game_dir = starter(tmp_path)
    out = tmp_path / "out"
    assert cardgen("build", str(game_dir), "--preset", "tgc", "--out", str(out)).returncode == 0
    folder = out / "mygame" / "png-tgc"
    gone = folder / "events"  # as if the game had had an "events" back before
    gone.mkdir()
    (gone / "back.png").write_bytes((folder / "default" / "back.png").read_bytes())
    assert cardgen("build", str(game_dir), "--preset", "tgc", "--out", str(out)).returncode == 0
    assert sorted(p.name for p in folder.iterdir()) == ["default", "manifest.csv"]
