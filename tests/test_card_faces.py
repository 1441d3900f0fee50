"""Card faces: every card shows what its source describes, fonts are embedded, text stays in the
safe zone, overflows are reported, backs are shared or a card's own, nothing leaves the bleed."""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from cardgen.errors import DataError
from cardgen.fonts import register_fonts
from cardgen.load import bundled_games_dir, load_game, package_root
from cardgen.model import Text
from cardgen.render.cards.card import Face, Overflow, back_group, card_size_mm, check_overflows, draw_face, faces
from cardgen.render.cards.layout import SAFE_MM, LayoutError, get_layout, rotated_extent

GAMES = ("llll", "requiem", "alice", "ohanatsumi")
LANGS = ("ja", "en")
BLEED = 3.0


@pytest.fixture(scope="module")
def games():
    return {gid: load_game(gid) for gid in GAMES}


def render(game, lang: str, pairs=None, size=None) -> bytes:
    """Every face on its own page (front, back, front, back ...), like a print-shop file."""
    gothic, _ = register_fonts()
    w, h = size or card_size_mm(game)
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=((w + 2 * BLEED) * mm, (h + 2 * BLEED) * mm), initialFontName=gothic)
    for front, back in pairs or faces(game):
        for face in (front, back):
            draw_face(c, game, face, BLEED, BLEED, w, h, BLEED, lang)
            c.showPage()
    c.save()
    return buffer.getvalue()


def squash(text: str) -> str:
    """Without white space, and with typographic marks as typed (English text is printed with
    ’ “ ” … – where the face has them: cardgen.text.typographic, tested in test_text)."""
    for mark, typed in (("‘", "'"), ("’", "'"), ("“", '"'), ("”", '"'), ("…", "..."), ("–", "-")):
        text = text.replace(mark, typed)
    return re.sub(r"\s+", "", text)


def page_texts(data: bytes) -> list[str]:
    """The text of every page (pdfium's extraction: fast, follows ToUnicode like pypdf)."""
    doc = pdfium.PdfDocument(data)
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


def local(value, lang):
    return value.get(lang) if isinstance(value, Text) else value


def expected_texts(game, card, lang) -> tuple[list[str], list[str]]:
    """What the front and the back of `card` must say (besides its id)."""
    f = card.fields
    front = [card.name.get(lang)]
    back: list[str] = []
    if game.id == "llll":
        front += [f["initial"], local(f["ability"], lang)]
    elif game.id == "requiem":
        labels = game.param("rank_labels")
        front.append(str(labels.get(f["rank"], f["rank"])))
        suit = next(s for s in game.param("suits") if s["id"] == f["suit"])
        front.append(suit[lang])
        front.append({"ally": {"ja": "友軍", "en": "Ally"}, "enemy": {"ja": "敵軍", "en": "Enemy"}}[f["side"]][lang])
        for name in ("declaration", "ability"):
            if name in f:
                front.append(local(f[name], lang))
        if card.type_id != "prince":
            front.append(local(f["role"], lang))
    elif game.id == "alice":
        front.append(local(f["event_text"], lang))
        if f["kind"] == "investigation":
            front.remove(card.name.get(lang))  # the clue is the title; the colour and crime say the rest
            front.append(local(f["clue"], lang))
            front.append({"place": {"ja": "場所", "en": "Place"}, "weapon": {"ja": "凶器", "en": "Weapon"},
                          "motive": {"ja": "動機", "en": "Motive"}}[f["icon"]][lang])
        colour = {"red": ("赤", "RED"), "blue": ("青", "BLUE"), "green": ("緑", "GREEN"),
                  "white": ("白", "WHITE"), "black": ("黒", "BLACK")}[f["colour"]]
        front.append(colour[0] if lang == "ja" else colour[1])
    elif game.id == "ohanatsumi":
        if f["deck"] == "quest":
            front += [local(f["quest_text"], lang), str(f["events"]), str(f["fame"])]
            back += [local(f["boss_text"], lang), local(f["success_text"], lang), local(f["fail_text"], lang),
                     str(f["urge_limit"]), str(f["back_fame"])]
            limit = f["urge_limit"]
            back += [f"尿意{limit}以下", f"尿意{limit + 1}以上"] if lang == "ja" else [f"Urge {limit} or less", f"Urge {limit + 1} or more"]
        else:
            front.append(local(f["text"], lang))
            if f.get("flower") == "restroom":
                front.append("尿意を0にする" if lang == "ja" else "Urge drops to 0")
            else:
                front.append(f"尿意+{f['urge']}" if lang == "ja" else f"Urge +{f['urge']}")
    return front, back


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", GAMES)
def test_every_card_shows_its_id_name_and_texts(games, game_id, lang):
    game = games[game_id]
    texts = page_texts(render(game, lang))
    pairs = faces(game)
    assert len(texts) == 2 * len(game.cards) == 2 * len(pairs)
    for index, (front, back) in enumerate(pairs):
        card = front.card
        front_text = squash(texts[2 * index])
        back_text = squash(texts[2 * index + 1])
        want_front, want_back = expected_texts(game, card, lang)
        assert card.id in front_text, (card.id, front_text)
        for want in want_front:
            assert squash(want) in front_text, (card.id, lang, want, front_text)
        for want in want_back:
            assert squash(want) in back_text, (card.id, lang, want, back_text)
        if front.own_back:
            assert card.id in back_text
        else:
            assert squash(game.title.get(lang)) in back_text


