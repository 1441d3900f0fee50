"""preview.html, opened in a real headless browser (Debian's `chromium`, which .ci/run installs):
every image loads, there is one card per physical card, a card whose text overflows carries its
warning, and hostile card text stays text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cardgen.build import build_game, make_options
from cardgen.load import load_game
from cardgen.preview import BUILD_SCRIPT, PAGE

HOSTILE = '<img src=x onerror="document.title=1">&amp;'

# Appended to a copy of the page: load every image now (they are lazy), then write what loaded.
PROBE = """<script>
window.addEventListener('load', function () {
  var imgs = Array.from(document.images);
  imgs.forEach(function (i) { i.loading = 'eager'; });
  function report() {
    if (!imgs.every(function (i) { return i.complete; })) { return setTimeout(report, 50); }
    var cards = Array.from(document.querySelectorAll('figure.card')).map(function (f) {
      return {id: f.dataset.card, warn: f.classList.contains('warn'),
              warnings: Array.from(f.querySelectorAll('.warnings li')).map(function (l) { return l.textContent; }),
              caption: f.querySelector('figcaption').textContent};
    });
    var out = document.createElement('pre');
    out.id = 'probe';
    out.textContent = JSON.stringify({
      images: imgs.map(function (i) { return [i.getAttribute('src'), i.naturalWidth, i.naturalHeight]; }),
      fronts: document.querySelectorAll('img.face.front').length, cards: cards, title: document.title});
    document.body.appendChild(out);
  }
  report();
});
</script>"""


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing in CI: .ci/run installs Debian's chromium package (apt-get install chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium); CI installs it and runs this test")
    return found


def _open(page: Path) -> dict:
    """What the probe saw in `page` (a copy of preview.html beside it, so relative paths hold)."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    run = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--virtual-time-budget=20000", "--dump-dom", probe.resolve().as_uri()],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', run.stdout, re.S)
    assert found, f"the probe did not report; chromium said: {run.stderr[-2000:]}"
    import html

    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """alice, with card AL01's text far too long for its box and a hostile name, built with --allow-overflow."""
    root = tmp_path_factory.mktemp("preview")
    from cardgen.load import bundled_games_dir

    game = root / "alice"
    shutil.copytree(bundled_games_dir() / "alice", game)
    cards = game / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    text = text.replace("ひと睨みで相手をすくませる凶眼の持ち主。", "ひと睨みで相手をすくませる凶眼の持ち主。" * 30, 1)
    text = text.replace("name: {ja: 凶眼アリス・赤, en: Evil-Eye Alice}", f"name: {{ja: '{HOSTILE}', en: Evil-Eye Alice}}", 1)
    cards.write_text(text, encoding="utf-8")
    out = root / "out"
    result = build_game(load_game(str(game)), make_options(out=out, outputs=("png",), allow_overflow=True))
    return result, out / "alice" / PAGE


def test_every_image_loads_and_there_is_one_card_per_card(built):
    result, page = built
    seen = _open(page)
    assert seen["fronts"] == result.cards == 23
    assert len(seen["images"]) == 2 * 23
    broken = [src for src, w, h in seen["images"] if w <= 0 or h <= 0]
    assert broken == []
    # each face is the PNG the build wrote, at its pixel size (poker + 1/8 in bleed at 300 dpi)
    from cardgen.build import resolve_card_size
    from cardgen.render.cards.raster import png_size

    game = load_game(str(page.parent.parent.parent / "alice"))
    assert {(w, h) for _, w, h in seen["images"]} == {png_size(resolve_card_size(game, make_options()), make_options().shop_bleed)}
    assert all(src.startswith("png/") for src, _, _ in seen["images"])


def test_an_overflowing_card_carries_its_warning_and_hostile_text_stays_text(built):
    result, page = built
    seen = _open(page)
    by_id = {c["id"]: c for c in seen["cards"]}
    assert by_id["AL01"]["warn"]
    assert any("overflows its box" in w for w in by_id["AL01"]["warnings"]), by_id["AL01"]
    assert [c["id"] for c in seen["cards"] if c["warn"]] == sorted(result.warnings)  # only the cards that reported
    assert HOSTILE in by_id["AL01"]["caption"]  # shown as text, not parsed as markup
    assert seen["title"] != "1"  # no script from the card ran


def test_the_page_names_its_build_and_an_error_shows(built, tmp_path):
    from cardgen.preview import write_page

    result, page = built
    script = (page.parent / BUILD_SCRIPT).read_text(encoding="utf-8")
    build_id = re.search(r'data-build="([0-9a-f]+)"', page.read_text(encoding="utf-8")).group(1)
    assert script == f'cardgenBuilt("{build_id}");\n'  # the open page compares this and reloads when it differs
    write_page(tmp_path, "t", result.preview, error="cards.yaml:3:1: <b>bad</b>")
    text = (tmp_path / PAGE).read_text(encoding="utf-8")
    assert 'class="error"' in text and "&lt;b&gt;bad&lt;/b&gt;" in text and "<b>bad" not in text
    assert (tmp_path / BUILD_SCRIPT).read_text(encoding="utf-8") != script  # a new page: an open one reloads
