"""Every template of a game folder renders in the sandbox and every file it names stays inside
the folder: a code-execution payload, an include of an outside file, a loop bomb or a broken
file is refused with `file:line` and nothing runs (no CANARY file appears).

Each test copies a bundled game into tmp_path, runs from tmp_path as the current folder and
calls the library (build_game, build_rulebook, build_playtest, report_runs).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from cardgen.build import BuildOptions, build_game
from cardgen.errors import CardgenError, DataError
from cardgen.io import sandbox
from cardgen.io.paths import package_root
from cardgen.load import bundled_games_dir, load_game
from cardgen.render.cards import raster
from cardgen.render.cards.card import check_overflows
from cardgen.render.cards.layout import get_layout
from cardgen.render.documents.playtest import build_playtest
from cardgen.render.documents.report import report_runs
from cardgen.render.documents.rulebook import build_rulebook

PAYLOAD = "{{ cycler.__init__.__globals__.os.popen('touch CANARY').read() }}"
SECRET = "OUTSIDE-SECRET-5d1e"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A copy of a bundled game in tmp_path/<game>, with its own templates/ (layout, playtest,
    report, figures), and a file with a secret beside it; tmp_path is the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "outside.yaml").write_text(f"secret: {SECRET}\ncolours: {{ink: '#000000'}}\n", encoding="utf-8")

    def make(game_id: str = "llll") -> Path:
        root = tmp_path / game_id
        shutil.copytree(bundled_games_dir() / game_id, root)
        shutil.copytree(package_root() / "templates" / game_id, root / "templates")
        shutil.copytree(package_root() / "templates" / "common", root / "templates" / "common")
        shutil.copyfile(package_root() / "templates" / "rulebook" / "figures" / f"{game_id}.yaml",
                        root / "templates" / "figures.yaml")
        return root

    return make


def _replace(path: Path, old: str, new: str) -> int:
    """Replace the first `old` in a file; return its (1-based) line."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return line


def _refused(call, file: str, line: int | None, *words: str) -> str:
    """`call()` raises a CardgenError naming file:line (and each of `words`); no CANARY appeared."""
    with pytest.raises(CardgenError) as info:
        call()
    message = str(info.value)
    where = rf"{re.escape(file)}:{line if line is not None else '[0-9]+'}:[0-9]+"
    assert re.search(where, message), f"expected {file}:{line}: in {message!r}"
    for word in words:
        assert word in message, f"expected {word!r} in {message!r}"
    assert "Traceback" not in message and SECRET not in message
    assert not list(Path.cwd().rglob("CANARY")), "code from the game folder ran"
    return message


def _build(root: Path, *outputs: str, out: Path | None = None):
    options = BuildOptions(out_dir=out or Path.cwd() / "out", outputs=tuple(outputs), lang="en")
    return build_game(load_game(str(root)), options)


# --- code must not run ------------------------------------------------------------------------

def test_payload_in_rules_markdown_is_refused_at_its_line(folder):
    root = folder()
    line = _replace(root / "rules.en.md", "# Components", PAYLOAD + "\n\n# Components")
    message = _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", line, "not allowed")
    assert "__init__" in message


def test_payload_in_layout_text_is_refused_at_its_line(folder):
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", 'text: "{{ card.initial }}", font: mincho, size: 22',
                    f'text: "{PAYLOAD}", font: mincho, size: 22')
    message = _refused(lambda: _build(root, "sheets"), "layout.yaml", line, "not allowed", "box 'initial' text")
    assert "card LL01" in message
    assert not (Path.cwd() / "out" / "llll").exists() or not list((Path.cwd() / "out" / "llll").glob("*.pdf"))


def test_payload_in_layout_vars_is_refused_at_its_line(folder):
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", "tier: \"'gold' if card.vp >= 4",
                    "tier: \"cycler.__init__.__globals__.os.popen('touch CANARY').read() or 'gold' if card.vp >= 4")
    _refused(lambda: _build(root, "sheets"), "layout.yaml", line, "vars.tier", "not allowed")


def test_payload_in_layout_when_is_refused_at_its_line(folder):
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", "when: \"lang == 'ja'\"",
                    "when: \"cycler.__init__.__globals__.os.popen('touch CANARY').read()\"")
    _refused(lambda: check_overflows(load_game(str(root)), "ja"), "layout.yaml", line, "when", "not allowed")


def test_attribute_lookups_in_a_simple_layout_text_go_through_the_sandbox(folder):
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", 'text: "{{ card.id }}", size: 8',
                    'text: "{{ card.name.__class__.__base__ }}", size: 8')
    # a name of a field that leads to an attribute of a Python object is refused, not printed
    _refused(lambda: _build(root, "sheets"), "layout.yaml", line, "not allowed")