def _fonts(obj, found: dict) -> None:
    resources = obj.get("/Resources")
    if resources is None:
        return
    resources = resources.get_object()
    for font in (resources.get("/Font") or {}).values():
        font = font.get_object()
        descriptor = font.get("/FontDescriptor")
        found[str(font["/BaseFont"])] = descriptor is not None and "/FontFile2" in descriptor.get_object()
    for xobject in (resources.get("/XObject") or {}).values():
        _fonts(xobject.get_object(), found)


@pytest.mark.parametrize("game_id", GAMES)
def test_fonts_are_ipaex_subsets_embedded_as_truetype(games, game_id):
    # Japanese in IPAex and its bold in BIZ UD Gothic Bold (a real bold, not a stroked outline)
    game = games[game_id]
    reader = PdfReader(io.BytesIO(render(game, "ja", faces(game)[:6])))
    found: dict[str, bool] = {}
    for page in reader.pages:
        _fonts(page, found)
    assert found, "no fonts at all"
    for name, embedded in found.items():
        assert re.fullmatch(r"/[A-Z]{6}\+(IPAex(Gothic|Mincho)|BIZUDGothic-Bold)", name), name
        assert embedded, f"{name} is not embedded (no /FontFile2)"


@pytest.mark.parametrize("game_id", GAMES)
def test_text_and_icon_boxes_stay_in_the_safe_zone(games, game_id):
    game = games[game_id]
    layout = get_layout(game)
    w, h = layout.width, layout.height
    assert (w, h) == card_size_mm(game)
    groups = [entry.front for entry in layout.entries]
    groups += [entry.back for entry in layout.entries if isinstance(entry.back, tuple)]
    groups += list(layout.backs.values())
    checked = 0
    for boxes in groups:
        for box in boxes:
            if box.kind == "icon" and box.params.get("decor") is not None and box.params["decor"].const:
                continue
            if box.kind not in ("text", "icon"):
                continue
            x0, y0, x1, y1 = rotated_extent(box)
            assert x0 >= SAFE_MM - 1e-9 and y0 >= SAFE_MM - 1e-9, (box.name, box.location)
            assert x1 <= w - SAFE_MM + 1e-9 and y1 <= h - SAFE_MM + 1e-9, (box.name, box.location)
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", GAMES)
def test_bundled_games_have_no_overflowing_text(games, game_id, lang):
    assert check_overflows(games[game_id], lang) == []


