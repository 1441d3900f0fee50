"""Going to Pick Flowers: rounds, restroom breaks, boss checks, next-round order, endings."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import ohanatsumi as oh
from cardgen.engine.bots import make_policy
from cardgen.engine.core import resolve_chance
from cardgen.engine.harness import random_game
from cardgen.engine.simulate import play
from cardgen.load import load_game
from tests.engine_moves import codes, mover


@pytest.fixture(scope="module")
def game():
    return load_game("ohanatsumi")


def events_with(game, urge):
    return [c.id for c in game.cards if c.get("deck") == "event" and c.get("urge") == urge]


def flowers(game, kind):
    return [c.id for c in game.cards if c.get("flower") == kind]


def quest(game, type_id, limit):
    return next(c.id for c in game.cards_of(type_id) if c.get("urge_limit") == limit)


def stacked(game, quests=(), events=(), flower_cards=()):
    """Every card once, top first: the given quests, events and flowers first within their decks."""
    first = list(quests) + list(events) + list(flower_cards)
    return first + [c.id for c in game.cards if c.id not in first]


CHANCE = random.Random(0)


go = mover(CHANCE)


def new(rules, order=None):
    return resolve_chance(rules.new_initial_state(order), CHANCE)


def take(s, quest_id):
    """Take a quest by its card id: the action names the offer slot it lies in."""
    return go(s, f"take:{s.offer.index(s.rules.index[quest_id])}")


def hold_until(state, phase):
    """Answer 'hold' to every restroom question until the state reaches `phase`."""
    while state.phase == oh.DECLARE and phase != oh.DECLARE:
        go(state, "hold")
    assert state.phase == phase, state.phase


# ---- the worked example ----------------------------------------------------------------------

def test_next_round_order_worked_example():
    # A: success, no break, 3 opened; B: failed, 6; C: success + break, 2; D: failed, 2;
    # E: success + break, 3  ->  A, D, B, C, E (the source's example)
    A, B, C, D, E = range(5)
    status = {A: oh.SUCCESS_NO_BREAK, B: oh.FAILED, C: oh.SUCCESS_BREAK, D: oh.FAILED, E: oh.SUCCESS_BREAK}
    opened = {A: 3, B: 6, C: 2, D: 2, E: 3}
    groups = {oh.SUCCESS_NO_BREAK: 0, oh.FAILED: 1, oh.SUCCESS_BREAK: 2}
    order = oh.next_round_order([A, B, C, D, E], [status[p] for p in range(5)], [opened[p] for p in range(5)], groups)
    assert order == [A, D, B, C, E]


def test_worked_example_played_through_the_engine(game):
    """Five players play the source's example round; the engine reaches A, D, B, C, E."""
    rules = oh.Rules(game, 5)
    assert rules.group_rank == {oh.SUCCESS_NO_BREAK: 0, oh.FAILED: 1, oh.SUCCESS_BREAK: 2}
    qa = quest(game, "quest_egg", 8)        # A: 3 events, limit 8: 3 urge, success, no break
    qb = quest(game, "quest_escort", 8)     # B: 6 events, limit 8: 12 urge, accident
    qc = quest(game, "quest_herbs", 5)      # C: 2 events, limit 5: success, then a break
    qd = quest(game, "quest_herbs", 3)      # D: 2 events, limit 3: 4 urge, accident
    qe = quest(game, "quest_egg", 5)        # E: 3 events, limit 5: success, then a break
    ones, twos = events_with(game, 1), events_with(game, 2)
    ev = ones[0:3] + twos[0:6] + ones[3:5] + twos[6:8] + ones[6:9]
    s = new(rules, stacked(game, [qa, qb, qc, qd, qe], ev))
    for seat, q in enumerate([qa, qb, qc, qd]):
        assert s.phase == oh.CHOOSE and s.current_player() == seat
        take(s, q)
    assert s.quest[4] == rules.index[qe]    # the last quest goes to E without a choice
    # opening cards: decline every break on the road
    hold_until(s, oh.AFTER)
    assert [sum(o) for o in s.opened] == [3, 6, 2, 2, 3]
    assert s.urge == [[3], [12], [2], [4], [3]]
    # boss checks from the fewest opened cards: C (2), D (2), A (3), E (3), B (6)
    assert s.boss == [2, 3, 0, 4, 1]
    assert s.current_player() == 2
    go(s, "restroom")                     # C goes after her success
    assert s.current_player() == 0          # D failed without a question; A is next
    go(s, "skip")
    assert s.current_player() == 4
    go(s, "restroom")
    # B's accident ends the round; cleanup; the next round's order
    assert s.order == [0, 3, 1, 2, 4]       # A, D, B, C, E
    assert s.phase == oh.CHOOSE and s.current_player() == 0 and s.round == 2
    assert s.urge == [[3], [0], [0], [0], [0]]
    assert [len(d) for d in s.done] == [1, 0, 1, 0, 1]
    assert sorted(s.qdiscard) == sorted(rules.index[q] for q in (qb, qd))
    assert len(s.fdown) == 2                # the post-success flower cards, face down
    assert all(not row for rows in s.rows for row in rows)
    assert len(s.edeck) == len(rules.events)   # every event is back under the deck
    assert set(s.edeck.cards()[-len(ev):]) == {rules.index[c] for c in ev}   # the used ones under the rest
    s.check_invariants()