def test_payload_in_playtest_text_is_refused_at_its_line(folder):
    root = folder()
    spec = root / "templates" / "playtest.yaml"
    line = _replace(spec, "{{ param('starting_action_points') }} AP.", PAYLOAD + " AP.")
    _refused(lambda: build_playtest(load_game(str(root)), "en"), "playtest.yaml", line, "not allowed")


def test_payload_in_figures_is_refused_at_its_line(folder):
    root = folder("alice")
    figures = root / "templates" / "figures.yaml"
    line = _replace(figures, "{{ name('alice_red') }}を引けば", PAYLOAD + "を引けば")
    _refused(lambda: build_rulebook(load_game(str(root)), "ja"), "figures.yaml", line, "not allowed")


def test_a_game_folders_own_figures_file_is_used(folder):
    root = folder("alice")
    _replace(root / "templates" / "figures.yaml", "The play area.", "Our own play area.")
    from pypdf import PdfReader
    import io

    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(build_rulebook(load_game(str(root)), "en"))).pages)
    assert "Our own play area" in re.sub(r"\s+", " ", text)


# --- nothing outside the folder is read -------------------------------------------------------

@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.yaml", "../../outside.yaml", "common/../../outside.yaml"])
def test_layout_include_outside_the_folder_is_refused(folder, name):
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", "include: [common/backs.yaml]", f"include: [common/backs.yaml, '{name}']")
    message = _refused(lambda: get_layout(load_game(str(root))), "layout.yaml", line, "outside the game folder")
    assert "root:" not in message  # nothing of /etc/passwd


def test_layout_include_through_a_link_out_of_the_folder_is_not_read(folder, tmp_path):
    root = folder()
    (root / "templates" / "common" / "evil.yaml").symlink_to(tmp_path / "outside.yaml")
    line = _replace(root / "templates" / "layout.yaml", "include: [common/backs.yaml]", "include: [common/backs.yaml, common/evil.yaml]")
    _refused(lambda: get_layout(load_game(str(root))), "layout.yaml", line, "no such file")


def test_the_old_sibling_templates_folder_is_not_read(folder, tmp_path):
    """`<game>/../../templates/<id>/layout.yaml` is outside the game folder: a layout there is ignored."""
    root = folder("llll")
    shutil.rmtree(root / "templates")
    sibling = tmp_path.parent / "templates" / "llll"
    try:
        sibling.mkdir(parents=True)
        (sibling / "layout.yaml").write_text("size: [", encoding="utf-8")  # would fail if it were read
        assert get_layout(load_game(str(root))).path == package_root() / "templates" / "llll" / "layout.yaml"
    finally:
        shutil.rmtree(tmp_path.parent / "templates", ignore_errors=True)


def test_rules_text_linked_out_of_the_folder_is_refused(folder, tmp_path):
    root = folder()
    (root / "rules.en.md").unlink()
    (root / "rules.en.md").symlink_to(tmp_path / "outside.yaml")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", 1, "outside the game folder")


# --- no hang ------------------------------------------------------------------------------------

def test_range_bomb_in_rules_finishes_quickly_with_a_message(folder):
    root = folder()
    line = _replace(root / "rules.en.md", "# Components", "{% for i in range(10**9) %}x{% endfor %}\n\n# Components")
    start = time.monotonic()
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", line, "range()")
    assert time.monotonic() - start < 5


def test_nested_loops_in_rules_stop_at_the_output_cap(folder):
    root = folder()
    _replace(root / "rules.en.md", "# Components",
             "{% for i in range(10000) %}{% for j in range(10000) %}xx{% endfor %}{% endfor %}\n\n# Components")
    start = time.monotonic()
    # the cap is enforced between chunks of output, so the sandbox cannot say which line produced it
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", None, "output longer than")
    assert time.monotonic() - start < 5


def test_silent_nested_loops_in_a_layout_stop_at_the_deadline(folder, monkeypatch):
    real = sandbox.deadline
    monkeypatch.setattr(sandbox, "deadline", lambda seconds=1.0: real(1.0))
    root = folder()
    line = _replace(root / "templates" / "layout.yaml", 'text: "{{ card.initial }}", font: mincho, size: 22',
                    'text: "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}", font: mincho, size: 22')
    start = time.monotonic()
    _refused(lambda: _build(root, "sheets"), "layout.yaml", line, "takes longer than")
    assert time.monotonic() - start < 5


def test_string_repetition_bomb_in_a_playtest_text(folder):
    root = folder()
    line = _replace(root / "templates" / "playtest.yaml", "{{ param('starting_action_points') }} AP.", "{{ 'A' * 1000000000 }} AP.")
    _refused(lambda: build_playtest(load_game(str(root)), "en"), "playtest.yaml", line, "limit")


