"""One harness, every game alike (in the style of OpenSpiel's random_sim_test).

For every bundled game with an engine and every player count and variant it supports:
random games with all invariants checked after every action, seeded determinism, every
policy playing legal games, and saved records replaying to the same result.
"""

from __future__ import annotations

import random

import pytest

from cardgen.engine import game_engine
from cardgen.engine.bots import make_policy
from cardgen.engine.core import apply_moves
from cardgen.engine.harness import configurations, random_game
from cardgen.engine.record import Record, load_record, replay, save_record
from cardgen.engine.simulate import play
from cardgen.load import load_game

from .conftest import BUNDLED

CASES = [(game_id, players, variant) for game_id in BUNDLED for players, variant in configurations(load_game(game_id))]


def test_every_bundled_game_has_an_engine_with_cases():
    assert {game_id for game_id, _, _ in CASES} == set(BUNDLED)


@pytest.fixture(scope="module")
def games():
    return {game_id: load_game(game_id) for game_id in BUNDLED}


def rules_for(games, game_id, players, variant):
    game = games[game_id]
    return game_engine(game), game_engine(game)(game, players, variant)


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_random_games_keep_every_invariant(games, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    low, high = rules.score_range()
    for seed in range(25):
        state, result = random_game(rules, seed, deep=seed < 3)  # conservation, legality, chance, clone, observations
        assert state.is_terminal() and result.length <= rules.max_actions
        assert all(low <= score <= high for score in result.scores)
        assert len(result.scores) == players


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_same_seed_and_choices_replay_exactly(games, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    state, result = random_game(rules, 4242)
    again = rules.new_initial_state()
    apply_moves(again, [str(a) for a in state.history])
    assert again.result() == result
    assert {zone: list(cards) for zone, cards in again.zones().items()} == {zone: list(cards) for zone, cards in state.zones().items()}
    other, _ = random_game(rules, 4243)
    assert other.history != state.history  # the seed, not a global RNG, drives chance


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_every_policy_plays_legal_games(games, game_id, players, variant):
    module, rules = rules_for(games, game_id, players, variant)
    for name in sorted(module.POLICIES):
        policies = [make_policy(module, name, rules) for _ in range(players)]
        for seed in range(5):
            state = play(rules, policies, seed)
            assert state.is_terminal(), (name, seed)


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_saved_record_replays_to_the_same_result(games, tmp_path, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    state, result = random_game(rules, 11, check=False)
    path = tmp_path / "game.yaml"
    save_record(Record(game=game_id, players=players, variant=variant, seed=11, actions=list(state.history)), path)
    report = replay(load_record(path))
    assert report.ok and report.finished and report.result == result


# --- hidden information: a bot cannot read a hidden card --------------------------------------

def _plain(value, path="observation"):
    """Observations are plain data: no object through which a policy could reach the state."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, (str, int)), f"{path}: key {k!r}"
            _plain(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _plain(v, f"{path}[{i}]")
    else:
        assert value is None or type(value) in (str, int, float, bool), f"{path} is a {type(value).__name__}"


def _same_for(seat, a, b):
    oa, ob = a.observation(seat), b.observation(seat)
    _plain(oa.as_dict())
    assert oa == ob
    assert a.information_state_string(seat) == b.information_state_string(seat)


def _pair(rules, one, other):
    return rules.from_position(one), rules.from_position(other)


def test_observations_hide_other_hands_and_deck_order(games):
    """Two states that differ only in cards a seat cannot see give that seat equal observations
    and information-state strings (positions differing in a hidden card each)."""
    from cardgen.engine import alice, llll, ohanatsumi, requiem
    # llll: another seat's face-down score card, the face-down castle card and the deck order.
    g = games["llll"]
    r = llll.Rules(g, 3)
    ids = [c.id for c in g.cards]
    base = {"game": "llll", "players": 3, "phase": "ally", "to_act": 1,
            "zones": {"allies": {1: [ids[0]]}, "castle": ids[1:4]}}

    def ll(secret, hidden, top):
        pos = {**base, "zones": {**base["zones"], "scores": {2: [secret]}, "secret": [secret],
                                 "castle": [ids[1], ids[2], hidden]}, "decks": {"deck": [top]}}
        return pos
    a, b = _pair(r, ll(ids[10], ids[11], ids[12]), ll(ids[11], ids[12], ids[10]))
    _same_for(0, a, b)
    _same_for(2, a, b)
    assert a.observation(1) != b.observation(1)            # the owner knows her own secret card
    # requiem: a face-down arrival and the city deck order.
    g = games["requiem"]
    r = requiem.Rules(g, 3)
    enemies = sorted(r.enemies)
    city = [c for c in sorted(r.rank) if r.side[c] == "ally" and c not in r.princes and c not in r.mages][:2]
    princes = {1: [r.princes[0]], 2: [r.princes[1]], 3: [r.princes[2]]}

    def rq(arrival, top):
        return {"game": "requiem", "players": 3, "phase": "scout",
                "zones": {"lines": princes, "arrival": [arrival, None, None]}, "decks": {"city": top}}
    a, b = _pair(r, rq(enemies[0], city), rq(enemies[1], city[::-1]))
    for seat in range(3):
        _same_for(seat, a, b)
    # alice: the deck order (solo), and the opponent's profile (versus).
    g = games["alice"]
    r = alice.Rules(g, 1, "solo")
    deck = [c.id for c in g.cards]
    a, b = _pair(r, {"game": "alice", "players": 1, "phase": "event", "zones": {"memo": [deck[0]]}, "decks": {"deck": deck[1:4]}},
                 {"game": "alice", "players": 1, "phase": "event", "zones": {"memo": [deck[0]]}, "decks": {"deck": deck[3:0:-1]}})
    _same_for(0, a, b)
    r = alice.Rules(g, 2, "versus")
    alices = [r.ids[c] for c in r.alices]

    def vs(profile):
        return {"game": "alice", "players": 2, "variant": "versus", "phase": "event", "to_act": 1,
                "zones": {"profile": {1: alices[0], 2: profile}, "memo": {1: [deck[5]]}}}
    a, b = _pair(r, vs(alices[1]), vs(alices[2]))
    _same_for(0, a, b)
    assert a.observation(1) != b.observation(1)
    # ohanatsumi: which copy of a quest kind a seat holds (its back), and the face-down events.
    g = games["ohanatsumi"]
    r = ohanatsumi.Rules(g, 2)
    copies = [c.id for c in g.cards_of(next(t.id for t in g.card_types if t.id.startswith("quest_")))]
    events = [c.id for c in g.cards if c.get("deck") == "event"]

    def oh(quest, row):
        return {"game": "ohanatsumi", "players": 2, "phase": "adventure",
                "zones": {"quest": {1: quest, 2: copies[2]}, "rows": {1: [row], 2: [events[10:12]]}}}
    a, b = _pair(r, oh(copies[0], [events[0], events[1]]), oh(copies[1], [events[0], events[2]]))
    assert a.phase == ohanatsumi.DECLARE          # seat 1 opened the first card; the second is face down
    for seat in range(2):
        _same_for(seat, a, b)


def test_ohanatsumi_actions_name_what_the_seat_sees(games):
    """take names an offer slot (the quest's front is all a seat sees), and the history shows
    no quest card's id before its back is revealed."""
    from cardgen.engine import ohanatsumi
    from cardgen.engine.core import resolve_chance
    r = ohanatsumi.Rules(games["ohanatsumi"], 3)
    s = resolve_chance(r.new_initial_state(), random.Random(1))
    assert all(a.kind == "take" and isinstance(a.args[0], int) for a in s.legal_actions())
    quest_ids = {r.ids[q] for q in r.quests}
    seen = s.observation(s.current_player())
    assert not any(code.split(":")[-1] in quest_ids for code in seen.history)
    assert not quest_ids & set(str(v) for v in seen.private.values())