def test_an_overlong_text_is_reported_as_an_overflow(game_copy):
    root = game_copy("llll")
    cards = root / "cards.yaml"
    long = "This ability goes on and on. " * 30
    cards.write_text(cards.read_text(encoding="utf-8").replace(
        '"Action > If this ability is used twice in one round, you win the game."', f'"{long.strip()}"'), encoding="utf-8")
    game = load_game(root)
    found = check_overflows(game, "en")
    assert {(o.card_id, o.side, o.box) for o in found} == {("LL01", "front", "ability"), ("LL02", "front", "ability")}
    assert found[0].text == long.strip()
    assert check_overflows(game, "ja") == []
    # draw_face appends to the list it is given
    overflows: list = []
    c = Canvas(io.BytesIO())
    draw_face(c, game, faces(game)[0][0], 10, 10, 63.5, 88.9, 3, "en", overflows)
    assert overflows == [Overflow("LL01", "front", "ability", long.strip())]


def test_faces_give_quests_their_own_back_and_share_the_others(games):
    oh = games["ohanatsumi"]
    pairs = faces(oh)
    assert [f.card.id for f, _ in pairs] == [c.id for c in oh.cards]
    for front, back in pairs:
        assert front.side == "front" and back.side == "back"
        assert front.card is back.card
        quest = front.card.get("deck") == "quest"
        assert back.own_back is quest
        group = back_group(oh, back.card)
        if quest:
            assert group == f"own:{back.card.id}"
        else:
            assert group == {"event": "events", "flower": "flowers"}[front.card.get("deck")]
    for game_id in ("llll", "requiem", "alice"):
        assert all(not back.own_back for _, back in faces(games[game_id]))
        assert {back_group(games[game_id], c) for c in games[game_id].cards} == {"default"}


def test_quest_backs_differ_per_copy_and_shared_backs_are_identical(games):
    oh = games["ohanatsumi"]
    quests = [p for p in faces(oh) if p[0].card.get("deck") == "quest"][:4]
    reader = PdfReader(io.BytesIO(render(oh, "en", quests)))
    backs = [squash(reader.pages[i].extract_text()) for i in (1, 3, 5, 7)]
    assert len(set(backs)) == 4
    events = [p for p in faces(oh) if p[0].card.get("deck") == "event"][:3]
    reader = PdfReader(io.BytesIO(render(oh, "en", events)))
    assert len({squash(reader.pages[i].extract_text()) for i in (1, 3, 5)}) == 1


def test_nothing_is_drawn_outside_the_bleed(games):
    game = games["llll"]
    w, h = card_size_mm(game)
    margin = 20.0
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=((w + 2 * margin) * mm, (h + 2 * margin) * mm))
    front, back = faces(game)[0]
    draw_face(c, game, back, margin, margin, w, h, BLEED, "en")  # the back paints its field to the bleed
    c.showPage()
    c.save()
    dpi = 72
    page = pdfium.PdfDocument(buffer.getvalue())[0]
    image = page.render(scale=dpi / 72).to_pil().convert("RGB")
    px = lambda x_mm, y_mm: image.getpixel((int(x_mm / 25.4 * dpi), int(image.height - y_mm / 25.4 * dpi)))
    white = (255, 255, 255)
    # inside the bleed but outside the trim: the back's colour
    assert px(margin - 1.5, margin + h / 2) != white
    assert px(margin + w + 1.5, margin + h / 2) != white
    assert px(margin + w / 2, margin - 1.5) != white
    # beyond the bleed: untouched paper
    for x, y in [(margin - BLEED - 2, margin + h / 2), (margin + w + BLEED + 2, margin + h / 2),
                 (margin + w / 2, margin - BLEED - 2), (margin + w / 2, margin + h + BLEED + 2)]:
        assert px(x, y) == white, (x, y)


def test_card_size_names_and_overrides(games):
    game = games["llll"]
    assert card_size_mm(game) == (63.5, 88.9)
    assert card_size_mm(game, "bridge") == (57.15, 88.9)
    assert card_size_mm(game, "mini") == (44.0, 68.0)
    assert card_size_mm(game, "euro") == (59.0, 92.0)
    assert card_size_mm(game, "tarot") == (70.0, 120.0)
    assert card_size_mm(game, "63x88") == (63.0, 88.0)
    with pytest.raises(LayoutError):
        card_size_mm(game, "huge")


def test_a_face_drawn_at_another_size_scales_its_layout(games):
    game = games["requiem"]
    pair = faces(game)[3]  # a prince: the longest texts
    reader = PdfReader(io.BytesIO(render(game, "ja", [pair], size=(63.0, 88.0))))
    assert squash(pair[0].card.get("ability").ja) in squash(reader.pages[0].extract_text())