# --- broken files: file:line, never a traceback ---------------------------------------------------

def test_invalid_utf8_in_rules_markdown(folder):
    root = folder()
    path = root / "rules.en.md"
    data = path.read_bytes()
    at = data.index(b"# Components")
    line = data[:at].count(b"\n") + 1
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", line, "UTF-8")


def test_nul_byte_in_rules_markdown(folder):
    root = folder()
    path = root / "rules.en.md"
    line = _replace(path, "# Components", "# Comp\x00onents")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", line, "U+0000")


def test_template_syntax_error_in_rules_markdown(folder):
    root = folder()
    line = _replace(root / "rules.en.md", "# Components", "{% if %}\n# Components")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", line, "syntax error")


def test_a_directive_error_is_reported_at_the_line_that_calls_it(folder):
    """Every directive before it adds lines to the rendered text; the message names the source line."""
    root = folder()
    path = root / "rules.en.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    last = max(i for i, text in enumerate(lines) if "{{ decision(" in text or "{{ decisions()" in text)
    lines.insert(last + 1, "{{ decision('no_such_decision') }}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "rules.en.md", last + 2, "no_such_decision")


def test_a_forged_directive_marker_is_plain_text(folder):
    root = folder()
    _replace(root / "rules.en.md", "# Components", "@@BLOCK99@@\n\n# Components")
    assert build_rulebook(load_game(str(root)), "en")[:4] == b"%PDF"


def test_report_spec_typo_is_an_unknown_key_at_its_line(folder):
    root = folder()
    line = _replace(root / "templates" / "report.yaml", "  - title: {ja: 4人", "  - titel: {ja: 4人")
    _refused(lambda: report_runs(load_game(str(root))), "report.yaml", line, "unknown key 'titel'")


def test_report_spec_with_wrong_types(folder):
    root = folder()
    line = _replace(root / "templates" / "report.yaml", "    players: 4", "    players: [4]")
    _refused(lambda: report_runs(load_game(str(root))), "report.yaml", line, "players")


def test_playtest_spec_with_a_bad_count(folder):
    root = folder()
    line = _replace(root / "templates" / "playtest.yaml", "count: 40", "count: {a: 1}")
    _refused(lambda: build_playtest(load_game(str(root)), "en"), "playtest.yaml", line, "count")


def test_playtest_count_naming_an_unknown_parameter(folder):
    root = folder()
    line = _replace(root / "templates" / "playtest.yaml", "rows: {count: rounds", "rows: {count: no_such_parameter")
    _refused(lambda: build_playtest(load_game(str(root)), "en"), "playtest.yaml", line, "no_such_parameter")


def test_figures_with_an_unknown_item_type(folder):
    root = folder("alice")
    line = _replace(root / "templates" / "figures.yaml", "type: deck", "type: dragon")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "figures.yaml", line, "dragon")


def test_an_interface_word_may_not_reach_into_objects(folder):
    root = folder()
    (root / "templates" / "words.yaml").write_text(
        "words:\n  rulebook:\n    cards_unit: {ja: \"{n}枚\", en: \"{n.__class__}\"}\n", encoding="utf-8")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "words.yaml", 3, "braces may only hold a field name")


def test_style_override_of_a_game_folder_is_checked(folder):
    root = folder()
    (root / "templates" / "style.yaml").write_text("page:\n  margin_top: lots\n", encoding="utf-8")
    _refused(lambda: build_rulebook(load_game(str(root)), "en"), "style.yaml", 2, "margin_top")


# --- limits -------------------------------------------------------------------------------------

def test_a_raster_image_over_the_pixel_limit_is_refused_before_drawing():
    with pytest.raises(CardgenError) as info:
        raster.check_pixels(raster.png_size((300.0, 300.0), 3.0, dpi=3000), "a card face PNG")
    assert "more than the limit" in str(info.value)
    assert raster.check_pixels(raster.png_size((63.5, 88.9), 3.175), "a card face PNG") == (825, 1125)


def test_no_jinja_environment_outside_the_sandbox():
    sources = [p for p in (package_root() / "cardgen").rglob("*.py") if p.name != "sandbox.py"]
    offenders = [str(p) for p in sources if re.search(r"\b(jinja2\.)?(Sandboxed)?Environment\(", p.read_text(encoding="utf-8"))]
    assert not offenders, offenders


def test_bundled_layouts_still_render_with_the_sandbox(folder):
    root = folder("requiem")
    result = _build(root, "sheets")
    assert result.files and all(p.stat().st_size > 0 for p in result.files)
    assert not isinstance(result, DataError)
