"""Print-service presets: each one's outputs meet the service's published numbers (read back)."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from pypdf import PdfReader

from cardgen.build import build_game, make_options
from cardgen.errors import CardgenError
from cardgen.load import load_game
from cardgen.presets import PRESETS, check_preset, get_preset, safe_zone_problems

PT_MM = 25.4 / 72


@pytest.fixture(scope="module")
def alice():
    return load_game("alice")


@pytest.mark.parametrize("preset,px,folder,first,back", [
    ("mpc", (822, 1122), "png-mpc", "001-AL01-front.png", "000-back.png"),
    ("printerstudio", (822, 1122), "png-printerstudio", "001-AL01-front.png", "000-back.png"),
    ("tgc", (825, 1125), "png-tgc", "default/AL01-front.png", "default/back.png"),  # one folder per deck (back)
])
def test_png_presets_pixel_sizes(alice, tmp_path, preset, px, folder, first, back):
    result = build_game(alice, make_options(out=tmp_path, preset=preset))
    pngs = sorted((tmp_path / "alice" / folder).rglob("*.png"))
    assert (tmp_path / "alice" / folder / first).is_file()
    assert (tmp_path / "alice" / folder / back).is_file()
    assert len(pngs) == alice.total + 1  # every front and the shared back once
    assert not (tmp_path / "alice" / "alice-cards-a4.pdf").exists()  # only what the service takes
    for path in pngs[:3] + pngs[-2:]:
        with Image.open(path) as image:
            assert image.size == px and image.mode == "RGB"
            assert image.info["dpi"] == pytest.approx((300, 300), abs=0.01)
    assert any(f.parent.name == folder for f in result.files)


def test_mpc_bleed_is_36_px():
    mpc = PRESETS["mpc"]
    assert mpc.bleed_mm / 25.4 * 300 == pytest.approx(36)
    assert PRESETS["tgc"].safe_mm == pytest.approx(3.175)


def test_dtc_is_one_card_a_page_cmyk_with_boxes(alice, tmp_path):
    build_game(alice, make_options(out=tmp_path, preset="dtc"))
    path = tmp_path / "alice" / "alice-dtc-cmyk.pdf"
    reader = PdfReader(io.BytesIO(path.read_bytes()))
    assert len(reader.pages) == 2 * alice.total
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-1a:2003"
    assert reader.trailer["/Root"]["/OutputIntents"][0]["/S"] == "/GTS_PDFX"
    page = reader.pages[0]
    trim, bleed = page.trimbox, page.bleedbox
    assert float(trim.width) * PT_MM == pytest.approx(63.5, abs=0.01)
    assert float(trim.height) * PT_MM == pytest.approx(88.9, abs=0.01)
    assert (float(trim.left) - float(bleed.left)) * PT_MM == pytest.approx(3.175, abs=0.01)
    assert b" rg" not in page.get_contents().get_data()


@pytest.mark.parametrize("preset,paper", [("home-a4", "a4"), ("home-letter", "letter")])
def test_home_presets_set_the_paper_of_every_document(preset, paper):
    options = make_options(preset=preset)
    assert options.paper == paper and options.card_size == "poker"
    assert "sheets" in options.outputs and "png" not in options.outputs
    assert options.sheet_bleed is None or options.sheet_bleed >= 0  # the home sheets' own bleed


def test_explicit_values_win_and_bad_names_are_refused():
    assert make_options(preset="tgc", card_size="bridge").card_size == "bridge"
    assert make_options(preset="tgc", outputs=("shop",)).outputs == ("shop",)
    with pytest.raises(CardgenError, match="home-a4"):
        get_preset("mcp")


def test_check_preset_names_the_card_and_box(game_copy):
    """The frame of AL04 used to sit 1.2 mm inside the trim (issue 11); put it back there in a copy."""
    from cardgen.io.paths import bundled_templates

    folder = game_copy("alice")
    (folder / "templates").mkdir()
    layout = (bundled_templates() / "alice" / "layout.yaml").read_text(encoding="utf-8")
    fixed = '{name: white_edge, kind: rect, at: [3.2, 3.2, "W-6.4", "H-6.4"]'
    assert fixed in layout
    (folder / "templates" / "layout.yaml").write_text(
        layout.replace(fixed, '{name: white_edge, kind: rect, at: [1.2, 1.2, "W-2.4", "H-2.4"]'), encoding="utf-8")
    broken = load_game(folder)
    problems = safe_zone_problems(broken, PRESETS["tgc"])
    assert [(cid, side, box) for cid, side, box, _ in problems] == [("AL04", "front", "white_edge")]
    assert "1.2 mm" in problems[0][3]
    results = check_preset(broken, "tgc")
    assert not results[0].ok and "AL04" in results[0].message and "white_edge" in results[0].message
    assert results[0].location is not None and "layout.yaml" in str(results[0].location)


@pytest.mark.parametrize("game", ["alice", "llll", "requiem", "ohanatsumi"])
@pytest.mark.parametrize("preset", ["tgc", "mpc", "dtc"])
def test_bundled_games_keep_every_box_in_each_services_safe_zone(game, preset):
    assert all(r.ok for r in check_preset(load_game(game), preset))