# ---- road and boss ---------------------------------------------------------------------------

def test_restroom_resets_urge_and_elf_adds(game):
    rules = oh.Rules(game, 1)
    q = quest(game, "quest_escort", 11)               # 6 events
    twos = events_with(game, 2)
    s = new(rules, stacked(game, [q], twos[:6], [flowers(game, "restroom")[0], flowers(game, "elf")[0]]))
    take(s, q)
    assert s.phase == oh.DECLARE and s.urge == [[2]]
    assert codes(s) == ["hold", "restroom"]
    go(s, "restroom")
    # next turn the restroom card opens (urge 0) with no question after a flower card
    # (decision restroom-timing); the turn after opens an event (+2) and asks again
    assert s.phase == oh.DECLARE and s.opened == [[3]] and s.urge == [[0 + 2]]
    go(s, "restroom")                               # this time an elf: +1
    # 「まだ次のイベントカードが残っている場合のみ、次ターンでお花摘みに行くかどうか選択できる」:
    # after the elf an event remains, so the player is asked again at once
    assert s.phase == oh.DECLARE and s.opened == [[4]] and s.urge == [[2 + 1]]
    assert codes(s) == ["hold", "restroom"]
    assert s.rows[0][0][1] == rules.index[flowers(game, "restroom")[0]]
    hold_until(s, oh.AFTER)                           # 3 + 4 x 2 = 11 <= 11: success
    assert s.urge == [[11]] and s.breaks == [2]


def test_an_elf_asks_again_and_can_be_followed_by_another_break(game):
    rules = oh.Rules(game, 1)
    q = quest(game, "quest_herbs", 5)                 # 2 events
    elf, rest = flowers(game, "elf")[0], flowers(game, "restroom")[0]
    s = new(rules, stacked(game, [q], events_with(game, 2)[:2], [elf, rest]))
    take(s, q)
    go(s, "restroom")                                 # after the first event: an elf comes up
    assert s.phase == oh.DECLARE and s.urge == [[3]]  # asked again at once: the last event remains
    go(s, "restroom")                                 # a restroom this time
    assert s.urge == [[2]] and s.phase == oh.AFTER    # restroom (0), then the last event (+2)
    assert [rules.ids[c] for c in s.rows[0][0]][1:3] == [elf, rest]


def test_no_break_just_before_the_boss(game):
    rules = oh.Rules(game, 1)
    q = quest(game, "quest_herbs", 5)                 # 2 events
    s = new(rules, stacked(game, [q], events_with(game, 1)[:2]))
    take(s, q)
    assert s.phase == oh.DECLARE                      # after the first event: one event left
    go(s, "hold")
    # the second event is the last: no question, straight to the boss (success: urge 2 <= 5)
    assert s.phase == oh.AFTER and s.opened == [[2]] and s.urge == [[2]]


def test_boss_limit_is_at_most(game):
    rules = oh.Rules(game, 2)
    ok = quest(game, "quest_egg", 6)
    bad = quest(game, "quest_egg", 5)
    s = new(rules, stacked(game, [ok, bad], events_with(game, 2)[:6]))
    take(s, ok)                             # seat 0; seat 1 gets the last quest automatically
    hold_until(s, oh.AFTER)
    assert s.urge == [[6], [6]]
    # seat 0: 6 <= 6 succeeds; seat 1: 6 > 5 is an accident
    assert s.current_player() == 0
    go(s, "skip")
    assert s.round == 2
    assert [len(d) for d in s.done] == [1, 0]
    assert s.urge == [[6], [0]]
    assert s.accidents == [0, 1]
    assert s.order == [0, 1]


