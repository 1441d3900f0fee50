"""The Tabletop Simulator Saved Object: parses, one entry per physical card, DeckIDs match the sheets."""

from __future__ import annotations

import json

import pytest

from cardgen.build import build_game, make_options
from cardgen.load import load_game
from cardgen.render.cards.raster import TTS_MAX_CARDS, TtsSheet, tts_saved_object


@pytest.fixture(scope="module", params=["alice", "ohanatsumi"])
def saved(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("tts")
    game = load_game(request.param)
    build_game(game, make_options(out=out, outputs=("tts",), lang="en"))
    path = out / game.id / "tts-en" / f"{game.id}.json"  # English is the second language: its folder carries -en
    return game, json.loads(path.read_text(encoding="utf-8")), out / game.id / "tts-en"


def _cards(state):
    return state["ContainedObjects"] if state["Name"] == "DeckCustom" else [state]


def test_one_entry_per_physical_card_with_names(saved):
    game, data, _ = saved
    states = data["ObjectStates"]
    entries = [c for s in states for c in _cards(s)]
    assert len(entries) == game.total
    names = {card.id: card.name.en for card in game.cards}
    assert sorted(c["Description"] for c in entries) == sorted(card.id for card in game.cards)
    for c in entries:
        assert c["Name"] == "CardCustom" and c["Nickname"] == names[c["Description"]]


def test_deck_ids_are_custom_deck_key_times_100_plus_slot(saved):
    _, data, folder = saved
    for state in data["ObjectStates"]:
        if state["Name"] != "DeckCustom":
            continue
        assert state["DeckIDs"] == [c["CardID"] for c in state["ContainedObjects"]]
        for card_id in state["DeckIDs"]:
            key, slot = divmod(card_id, 100)
            sheet = state["CustomDeck"][str(key)]
            assert 0 <= slot < sheet["NumWidth"] * sheet["NumHeight"] and slot < TTS_MAX_CARDS
        for key, sheet in state["CustomDeck"].items():
            assert set(sheet) >= {"FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden", "UniqueBack"}
            assert sheet["BackIsHidden"] is True
            for url in (sheet["FaceURL"], sheet["BackURL"]):
                assert url.startswith("file://") and (folder / url.rsplit("/", 1)[1]).is_file()


def test_cards_with_their_own_backs_get_unique_back_sheets(saved):
    game, data, _ = saved
    sheets = [s for state in data["ObjectStates"] for s in (state.get("CustomDeck") or {}).values()]
    if game.id == "ohanatsumi":  # quests carry their boss on the back
        assert any(s["UniqueBack"] for s in sheets)
        assert any(s["BackURL"].endswith("-backs.png") for s in sheets if s["UniqueBack"])
    else:
        assert not any(s["UniqueBack"] for s in sheets)


def test_never_the_70th_slot_and_hosted_urls():
    cards = tuple(f"C{i:03d}" for i in range(150))
    sheets = [TtsSheet("default", f"g-{n}.png", "g-back.png", False, 10, 7, (400, 560), cards[i:i + TTS_MAX_CARDS])
              for n, i in enumerate(range(0, 150, TTS_MAX_CARDS), start=1)]
    assert TTS_MAX_CARDS == 69 and all(len(s.cards) <= 69 for s in sheets)
    data = tts_saved_object("g", sheets, {}, lambda name: "https://example.org/g/" + name, "G")
    state = data["ObjectStates"][0]
    assert len(state["ContainedObjects"]) == 150
    assert state["DeckIDs"][68] == 168 and state["DeckIDs"][69] == 200
    assert state["CustomDeck"]["2"]["FaceURL"] == "https://example.org/g/g-2.png"
    json.dumps(data)


def test_every_tile_reaches_its_cell_edges(saved):
    """A tile is the trimmed face drawn to its whole cell: PDFium once rendered it a pixel short
    on the right and bottom, and the gap was padded with a white line along two edges of every
    card in TTS. The last column and row now continue the face (averaged, within a few levels)."""
    import numpy as np
    from PIL import Image

    game, _, folder = saved
    manifest = json.loads((folder / f"{game.id}-tts.json").read_text(encoding="utf-8"))
    images = [(sheet, sheet["face"]) for sheet in manifest["sheets"]]
    images += [(sheet, sheet["back"]) for sheet in manifest["sheets"] if sheet["unique_back"]]  # back sheets too
    assert any(sheet["unique_back"] for sheet, _ in images) == (game.id == "ohanatsumi")
    for sheet, name in images:
        cw, ch = sheet["card_px"]
        pixels = np.asarray(Image.open(folder / name).convert("RGB")).astype(int)
        for slot in range(sheet["number"]):
            r, c = divmod(slot, sheet["width"])
            tile = pixels[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw]
            right = np.abs(tile[:, -1].mean(axis=0) - tile[:, -2].mean(axis=0)).max()
            bottom = np.abs(tile[-1].mean(axis=0) - tile[-2].mean(axis=0)).max()
            assert right < 8 and bottom < 8, (name, slot, right, bottom)