# --- layouts as data: errors, cache ---------------------------------------------------------

def _project(tmp_path: Path, game_id: str = "llll") -> tuple[Path, Path]:
    """A designer's game folder: its data, and its own layout in <game folder>/templates/layout.yaml."""
    root = tmp_path / "card_data" / game_id
    shutil.copytree(bundled_games_dir() / game_id, root)
    templates = root / "templates"
    shutil.copytree(package_root() / "templates" / "common", templates / "common")
    shutil.copytree(package_root() / "templates" / game_id, templates, dirs_exist_ok=True)
    return root, templates / "layout.yaml"


def _error_of(root: Path) -> str:
    with pytest.raises(DataError) as info:
        get_layout(load_game(root))
    return str(info.value)


def test_layout_errors_name_file_and_line(tmp_path):
    root, layout = _project(tmp_path)
    text = layout.read_text(encoding="utf-8")
    lines = text.splitlines()
    number = next(i for i, line in enumerate(lines, 1) if "name: number" in line)
    lines[number - 1] = lines[number - 1].replace('at: ["W-25", "H-8.2", 20, 4.5]', 'at: ["W-20", "H-8.2", 20, 4.5]')
    layout.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = _error_of(root)
    assert f"layout.yaml:{number}:" in message
    assert "safe zone" in message and "'number'" in message


def test_layout_errors_unknown_icon_kind_and_key(tmp_path):
    root, layout = _project(tmp_path)
    text = layout.read_text(encoding="utf-8")
    text = text.replace("icon: person,", "icon: persn,").replace("kind: line,", "kind: lines,", 1)
    text = text.replace("text: \"{{ s.ability }}\", size: 7.5,", "text: \"{{ s.ability }}\", sise: 7.5,")
    layout.write_text(text, encoding="utf-8")
    message = _error_of(root)
    assert "icon 'persn' is unknown" in message
    assert "kind 'lines' is unknown" in message
    assert "key 'sise' is not used by a text box" in message
    assert all(re.match(r".*layout\.yaml:\d+:\d+: ", line) for line in message.splitlines())


def test_a_shared_back_must_not_depend_on_the_card(tmp_path):
    root, layout = _project(tmp_path)
    text = layout.read_text(encoding="utf-8")
    text = text.replace('text: "LLLL"', 'text: "{{ card.id }}"')
    layout.write_text(text, encoding="utf-8")
    message = _error_of(root)
    assert "shared back 'default' reads card" in message