def test_flower_deck_empty_means_no_breaks(game):
    rules = oh.Rules(game, 1)
    s = rules.from_position({"game": "ohanatsumi", "players": 1, "phase": "round",
                             "zones": {"flower_discard": flowers(game, "restroom") + flowers(game, "elf")}})
    assert len(s.fdeck) == 0
    resolve_chance(s, CHANCE)
    while not s.is_terminal():
        assert s.phase == oh.CHOOSE, s.phase           # never a restroom question
        go(s, codes(s)[0])
    s.check_invariants()


# ---- solo ------------------------------------------------------------------------------------

def test_solo_two_on_offer_and_one_after_a_break(game):
    rules = oh.Rules(game, 1)
    q1, q2 = quest(game, "quest_herbs", 5), quest(game, "quest_egg", 5)
    q3 = quest(game, "quest_goblins", 8)
    s = new(rules, stacked(game, [q1, q2, q3], events_with(game, 1)[:10]))
    assert codes(s) == ["take:0", "take:1"]               # the two offer slots
    assert [rules.ids[q] for q in s.offer] == [q1, q2]
    take(s, q1)
    assert rules.index[q2] in s.qdiscard              # the other quest, discarded face up
    hold_until(s, oh.AFTER)
    go(s, "restroom")
    # next round: only one quest, taken without a choice
    assert s.round == 2 and s.quest[0] == rules.index[q3]
    assert s.phase == oh.DECLARE
    s.check_invariants()


def test_final_round_some_players_sit_out_and_no_cleanup(game):
    rules = oh.Rules(game, 3)                         # 20 quests: six rounds of 3, then 2 left
    s = new(rules)
    policy = make_policy(oh.Rules, "first", rules)
    while not s.is_terminal():
        if s.round == 7 and s.phase == oh.CHOOSE:
            assert len(s.offer) == 2 and s.final
        go(s, policy.choose(None, s.legal_actions(), random.Random(0)))
    assert s.round == 7
    # the final round's rows were not cleaned up; exactly one seat had no quest
    with_rows = [p for p in range(3) if s.rows[p][0]]
    assert len(with_rows) == 2
    s.check_invariants()


def test_end_tiebreaks(game):
    rules = oh.Rules(game, 3)
    f = {q: rules.back_fame[q] for q in rules.quests}
    by_fame = sorted(rules.quests, key=lambda q: f[q])
    # seat 0: 6 fame in two quests; seat 1: 6 fame in one quest; seat 2: 6 in one, done in the last round
    two = next((a, b) for a in by_fame for b in by_fame if a < b and f[a] + f[b] == 6)
    one = [q for q in by_fame if f[q] == 6 and q not in two]
    done = [list(two), [one[0]], [one[1]]]

    def ended(status, last_fame):
        """A position whose round starts with the quest deck empty: the game ends at once."""
        ids = rules.ids
        kept = {q for d in done for q in d}
        return rules.from_position({
            "game": "ohanatsumi", "players": 3, "phase": "round",
            "zones": {"completed": {p + 1: [ids[q] for q in d] for p, d in enumerate(done)},
                      "quest_discard": [ids[q] for q in rules.quests if q not in kept]},
            "counters": {"status": status, "last_fame": last_fame}})
    s = ended({3: oh.SUCCESS_NO_BREAK}, {3: 6})
    assert s.is_terminal()
    res = s.result()
    assert res.scores == (6, 6, 6) and res.winners == (2,)          # final-round fame
    assert ended({}, {}).result().winners == (1, 2)                  # then fewer quests; then a tie


# ---- two characters --------------------------------------------------------------------------

def forced(s):
    """Make the chance draws whose outcome is known (stacked decks), stopping at a real choice."""
    while s.is_chance_node() and s.chance_size() == 1:
        s.apply(s.chance_at(0))
    return s


