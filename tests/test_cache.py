"""The build cache (cardgen/cache.py): a rebuild reads unchanged outputs from OUT/.cache/<game>/,
writes the same bytes, redraws only the faces whose inputs changed, and survives a damaged cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cardgen.build import build_game, make_options
from cardgen.cache import CACHE_DIR, Cache, cache_for, digest
from cardgen.load import load_game

OUTPUTS = ("sheets", "shop", "png", "tts", "rules", "tuckbox")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and CACHE_DIR not in p.parts and p.suffix != ".json"}  # .json: file:// URIs of OUT


def _build(game_dir: Path, out: Path, **kw):
    return build_game(load_game(str(game_dir)), make_options(out=out, outputs=OUTPUTS, **kw))


@pytest.fixture
def alice(game_copy):
    return game_copy("alice")


def test_second_build_reads_everything_from_the_cache_and_writes_the_same_files(alice, tmp_path):
    out = tmp_path / "out"
    first = _build(alice, out)
    assert "sheets" in first.drawn and "shop" in first.drawn and "rules-ja" in first.drawn
    before = _files(out / "alice")
    second = _build(alice, out)
    # nothing drawn: the PDFs came from the cache, and no PNG or TTS image was rendered
    assert second.drawn == ["0 PNG", "0 TTS image"]
    assert _files(out / "alice") == before
    # and the cache changes nothing: a build without it gives the same bytes
    plain = tmp_path / "plain"
    _build_no_cache(alice, plain)
    assert _files(plain / "alice") == before
    assert not (plain / CACHE_DIR).exists()


def _build_no_cache(game_dir: Path, out: Path):
    from dataclasses import replace

    return build_game(load_game(str(game_dir)), replace(make_options(out=out, outputs=OUTPUTS), cache=False))


def test_a_changed_card_redraws_only_its_faces(alice, tmp_path):
    out = tmp_path / "out"
    _build(alice, out)
    png = out / "alice" / "png"
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in png.iterdir()}
    cards = alice / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    assert "凶眼の持ち主" in text
    cards.write_text(text.replace("凶眼の持ち主", "鋭い凶眼の持ち主"), encoding="utf-8")
    result = _build(alice, out)
    # AL01 (alice_red, one copy, the shared back) is the one face redrawn; its TTS sheet too
    assert "1 PNG" in result.drawn and "1 TTS image" in result.drawn
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in png.iterdir()}
    changed = sorted(name for name in after if after[name][0] != before[name][0])
    assert changed == ["AL01-front.png"]
    untouched = [name for name in after if name != "AL01-front.png"]
    assert all(after[n][1] == before[n][1] for n in untouched)  # not even rewritten
    # the same bytes as a build from scratch of the changed game
    assert _files(out / "alice") == _files(_build_no_cache(alice, tmp_path / "fresh").out_dir)


def test_a_corrupt_cache_is_a_miss_and_is_rebuilt(alice, tmp_path):
    out = tmp_path / "out"
    _build(alice, out)
    good = _files(out / "alice")
    folder = cache_for(out, "alice").folder
    entries = sorted(folder.iterdir())
    assert len(entries) >= 8  # the PDFs, the faces' notes, TTS images and the index of the PNG files
    entries[0].write_bytes(entries[0].read_bytes()[:-1] + b"x")  # a flipped byte
    entries[1].write_bytes(b"")  # truncated
    entries[2].write_bytes(b"cardgen-cache-1\n" + b"\0" * 32 + b"not what the checksum says")
    entries[3].unlink()
    entries[3].symlink_to("/etc/passwd")  # a planted link is never followed
    entries[4].unlink()
    entries[4].mkdir()  # a folder where an entry should be
    for entry in entries[5:]:  # and every other entry damaged too, so each output is a miss
        entry.write_bytes(os.urandom(64))
    result = _build(alice, out)
    assert "sheets" in result.drawn and "shop" in result.drawn
    assert _files(out / "alice") == good
    # the damaged entries were replaced by good ones: the next build draws nothing
    assert _build(alice, out).drawn == ["0 PNG", "0 TTS image"]


def test_png_files_are_their_own_cache_and_a_changed_or_missing_one_is_drawn_again(alice, tmp_path):
    out = tmp_path / "out"
    _build(alice, out)
    png = out / "alice" / "png"
    good = {p.name: p.read_bytes() for p in png.iterdir()}
    # the cache keeps an index of the PNG files' digests, not a second copy of each file
    entries = [p.read_bytes() for p in cache_for(out, "alice").folder.iterdir()]
    assert not any(face in entry for entry in entries for face in good.values())
    (png / "AL01-front.png").write_bytes(good["AL01-front.png"][:-1] + b"x")  # changed by hand
    (png / "AL02-front.png").unlink()
    (png / "AL03-front.png").unlink()
    (png / "AL03-front.png").symlink_to(png / "AL04-front.png")  # a link in its place is never read
    result = _build(alice, out)
    assert "3 PNG" in result.drawn
    assert {p.name: p.read_bytes() for p in png.iterdir()} == good
    assert not (png / "AL03-front.png").is_symlink()


def test_cache_entries_are_checked_and_the_cache_is_bounded(tmp_path):
    cache = Cache(tmp_path / "c", max_bytes=3000)
    keys = [digest("entry", i) for i in range(6)]
    for i, key in enumerate(keys):
        cache.put(key, bytes([i]) * 1000)
        os.utime(cache.folder / key, ns=(i * 10**9, i * 10**9))  # written in this order
    assert cache.get(keys[5]) == bytes([5]) * 1000
    assert cache.prune() == 4  # the oldest go first, down to 3,000 bytes with the headers
    assert [k for k in keys if (cache.folder / k).exists()] == keys[-2:]
    assert cache.get(keys[0]) is None
    with pytest.raises(ValueError):
        cache.get("../../etc/passwd")


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "c").symlink_to(elsewhere)
    cache = Cache(tmp_path / "c")
    key = digest("x")
    cache.put(key, b"data")
    assert cache.get(key) is None and list(elsewhere.iterdir()) == []


def test_prune_removes_what_is_not_an_entry(tmp_path):
    cache = Cache(tmp_path / "c")
    key = digest("kept")
    cache.put(key, b"data")
    (cache.folder / f".{key}.abc.tmp").write_bytes(b"left by a killed build")
    (cache.folder / "planted").mkdir()
    assert cache.prune() == 2
    assert sorted(p.name for p in cache.folder.iterdir()) == [key]


def test_digest_of_plain_values_equals_the_general_encoding():
    import hashlib
    import json

    from cardgen.cache import stable

    for parts in [("a", 1, 2.5, None, True), ("face", "png", (825, 1125), 300), ("k", ["x", 2]), ({"b": 1, "a": (1, 2)},)]:
        general = json.dumps([stable(p) for p in parts], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        assert digest(*parts) == hashlib.sha256(general.encode("utf-8")).hexdigest()
    assert digest("a", 1) != digest("a", "1") != digest(["a", 1])


def test_a_longer_text_that_shrinks_its_siblings_redraws_them(alice):
    """A box's size is shared by every card it is drawn on (issue 27): when one Alice card's event
    text grows, the other Alice cards' events shrink with it, so their faces' keys change too (in
    the same process, as under `cardgen watch`); a card in another set keeps its key."""
    from cardgen.cache import Keys

    def keys() -> dict[str, str]:
        game = load_game(str(alice))
        made = Keys(game, make_options(out=alice.parent / "out", outputs=("png",)))
        return {card_id: made.face(card_id, "front", None, (63.5, 88.9), 3.175, "ja", False) for card_id in ("AL01", "AL02", "AL06")}

    before = keys()
    cards = alice / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    old = "捜査記録にある、赤の捜査カードをすべて捨て札にする。"
    assert old in text
    cards.write_text(text.replace(old, old * 3), encoding="utf-8")
    after = keys()
    assert after["AL01"] != before["AL01"]
    assert after["AL02"] != before["AL02"]  # its own text unchanged, its event box smaller
    assert after["AL06"] == before["AL06"]  # an investigation card: another layout entry