def test_layouts_are_cached_until_a_file_changes(tmp_path):
    root, layout = _project(tmp_path)
    game = load_game(root)
    first = get_layout(game)
    assert get_layout(game) is first
    layout.write_text(layout.read_text(encoding="utf-8").replace("size: 7.5, colour:", "size: 7, colour:"), encoding="utf-8")
    stat = layout.stat()
    os.utime(layout, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    second = get_layout(game)
    assert second is not first
    assert get_layout(game) is second
    # an included file counts too
    common = layout.parent / "common" / "backs.yaml"
    stat = common.stat()
    os.utime(common, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    assert get_layout(game) is not second


def test_a_build_reads_its_layout_once(tmp_path, monkeypatch):
    """Every face of a build comes from one reading of the layout: a file saved while the build
    runs is seen by the next build, and the layout files are not stat()ed for every face."""
    from cardgen.build import build_game, make_options
    from cardgen.render.cards import layout as layout_module

    root, layout = _project(tmp_path)
    game = load_game(root)
    checked: list[str] = []
    real_mtime = layout_module._mtime
    monkeypatch.setattr(layout_module, "_mtime", lambda path: (checked.append(path), real_mtime(path))[1])
    first = get_layout(game)
    files = len(first.files)
    checked.clear()
    with layout_module.pinned_layouts():
        assert get_layout(game) is first
        layout.write_text(layout.read_text(encoding="utf-8").replace("size: 7.5, colour:", "size: 7, colour:"), encoding="utf-8")
        stat = layout.stat()
        os.utime(layout, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
        assert get_layout(game) is first  # pinned: the saved file waits for the next build
        with layout_module.pinned_layouts():  # an inner block keeps the outer one's layouts
            assert get_layout(game) is first
    assert len(checked) == files
    second = get_layout(game)
    assert second is not first
    checked.clear()
    result = build_game(game, make_options(out=tmp_path / "out", outputs=("sheets", "shop")))
    assert len(result.files) == 2 and result.cards > 1
    assert len(checked) <= files  # once for the whole build, not once per face drawn


def test_a_game_without_a_layout_gets_the_generic_one(tmp_path):
    root = tmp_path / "card_data" / "newgame"
    shutil.copytree(bundled_games_dir() / "llll", root)
    game_yaml = root / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace("id: llll", "id: newgame"), encoding="utf-8")
    game = load_game(root)
    assert get_layout(game).path.name == "default.yaml"
    reader = PdfReader(io.BytesIO(render(game, "en", faces(game)[:1])))
    text = squash(reader.pages[0].extract_text())
    assert "Princess" in text and "LL01" in text and squash("you win the game") in text
    assert squash(game.title.en) in squash(reader.pages[1].extract_text())


def test_face_is_a_frozen_value():
    game = load_game("llll")
    face = Face(game.cards[0], "front", False)
    with pytest.raises(AttributeError):
        face.side = "back"  # type: ignore[misc]
    assert face == Face(game.cards[0], "front", False)


def _drawn_text_sizes(game, lang="ja", monkeypatch=None):
    """{(card type, side, box name): {card id: size}} of every text box as drawn."""
    import io as _io

    from reportlab.pdfgen.canvas import Canvas as _Canvas

    from cardgen.render.cards import card as cr

    sizes: dict = {}
    current: list = []
    original_fit, original_draw = cr.fit_text, cr._draw_text

    def fit(*args, **kwargs):
        result = original_fit(*args, **kwargs)
        if current:
            current[-1][1].append(result.size)
        return result

    def draw(c, layout, box, ctx, lang_, x, y, w, h, scale, fonts, face, overflows):
        current.append(((face.card.type_id, face.side, box.name, face.card.id), []))
        original_draw(c, layout, box, ctx, lang_, x, y, w, h, scale, fonts, face, overflows)
        key, got = current.pop()
        if got:
            sizes.setdefault(key[:3], {})[key[3]] = got[-1]

    monkeypatch.setattr(cr, "fit_text", fit)
    monkeypatch.setattr(cr, "_draw_text", draw)
    for front, _back in cr.faces(game):
        cr.draw_face(_Canvas(_io.BytesIO()), game, front, 3, 3, 63.5, 88.9, 3, lang, [])
    return sizes


@pytest.mark.parametrize("game_id", ["llll", "alice"])
def test_a_types_cards_shrink_together(game_id, monkeypatch):
    from cardgen.load import load_game

    sizes = _drawn_text_sizes(load_game(game_id), "ja", monkeypatch)
    assert sizes
    for key, per_card in sizes.items():
        assert len(set(per_card.values())) == 1, f"{key}: {per_card}"


def _avoidable(words: list[str], lines: int, width: float, font: str, size: float) -> bool:
    """Whether `words` can be set on `lines` lines of `width` with two or more on the last."""
    from cardgen.text import text_width

    if len(words) < 2 or text_width(" ".join(words[-2:]), font, size, "en") > width + 1e-6:
        return False
    count, line = 1, ""  # the rest, filled greedily (the fewest lines it can take)
    for word in words[:-2]:
        if line and text_width(f"{line} {word}", font, size, "en") > width + 1e-6:
            count, line = count + 1, word
        else:
            line = f"{line} {word}" if line else word
    return count + (1 if line else 0) <= lines


def test_no_english_card_face_ends_a_paragraph_on_one_word_where_another_break_exists(games):
    """Issue 27: "Gain 2 / fame." The boxes are set by the renderer's own code, without drawing."""
    from cardgen.render.cards.card import set_texts
    from cardgen.text import break_lines

    runts, faces_seen = [], set()
    for game_id in GAMES:
        for box in set_texts(games[game_id], "en"):
            faces_seen.add((game_id, box.card_id, box.side))
            size = box.fitted.size
            paragraphs = [break_lines(p, box.font, size, box.width, "en") for p in box.text.split("\n")]
            assert [line for p in paragraphs for line in p] == list(box.fitted.lines)  # as printed
            for lines in paragraphs:
                words = " ".join(lines).split()
                if len(lines) >= 2 and len(lines[-1].split()) == 1 and _avoidable(words, len(lines), box.width, box.font, size):
                    runts.append(f"{box.card_id} {box.side} {box.box}: {' / '.join(lines)}")
    assert len(faces_seen) > 250
    assert runts == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_box_reads_at_one_size_on_every_card_it_is_drawn_on(games, lang):
    """Issue 27: OH001's success text at 8.5 pt beside OH007's at 7.5 pt. A box of a layout entry
    (all quests, all events) shrinks as a set: the size that fits every card's text."""
    from cardgen.render.cards.card import set_texts

    sizes: dict = {}
    for game_id in GAMES:
        game = games[game_id]
        layout = get_layout(game)
        entry_of = {card.id: layout.entries.index(layout.entry_for(card)) for card in game.cards}
        for box in set_texts(game, lang):
            key = (game_id, entry_of[box.card_id], box.side, box.box)
            sizes.setdefault(key, {})[box.card_id] = box.fitted.size
    assert len(sizes) > 40
    mixed = {key: sorted(set(per_card.values())) for key, per_card in sizes.items() if len(set(per_card.values())) > 1}
    assert mixed == {}
    quests = sizes[next(key for key in sizes if key[0] == "ohanatsumi" and key[3] == "success_text")]
    assert len(quests) == 20  # every quest card, across its five types


def test_a_face_drawn_alone_evaluates_only_the_vars_its_boxes_read(monkeypatch):
    """A rulebook figure draws a few faces from cold caches: the size a box shares with every card
    of its kind needs those cards' texts, not their layout vars, when the box reads none
    (ohanatsumi: 2 vars of 130 cards; every card's vars were evaluated for its first front)."""
    from cardgen.render.cards import card as card_module
    from cardgen.render.cards.layout import Var

    game = load_game("ohanatsumi")
    layout = get_layout(game)
    front = faces(game)[0][0]
    boxes, _ = layout.boxes(front.card, "front")
    assert not any(var.name in box.refs for box in boxes for var in layout.vars)  # what the count below relies on
    card_module._MEMO.cache_clear()
    card_module._BASE_CONTEXTS.cache_clear()
    card_module._SHARED_SIZES.cache_clear()
    evaluated = []
    value = Var.value
    monkeypatch.setattr(Var, "value", lambda self, ctx: evaluated.append(self.name) or value(self, ctx))
    w, h = card_size_mm(game)
    draw_face(Canvas(io.BytesIO()), game, front, 0, 0, w, h, 0, "ja")
    assert sorted(evaluated) == sorted(var.name for var in layout.vars)  # the drawn card's own, once


def test_a_box_with_no_room_to_shrink_reads_no_other_card(monkeypatch):
    """A box whose min_size is its size is set at that size on every card: finding the size its
    cards share needs none of their texts (a rulebook figure drew such boxes after fitting each)."""
    from cardgen.render.cards import card as card_module

    game = load_game("llll")
    layout = get_layout(game)
    front = faces(game)[0][0]
    text_boxes = [box for box in layout.boxes(front.card, "front")[0] if box.kind == "text"]
    assert text_boxes
    fitted = []
    fit_text = card_module.fit_text
    monkeypatch.setattr(card_module, "fit_text", lambda *a, **k: fitted.append(a) or fit_text(*a, **k))
    card_module._SHARED_SIZES.cache_clear()
    card_module._CURRENT_GAME[id(layout)] = game
    for box in text_boxes:
        assert card_module._shared_size(layout, box, front, False, "ja", "IPAexGothic", 100, 20, 9.0, 9.0, 1.25) == 9.0
    assert fitted == []
    # with room, it reads them: the smallest size that fits every card's text
    assert card_module._shared_size(layout, text_boxes[0], front, False, "ja", "IPAexGothic", 100, 20, 9.0, 5.0, 1.25) <= 9.0
    assert fitted