def test_two_character_persuasion_and_either_accident(game):
    rules = oh.Rules(game, 1, "two_character")
    assert rules.characters == ("swordswoman", "mage")
    q = quest(game, "quest_egg", 5)
    rest = flowers(game, "restroom")
    s = new(rules, stacked(game, [q], events_with(game, 1)[:3] + events_with(game, 3)[:3], rest))
    take(s, q)
    assert len(s.rows[0][0]) == 3 and len(s.rows[0][1]) == 3
    assert s.urge == [[1, 3]]                         # both rows open a card each turn
    assert codes(s) == sorted(["hold", "restroom:both", "restroom:mage", "restroom:swordswoman"])
    # the persuasion die is a chance node: the first roll fails (3), the second works (2)
    s.apply("restroom:swordswoman")
    forced(s)
    assert codes(s) == [f"roll:{k}" for k in range(1, 7)]
    go(s, "roll:3")
    assert s.rows[0][0][1] in rules.events            # nothing slipped in
    assert s.urge == [[2, 6]]
    s.apply("restroom:both")                          # the mage goes; the swordswoman is persuaded on a 2
    forced(s)
    assert codes(s) == [f"roll:{k}" for k in range(1, 7)]
    go(s, "roll:2")
    assert len(s.rows[0][0]) == 4 and len(s.rows[0][1]) == 4
    # both restroom cards open next turn (urge 0); the free mage may go 「任意のタイミングで」, so
    # she is asked even after a restroom card while an event remains
    assert s.phase == oh.DECLARE and s.urge == [[0, 0]] and codes(s) == ["hold", "restroom:mage"]
    go(s, "hold")
    # then the last events: 1 and 3, both <= 5
    assert s.phase == oh.AFTER and s.urge == [[1, 3]]
    go(s, "skip")
    assert len(s.done[0]) == 1
    # either accident fails the quest; only the one who had it drops to 0 (decision)
    herbs = quest(game, "quest_herbs", 3)
    s2 = new(rules, stacked(game, [herbs], events_with(game, 1)[:1] + events_with(game, 2)[:1] + events_with(game, 3)[:2]))
    take(s2, herbs)
    hold_until(s2, oh.CHOOSE)                         # failed: no question, next round
    assert s2.accidents == [1] and s2.urge == [[3, 0]] and s2.done == [[]]


# ---- setup checks, simulation, determinism, policies -----------------------------------------

def test_setup_checks_report_supported_players(game):
    results = {r.id: r for r in oh.setup_checks(game)}
    assert all(r.ok for r in results.values()), [r for r in results.values() if not r.ok]
    for p in game.player_counts:
        assert f"event-deck-{p}p" in results
    assert "event-deck-1p-two_character" in results
    events = sum(1 for c in game.cards if c.get("deck") == "event")
    most = max(c.get("events") for c in game.cards if c.get("deck") == "quest")
    sets = game.param("two_character_variant")["event_sets"]
    assert f"supports up to {events // most} player" in results["event-deck-max-players-standard"].message
    assert f"supports up to {events // (most * sets)} player" in results["event-deck-max-players-two_character"].message
    assert "16" in results["event-deck-max-players-standard"].message      # 100 events // 6 (the data's decision players-max)


@pytest.mark.parametrize("players,variant", [(p, "standard") for p in range(1, 6)] + [(1, "two_character")])
def test_random_simulation(game, players, variant):
    rules = oh.Rules(game, players, variant)
    lo, hi = rules.score_range()
    for seed in range(120):
        state, res = random_game(rules, seed)           # invariants after every action
        assert state.is_terminal() and state.legal_actions() == []
        assert all(lo <= x <= hi for x in res.scores) and res.winners
        assert res.length <= rules.max_actions


def test_two_character_is_solo_only(game):
    with pytest.raises(ValueError):
        oh.Rules(game, 2, "two_character")
    assert oh.Rules.supports(1, "two_character", game) and not oh.Rules.supports(3, "two_character", game)




def test_lightest_always_takes_the_fewest_events(game):
    rules = oh.Rules(game, 3)
    policy = make_policy(oh.Rules, "lightest", rules)
    prng = random.Random(0)
    for seed in range(20):
        chance = random.Random(seed)
        s = resolve_chance(rules.new_initial_state(), chance)
        while not s.is_terminal():
            action = policy.choose(s.observation(s.current_player()), s.legal_actions(), prng)
            if s.phase == oh.CHOOSE:
                fewest = min(rules.events_of[q] for q in s.offer)
                assert rules.events_of[s.offer[action.args[0]]] == fewest
            s.apply(action)
            resolve_chance(s, chance)


def test_policies_beat_random_in_solo(game):
    rules = oh.Rules(game, 1)
    mean = {}
    for name in ("random", "balanced"):
        policy = make_policy(oh.Rules, name, rules)
        mean[name] = sum(play(rules, [policy], seed).result().scores[0] for seed in range(200)) / 200
    assert mean["balanced"] > mean["random"], mean
