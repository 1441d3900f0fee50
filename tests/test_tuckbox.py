"""The tuck box: its panels add up to the deck it holds, on A4 and Letter."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from cardgen.load import load_game
from cardgen.render.print.tuckbox import CLEARANCE_MM, GLUE_MM, tuckbox_geometry, tuckbox_pdf
from cardgen.sizes import size_mm


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("cards,thickness", [(23, 0.30), (32, 0.30), (49, 0.35), (130, 0.30)])
def test_panels_add_up_to_the_deck(paper, cards, thickness):
    w, h = size_mm("poker")
    boxes = tuckbox_geometry((w, h), cards, paper, thickness)
    assert sum(b.cards for b in boxes) == cards
    for box in boxes:
        p = box.panels
        per_box = max(b.cards for b in boxes)
        depth = per_box * thickness + CLEARANCE_MM
        assert p["front"].w == pytest.approx(w + CLEARANCE_MM) and p["front"].h == pytest.approx(h + CLEARANCE_MM)
        assert p["back"].w == pytest.approx(p["front"].w) and p["back"].h == pytest.approx(p["front"].h)
        for name in ("side_left", "side_right", "lid", "bottom"):
            thin = p[name].w if name.startswith("side") else p[name].h
            assert thin == pytest.approx(depth), name
        assert p["side_left"].h == pytest.approx(p["front"].h)
        # the body row: side + front + side + back + glue, edge to edge
        row = ["side_left", "front", "side_right", "back", "glue"]
        for a, b in zip(row, row[1:]):
            assert p[a].x + p[a].w == pytest.approx(p[b].x)
        assert p["glue"].w == GLUE_MM
        # lid on the front's top, tuck flap on the lid, bottom flap under the front
        assert p["lid"].y == pytest.approx(p["front"].y + p["front"].h) and p["lid"].x == p["front"].x
        assert p["tuck"].y == pytest.approx(p["lid"].y + p["lid"].h)
        assert p["bottom"].y + p["bottom"].h == pytest.approx(p["front"].y)
        # the wrapped body is the deck plus clearance all round
        around = p["side_left"].w + p["front"].w + p["side_right"].w + p["back"].w
        assert around == pytest.approx(2 * (w + CLEARANCE_MM) + 2 * depth)
        # the net lies on the page, inside the printer's margin
        o = box.outline
        assert o.x >= 5 and o.y >= 5 and o.x + o.w <= box.page[0] - 5 and o.y + o.h <= box.page[1] - 5


def test_a_thick_deck_splits_into_equal_boxes():
    boxes = tuckbox_geometry(size_mm("poker"), 400, "a4", 0.30)
    assert len(boxes) > 1 and sum(b.cards for b in boxes) == 400
    assert len({b.inner for b in boxes}) == 1


@pytest.mark.parametrize("paper,page", [("a4", (210, 297)), ("letter", (215.9, 279.4))])
def test_pdf_pages_on_the_paper(paper, page):
    game = load_game("ohanatsumi")
    reader = PdfReader(io.BytesIO(tuckbox_pdf(game, size_mm("poker"), paper, "en")))
    box = reader.pages[0].mediabox
    got = sorted((float(box.width) * 25.4 / 72, float(box.height) * 25.4 / 72))
    assert got == pytest.approx(sorted(page), abs=0.05)
    text = reader.pages[0].extract_text()
    assert "Going to Pick Flowers" in text and "130 cards" in text
