"""Can You Hear the Requiem?: the full co-operative rules, setup and claim checks, and bots.

The interception area has one place in front of each enemy deck's arrival (a "slot"). An ally
sent there fights whatever arrives in its slot; an ally that wins stays and fights the next
arrival in the same slot until it falls or retreats.

A turn runs the source's nine phases. The automatic ones (1 arrival, 6 combat, 7 damage,
9 regroup) happen by themselves; in the others the game asks each player in seat order
(seat 1, 2, 3) for a choice, skipping players who have none:

- prince:<card>               setup: take one of the three princes (seat order)
- scout:<tapped>:<slot>       2 scouting: tap a line card, reveal the face-down arrival in `slot`
- retreat:<card>              3 temporary retreat: an engaged ally returns tapped (free action)
- rally                       4 return to the line: untap every tapped card of your line
- sortie:<card>:<slot>        5 sortie: an untapped line card engages the arrival in `slot`
- sortie:<card>:<slot>:declare  ... a prince sorties and declares at once
- declare:<card>              5 a prince already in the interception area declares
- rescue                      8 rescue: the top city card joins your line
- none                        take no (further) action in this phase

Chance: every deck is an unordered multiset after a shuffle; each card dealt, arriving,
falling into the damage area or rescued is a chance node draw:<card> (an arrival is dealt face
down: hidden from everyone until scouted or fought). The regrouped enemy decks share one
unordered pool (dealing a shuffled pile round-robin into decks and drawing from them gives the
same distribution of cards as drawing each arrival from the whole pile). Seats with no choice
are skipped by the rules and recorded as skip:<seat>.

Scouting, return to the line, sortie, a declaration and rescue are "chosen actions": at most
one per player per turn. Slots are numbered 0..2 in actions and 1..3 in descriptions.

Results: a victory has success=True, every seat among the winners, the ending score for every
seat and the ending id from game.yaml `endings`. A defeat has success=False, no winners, and
ending "defeat:city-deck-empty" or "defeat:king-lost"; its scores are what the ending formula
would give at that moment (the source scores only a victory).
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from ..io import limits
from ..io.schema import Dict, Int, List, Map, Str, Text
from ..model import CheckResult, Game
from . import core
from .bots import RandomPolicy
from .core import TERMINAL, GameResult
from .position import PositionBuilder, PositionError, checked_state, int_key, position_deck

PRINCE, SCOUT, RETREAT, RALLY, SORTIE, RESCUE, OVER = ("setup: choose a prince", "2 scouting", "3 temporary retreat",
                                                      "4 return to the line", "5 sortie", "8 rescue", "game over")
DEAL, ARRIVE, DAMAGE, RESCUE_DRAW = "setup: deal", "1 arrival", "7 damage", "8 rescue: draw"
CHANCE_PHASES = (DEAL, ARRIVE, DAMAGE, RESCUE_DRAW)
ASK_ORDER = (SCOUT, RETREAT, RALLY, SORTIE, RESCUE)


class Act(core.Action):
    """A requiem move (see the module docstring); chance: draw:<card>; automatic moves:
    skip:<seat> (a seat with no choice in this phase), auto-retreat:<card> (the King)."""

    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "prince", "retreat", "declare", "auto-retreat"})


NONE = Act("none")
RALLY_A = Act("rally")
RESCUE_A = Act("rescue")
_SKIP = [Act("skip", (s,)) for s in range(16)]

WIN, MUTUAL, LOSE = "win", "mutual", "lose"

_RANK = Int(1, 13)
_POINTS = Int(-100, 100)
# Every rule parameter this module (and the rulebook and sheets) reads; the loader refuses a
# missing, mistyped or out-of-range one at its line. What a range cannot say (a covenant suit
# that is not a declared suit, endings that leave a score uncovered) is a failing setup check.
PARAMETERS = Map({
    "suits": List(Map({"id": Str(), "first_rank": _RANK, "ja": Str(), "en": Str()}), 1, 20),
    "rank_labels": Dict(_RANK, Str(), max_items=13),
    "enemy_decks": Int(1, 20),
    "arrivals_per_turn": Int(1, 20),
    "combat": Map({"win_at_least": Int(2, 26), "mutual_at": Int(2, 26)}),
    "all_out_defence": Map({"suit": Str(), "enemy_falls_at_least": Int(2, 26)}),
    "covenant_suits": List(Str(), 0, 20),
    "initial_line": Map({"princes_each": Int(0, 10), "dealt_each": Int(0, 20), "dealt_from_ranks": List(_RANK, 2, 2)}),
    "city_deck_ranks": List(_RANK, 2, 2),
    "initial_pool_cards": Int(0, limits.MAX_CARDS),
    "city_deck_cards": Int(0, limits.MAX_CARDS),
    "mage_rank": _RANK,
    "king_rank": _RANK,
    "prince_rank": _RANK,
    "slaughter_king_rank": _RANK,
    "score": Map({"per_volunteer": _POINTS, "per_recruit": _POINTS, "per_fallen_prince": _POINTS,
                  "all_princes_fallen_extra": _POINTS, "volunteer_rank": _RANK, "recruit_rank": _RANK}),
    "endings": List(Map({"id": Str(), "min_score": Int(-10_000, 10_000), "max_score": Int(-10_000, 10_000),
                         "title": Text(), "kind": Text(), "text": Text()}, optional={"min_score", "max_score"}), 1, 20),
})


def parameter_problems(game: Game) -> list[tuple[str, str]]:
    """(parameter, what is wrong) for what the declared ranges cannot say; empty when consistent."""
    p = game.param
    out: list[tuple[str, str]] = []
    suits = [s["id"] for s in p("suits")]
    combat = p("combat")
    if combat["mutual_at"] >= combat["win_at_least"]:
        out.append(("combat", f"combat.mutual_at {combat['mutual_at']} must be below combat.win_at_least {combat['win_at_least']}"))
    defence = p("all_out_defence")["suit"]
    if defence not in suits:
        out.append(("all_out_defence", f"all_out_defence.suit '{defence}' is not a declared suit ({', '.join(suits)})"))
    stray = [s for s in p("covenant_suits") if s not in suits]
    if stray:
        out.append(("covenant_suits", f"covenant_suits names {', '.join(stray)}, not a declared suit ({', '.join(suits)})"))
    low, high = p("initial_line")["dealt_from_ranks"]
    if low > high:
        out.append(("initial_line", f"initial_line.dealt_from_ranks [{low}, {high}]: the first rank must not exceed the second"))
    pool = sum(1 for c in game.cards if c.get("side") == "ally" and low <= c.get("rank") <= high)
    dealt = p("initial_line")["dealt_each"] * game.max_players
    if dealt > pool:
        out.append(("initial_line", f"initial_line deals {dealt} cards to {game.max_players} players but ranks {low}–{high} hold {pool} allies"))
    # the mages retire and the princes wait at setup: a rank of theirs that is also dealt or
    # put in the city deck would put the same card in two places
    city_ranks = set(p("city_deck_ranks"))
    for name in ("mage_rank", "prince_rank"):
        rank = p(name)
        if low <= rank <= high or rank in city_ranks:
            out.append((name, f"{name} {rank} is also a rank the setup deals ({low}–{high}) or puts in the city deck "
                              f"({', '.join(map(str, sorted(city_ranks)))}); give it a rank of its own"))
    if p("mage_rank") == p("prince_rank"):
        out.append(("mage_rank", f"mage_rank and prince_rank are both {p('mage_rank')}; give each a rank of its own"))
    enemies = sum(1 for c in game.cards if c.get("side") == "enemy")
    if enemies < p("enemy_decks"):
        out.append(("enemy_decks", f"enemy_decks is {p('enemy_decks')} but the game has {enemies} enemy cards"))
    for name in ("king_rank", "slaughter_king_rank"):
        side = "ally" if name == "king_rank" else "enemy"
        found = sum(1 for c in game.cards if c.get("side") == side and c.get("rank") == p(name))
        if found != 1:
            out.append((name, f"{name} {p(name)}: the deck needs exactly one {side} card of that rank, has {found}"))
    score = p("score")
    allies = [c.get("rank") for c in game.cards if c.get("side") == "ally"]
    princes = sum(1 for r in allies if r == p("prince_rank"))
    best = sum(score["per_volunteer"] if r == score["volunteer_rank"] else score["per_recruit"] if r == score["recruit_rank"] else 0
               for r in allies)
    worst = score["per_fallen_prince"] * princes + (score["all_princes_fallen_extra"] if princes else 0)
    lo, hi = min(worst, best), max(worst, best)
    gaps = [n for n in range(lo, hi + 1)
            if not any(e.get("min_score", n) <= n <= e.get("max_score", n) for e in p("endings"))]
    if gaps:
        out.append(("endings", f"no ending covers the score(s) {', '.join(map(str, gaps[:8]))} (scores run {lo}..{hi}); "
                               f"give every score an ending with min_score/max_score"))
    return out


def combat_outcome(game: Game, ally_rank: int, enemy_rank: int) -> str:
    """The source's combat table: sum ≥ win_at_least → win; == mutual_at → mutual; else lose."""
    combat = game.param("combat")
    total = ally_rank + enemy_rank
    if total >= combat["win_at_least"]:
        return WIN
    if total == combat["mutual_at"]:
        return MUTUAL
    return LOSE


def ending_for(game: Game, score: int) -> Mapping[str, Any]:
    """The ending (game.yaml `endings`) whose score band holds `score`."""
    for ending in game.param("endings"):
        if ending.get("min_score", score) <= score <= ending.get("max_score", score):
            return ending
    raise ValueError(f"{game.id}: no ending covers the score {score}; check `endings` in game.yaml")


class Rules(core.Rules):
    engine_id = "requiem"
    PARAMETERS = PARAMETERS
    player_counts = (3,)
    max_actions = 5_000
    cooperative = True
    action_type = Act

    def __init__(self, game: Game, players: int = 3, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        problems = parameter_problems(game)
        if problems:
            name, message = problems[0]
            raise ValueError(f"{game.where(name) or game.where('game.yaml')}: {message}")
        p = game.param
        self.rank: dict[str, int] = {c.id: c.get("rank") for c in game.cards}
        self.suit: dict[str, str] = {c.id: c.get("suit") for c in game.cards}
        self.side: dict[str, str] = {c.id: c.get("side") for c in game.cards}
        self.name: dict[str, str] = {c.id: c.name.en for c in game.cards}
        combat = p("combat")
        self.win_at: int = combat["win_at_least"]
        self.mutual_at: int = combat["mutual_at"]
        self.slots: int = p("enemy_decks")
        line = p("initial_line")
        self.dealt_each: int = line["dealt_each"]
        low, high = line["dealt_from_ranks"]
        allies = [c.id for c in game.cards if c.get("side") == "ally"]
        self.enemies = [c.id for c in game.cards if c.get("side") == "enemy"]
        self.pool = [c for c in allies if low <= self.rank[c] <= high]
        city_low, city_high = p("city_deck_ranks")
        self.city_extra = [c for c in allies if self.rank[c] in (city_low, city_high) and not low <= self.rank[c] <= high]
        self.mages = [c for c in allies if self.rank[c] == p("mage_rank")]
        self.princes = [c for c in allies if self.rank[c] == p("prince_rank")]
        kings = [c for c in allies if self.rank[c] == p("king_rank")]
        sks = [c for c in self.enemies if self.rank[c] == p("slaughter_king_rank")]
        if len(kings) != 1 or len(sks) != 1:
            raise ValueError("requiem engine: the deck needs exactly one King and one Slaughter King")
        self.king, self.slaughter_king = kings[0], sks[0]
        defence = p("all_out_defence")
        self.defence_suit: str = defence["suit"]
        self.defence_falls_at: int = defence["enemy_falls_at_least"]
        self.covenant_suits: tuple[str, ...] = tuple(p("covenant_suits"))
        self.mage_of: dict[str, str] = {}
        for prince in self.princes:
            if self.suit[prince] in self.covenant_suits:
                mage = [m for m in self.mages if self.suit[m] == self.suit[prince]]
                if len(mage) != 1:
                    raise ValueError(f"{game.where('covenant_suits')}: requiem engine: the {self.suit[prince]} prince "
                                     f"keeps a covenant, so the deck needs one mage of his suit (rank {p('mage_rank')}), has {len(mage)}")
                self.mage_of[prince] = mage[0]
        score = p("score")
        self.per_volunteer: int = score["per_volunteer"]
        self.per_recruit: int = score["per_recruit"]
        self.per_fallen: int = score["per_fallen_prince"]
        self.all_fallen: int = score["all_princes_fallen_extra"]
        self.volunteer_rank: int = score["volunteer_rank"]
        self.recruit_rank: int = score["recruit_rank"]
        self.score_ranks = {self.volunteer_rank: self.per_volunteer, self.recruit_rank: self.per_recruit}

    def combat(self, ally_rank: int, enemy_rank: int) -> str:
        return combat_outcome(self.game, ally_rank, enemy_rank)

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> "State":
        """Set up a game. `deck_order` (all 49 card ids) stacks the three setup shuffles: the
        8-10 pool, the enemies (deck k takes the k-th run of 7, first card on top) and the city
        deck each follow the order their cards have in it. Later shuffles (regroup, covenant)
        make the decks unordered again."""
        return State(self, deck_order)

    def from_position(self, data: Mapping[str, Any]) -> "State":
        return _requiem_state(self, data)

    def ending_score(self, scoring_cards: Sequence[str], fallen_princes: int) -> int:
        points = sum(self.score_ranks.get(self.rank[c], 0) for c in scoring_cards)
        points += self.per_fallen * fallen_princes
        if fallen_princes == len(self.princes):
            points += self.all_fallen
        return points

    def max_game_length(self) -> int:
        """Every turn something is used up for good: at least one enemy arrives (the Slaughter
        King falls only in the victory, so a regroup always refills a deck), and each arrival
        is fought (an ally or the enemy dies; a declared defence's prince dies) or draws a city
        card into the damage area. Cards die at most once each (the Slaughter King never), and
        the city gives at most its ally cards once, plus once more per covenant (which shuffles
        the damage back). A turn holds at most one arrival and one damage draw per slot, and for
        each seat one chosen action (a rescue adds its draw), a "none" per phase and a retreat
        per slot; the setup is the princes' choice and the deal."""
        allies = sum(1 for c in self.side if self.side[c] == "ally")
        cards = len(self.game.cards)
        turns = (cards - 1) + allies * (1 + len(self.mage_of))
        phases = 5                      # scouting, retreat, return to the line, sortie, rescue
        per_turn = 2 * self.slots + self.players * (1 + 1 + phases + self.slots)
        return self.players + self.dealt_each * self.players + turns * per_turn

    def action_kinds(self) -> dict[str, tuple[tuple, ...]]:
        cards = tuple(sorted(set(self.rank)))
        allies = tuple(sorted(c for c in set(self.rank) if self.side[c] == "ally"))
        princes = tuple(sorted(set(self.princes)))
        slots = tuple(range(self.slots))
        return {"draw": (cards,), "prince": (princes,), "none": (), "retreat": (allies,),
                "scout": (allies, slots), "rally": (), "sortie": (allies, slots, (None, "declare")),
                "declare": (princes,), "rescue": (), "skip": (tuple(range(self.players)),),
                "auto-retreat": ((self.king,),)}

    def score_range(self) -> tuple[int, int]:
        best = self.ending_score([c for c in self.rank if self.side[c] == "ally"], 0)
        worst = self.ending_score([], len(self.princes))
        return worst, best


class State(core.State):
    def __init__(self, rules: Rules, deck_order: Sequence[str] | None, setup: bool = True) -> None:
        self.rules = rules
        self.history = []
        self.hidden_moves = {}
        n = rules.players
        self.n = n
        slots = rules.slots
        size = len(rules.enemies) // slots
        sizes = [size + (1 if k < len(rules.enemies) - size * slots else 0) for k in range(slots)]
        # Setup: mages retire; princes wait to be chosen; 8-10 shuffled and dealt 2 each.
        self.mage_area = list(rules.mages)
        self.princes = list(rules.princes)
        self.lines: list[list[str]] = [[] for _ in range(n)]
        self.tapped: set[str] = set()
        self.enemy_known: list[list[str]] = [[] for _ in range(slots)]   # stacked tops (top at the end)
        self.enemy_count: list[int] = [0] * slots                         # cards each deck holds from the pool
        if deck_order is not None:
            core.check_deck_order(rules.game, deck_order)
            position = {c: i for i, c in enumerate(deck_order)}

            def order(ids: Sequence[str]) -> list[str]:
                return sorted(ids, key=position.__getitem__)
            self.pool = core.Deck.stacked(order(rules.pool))
            enemies = order(rules.enemies)
            at = 0
            for k in range(slots):
                self.enemy_known[k] = enemies[at:at + sizes[k]][::-1]
                at += sizes[k]
            self.enemy = core.Deck()
            stacked_city = order(rules.city_extra)
            self._city_order = position
        else:
            self.pool = core.Deck(rules.pool)
            self.enemy = core.Deck(rules.enemies)
            self.enemy_count = list(sizes)
            stacked_city = None
            self._city_order = None
        self.city = core.Deck(stacked_city or list(rules.city_extra), ordered=bool(stacked_city))   # filled after the deal
        self.arrival: list[str | None] = [None] * slots
        # history index of each arrival's face-down draw: once the card is shown (scouted, fought
        # or sent to the retreat area) everyone knows that draw, after the turn too
        self.arrival_at: list[int] = [-1] * slots
        self.revealed: set[str] = set()
        self.intercept: list[str | None] = [None] * slots
        self.owner: list[int] = [-1] * slots
        self.enemy_retreat: list[str] = []
        self.enemy_dead: list[str] = []
        self.ally_dead: list[str] = []
        self.damage: list[str] = []
        self.turn = 0
        self.phase = DEAL
        self.current = core.CHANCE
        self.acted = [False] * n
        self.defence = -1            # slot of the medal prince who declared this turn
        self.covenants: dict[str, int] = {}  # covenant princes declared this turn -> their seat
        self.victory = False
        self.loss = ""
        self.dealt = 0               # setup cards dealt so far
        self.arriving = 0            # the enemy deck whose arrival is drawn next
        self.hits = 0                # unblocked enemies still to draw damage for
        self.rescuer = -1
        if not setup:
            return
        if rules.dealt_each * n == 0:
            self._end_deal()

    # --- chance -------------------------------------------------------------------------------

    def _deck(self):
        """The deck the pending chance node draws from (a Deck, or a stacked list)."""
        phase = self.phase
        if phase == ARRIVE:
            k = self.arriving
            return self.enemy_known[k] if self.enemy_known[k] else self.enemy
        if phase == DEAL:
            return self.pool
        return self.city

    def chance_size(self) -> int:
        deck = self._deck()
        return 1 if type(deck) is list else deck.choices()

    def chance_at(self, i: int) -> Act:
        deck = self._deck()
        return Act("draw", (deck[-1] if type(deck) is list else deck.candidate(i),))

    def chance_deck(self) -> core.Deck | None:
        if self.current_player() != core.CHANCE:
            return None
        deck = self._deck()
        return None if type(deck) is list else deck

    def draw_action(self, card: str) -> Act:
        return Act("draw", (card,))

    def _draw(self, card: str) -> None:
        phase = self.phase
        deck = self._deck()
        if type(deck) is list:
            if deck[-1] != card:
                raise core.IllegalAction(f"the next card is known and is not {card}")
            deck.pop()
        else:
            deck.take(card)
        if phase == DEAL:
            seat = self.dealt % self.n
            self.lines[seat].append(card)
            self.dealt += 1
            if self.dealt >= self.rules.dealt_each * self.n:
                self._end_deal()
        elif phase == ARRIVE:
            k = self.arriving
            if deck is self.enemy:
                self.enemy_count[k] -= 1
            self.arrival[k] = card
            self.hidden_moves[len(self.history) - 1] = ()      # arrives face down
            self.arrival_at[k] = len(self.history) - 1
            self._next_arrival(k + 1)
        elif phase == DAMAGE:
            self._take_damage(card)
        else:  # RESCUE_DRAW
            self.lines[self.rescuer].append(card)
            if not self.city:
                self._lose("city-deck-empty")
                return
            self.phase = RESCUE
            self._next_seat(self.rescuer + 1)

    def _end_deal(self) -> None:
        """The rest of the 8-10 pool and the K and 7s make the city deck (shuffled, or stacked)."""
        rest = self.pool.cards()
        self.pool = core.Deck()
        if self._city_order is not None:
            position = self._city_order
            self.city = core.Deck.stacked(sorted(rest + self.city.cards(), key=position.__getitem__))
        else:
            self.city.shuffle_in(rest)
        self.phase = PRINCE
        self.current = 0

    def deck_size(self, k: int) -> int:
        return len(self.enemy_known[k]) + self.enemy_count[k]

    # --- queries ------------------------------------------------------------------------------

    def covenant_available(self) -> bool:
        """A covenant prince is still alive (in a line or the interception area)."""
        dead = self.ally_dead
        return any(p not in dead for p in self.rules.mage_of)

    def open_slots(self) -> list[int]:
        if self.defence >= 0:
            return []
        return [k for k in range(self.rules.slots) if self.arrival[k] is not None and self.intercept[k] is None]

    def engaged(self, seat: int) -> list[str]:
        return [c for k, c in enumerate(self.intercept) if c is not None and self.owner[k] == seat]

    def slot_of(self, card: str) -> int:
        return self.intercept.index(card)

    def fallen_princes(self) -> int:
        princes = self.rules.princes
        return sum(1 for c in self.ally_dead if c in princes)

    def score(self) -> int:
        cards = [c for line in self.lines for c in line] + self.city.cards()
        return self.rules.ending_score(cards, self.fallen_princes())

    # --- the core API -------------------------------------------------------------------------

    def current_player(self) -> int:
        return self.current

    def _legal_actions(self) -> list:
        if self.phase == OVER:
            return []
        out = self._actions(self.current, self.phase)
        out.sort()
        return out

    def _actions(self, seat: int, phase: int) -> list:
        """Unsorted legal actions of `seat` in `phase` ([NONE] alone means: nothing to do)."""
        if phase == PRINCE:
            return [Act("prince", (c,)) for c in self.princes]
        out = [NONE]
        if phase == RETREAT:
            out.extend(Act("retreat", (c,)) for c in self.engaged(seat))
            return out
        if self.acted[seat]:
            return out
        line = self.lines[seat]
        tapped = self.tapped
        if phase == SCOUT:
            hidden = [k for k, c in enumerate(self.arrival) if c is not None and c not in self.revealed]
            if hidden:
                out.extend(Act("scout", (c, k)) for c in line if c not in tapped for k in hidden)
        elif phase == RALLY:
            if any(c in tapped for c in line):
                out.append(RALLY_A)
        elif phase == SORTIE:
            rules = self.rules
            slots = self.open_slots()
            for c in line:
                if c in tapped:
                    continue
                for k in slots:
                    out.append(Act("sortie", (c, k)))
                    if c in rules.princes and self._can_declare(c):
                        out.append(Act("sortie", (c, k, "declare")))
            for k, c in enumerate(self.intercept):
                if c is not None and self.owner[k] == seat and c in rules.princes and self._can_declare(c):
                    out.append(Act("declare", (c,)))
        elif phase == RESCUE:
            if self.city:
                out.append(RESCUE_A)
        return out

    def _has_choice(self, seat: int, phase: str) -> bool:
        """len(self._actions(seat, phase)) > 1, without building the actions (the rules ask
        every seat in every phase, so this is the hot path of skipping)."""
        if phase == PRINCE:
            return bool(self.princes)
        intercept, owner = self.intercept, self.owner
        if phase == RETREAT:
            return any(c is not None and owner[k] == seat for k, c in enumerate(intercept))
        if self.acted[seat]:
            return False
        line = self.lines[seat]
        tapped = self.tapped
        if phase == SCOUT:
            revealed = self.revealed
            return any(c not in tapped for c in line) and any(c is not None and c not in revealed for c in self.arrival)
        if phase == RALLY:
            return any(c in tapped for c in line)
        if phase == SORTIE:
            if self.open_slots() and any(c not in tapped for c in line):
                return True
            princes = self.rules.princes
            return any(c is not None and owner[k] == seat and c in princes and self._can_declare(c)
                       for k, c in enumerate(intercept))
        if phase == RESCUE:
            return bool(self.city)
        return False

    def _can_declare(self, prince: str) -> bool:
        rules = self.rules
        suit = rules.suit[prince]
        if suit == rules.defence_suit:
            return self.defence < 0
        return suit in rules.covenant_suits and prince not in self.covenants

    def _apply(self, action) -> None:
        kind, args = action
        seat = self.current
        phase = self.phase
        if phase in CHANCE_PHASES:
            self._draw(args[0])
            return
        if phase == PRINCE:
            self.princes.remove(args[0])
            self.lines[seat].append(args[0])
            if seat + 1 < self.n:
                self.current = seat + 1
            else:
                self._start_turn()
            return
        if kind == "none":
            self._next_seat(seat + 1)
            return
        if kind == "retreat":
            self._retreat(args[0], seat)
            self._next_seat(seat)          # the same player may retreat another ally
            return
        self.acted[seat] = True
        if kind == "scout":
            self.tapped.add(args[0])
            self.revealed.add(self.arrival[args[1]])
            self.reveal((self.arrival_at[args[1]],))
        elif kind == "rally":
            line = self.lines[seat]
            self.tapped.difference_update(line)
        elif kind == "sortie":
            card, slot = args[0], args[1]
            self.lines[seat].remove(card)
            self.intercept[slot] = card
            self.owner[slot] = seat
            if len(args) == 3:
                self._declare(card, slot, seat)
        elif kind == "declare":
            self._declare(args[0], self.slot_of(args[0]), seat)
        elif kind == "rescue":
            self.rescuer = seat
            self.phase = RESCUE_DRAW
            self.current = core.CHANCE
            return
        self._next_seat(seat + 1)

    def _declare(self, prince: str, slot: int, seat: int) -> None:
        if self.rules.suit[prince] == self.rules.defence_suit:
            self.defence = slot
        else:
            self.covenants[prince] = seat

    def _retreat(self, card: str, seat: int) -> None:
        slot = self.slot_of(card)
        self.intercept[slot] = None
        self.owner[slot] = -1
        self.lines[seat].append(card)
        self.tapped.add(card)

    # --- the turn machine ---------------------------------------------------------------------

    def _start_turn(self) -> None:
        self.turn += 1
        self.acted = [False] * self.n
        self.defence = -1
        self.covenants = {}
        self.revealed = set()
        # 1 arrival: the top card of each enemy deck, face down, into its slot (chance draws).
        self.arrival = [None] * self.rules.slots
        self._next_arrival(0)

    def _next_arrival(self, k: int) -> None:
        slots = self.rules.slots
        while k < slots and not self.deck_size(k):
            k += 1
        if k < slots:
            self.arriving = k
            self.phase = ARRIVE
            self.current = core.CHANCE
            return
        self.phase = SCOUT
        self._next_seat(0)

    def _next_seat(self, seat: int) -> None:
        """Ask `seat` (or the next seat with a choice) in this phase; skip the others (recorded
        as skip:<seat>); run the automatic phases."""
        n = self.n
        phase = self.phase
        history = self.history
        while True:
            while seat < n:
                if self._has_choice(seat, phase):
                    self.current = seat
                    self.phase = phase
                    return
                history.append(_SKIP[seat])
                seat += 1
            # The phase is over for everyone: move on.
            if phase == SCOUT:
                phase = RETREAT
                # 3 the King may not stay in the interception area: he retreats by himself.
                king = self.rules.king
                if king in self.intercept:
                    history.append(Act("auto-retreat", (king,)))
                    self._retreat(king, self.owner[self.slot_of(king)])
            elif phase == RETREAT:
                phase = RALLY
            elif phase == RALLY:
                phase = SORTIE
            elif phase == SORTIE:
                self.phase = phase
                if not self._combat():
                    return
                self._start_damage()
                return
            else:
                self._regroup()
                if self.phase == OVER:
                    return
                self._start_turn()
                return
            self.phase = phase
            seat = 0

    def _combat(self) -> bool:
        """6 combat (with declarations); False when the game ended."""
        rules = self.rules
        rank = rules.rank
        arrival = self.arrival
        intercept = self.intercept
        if self.defence >= 0:
            prince = intercept[self.defence]
            for k in range(rules.slots):
                enemy = arrival[k]
                if enemy is None or (intercept[k] is not None and k != self.defence):
                    continue
                arrival[k] = None
                self.reveal((self.arrival_at[k],))
                if rank[prince] + rank[enemy] >= rules.defence_falls_at:
                    self.enemy_dead.append(enemy)
                else:
                    self.enemy_retreat.append(enemy)
            intercept[self.defence] = None
            self.owner[self.defence] = -1
            self.ally_dead.append(prince)
        for k in range(rules.slots):
            ally, enemy = intercept[k], arrival[k]
            if ally is None or enemy is None:
                continue
            arrival[k] = None
            self.reveal((self.arrival_at[k],))
            outcome = rules.combat(rank[ally], rank[enemy])
            if outcome == WIN:
                self.enemy_dead.append(enemy)
            elif outcome == MUTUAL:
                self.enemy_dead.append(enemy)
                self.ally_dead.append(ally)
                intercept[k] = None
                self.owner[k] = -1
                if ally == rules.king and enemy == rules.slaughter_king:
                    self.victory = True
            else:
                self.ally_dead.append(ally)
                self.enemy_retreat.append(enemy)
                intercept[k] = None
                self.owner[k] = -1
        for prince, owner in self.covenants.items():
            # The prince falls even if he won; if he already fell, his line still gets the mage.
            if prince in intercept:
                k = intercept.index(prince)
                intercept[k] = None
                self.owner[k] = -1
                self.ally_dead.append(prince)
            mage = rules.mage_of[prince]
            self.mage_area.remove(mage)
            self.lines[owner].append(mage)
            # Restore the capital: the damage area goes back into the city deck, shuffled.
            self.city.shuffle_in(self.damage)
            self.damage.clear()
        if self.victory:
            self._finish()
            return False
        if rules.king in self.damage and not self.covenant_available():
            self._lose("king-lost")
            return False
        return True

    def _start_damage(self) -> None:
        """7 damage: each arrival nobody fights draws the top city card into the damage area."""
        self.hits = sum(1 for enemy in self.arrival if enemy is not None)
        self._next_damage()

    def _next_damage(self) -> None:
        if self.hits:
            self.phase = DAMAGE
            self.current = core.CHANCE
            return
        for k, enemy in enumerate(self.arrival):
            if enemy is not None:
                self.enemy_retreat.append(enemy)
                self.arrival[k] = None
                self.reveal((self.arrival_at[k],))
        self.phase = RESCUE
        self._next_seat(0)

    def _take_damage(self, card: str) -> None:
        self.hits -= 1
        self.damage.append(card)
        if not self.city:
            self._lose("city-deck-empty")
            return
        if card == self.rules.king and not self.covenant_available():
            self._lose("king-lost")
            return
        self._next_damage()

    def _regroup(self) -> None:
        """9 regroup: when any enemy deck is empty, shuffle decks and retreat area into new
        decks (one unordered pool; the decks' sizes follow a round-robin deal)."""
        slots = self.rules.slots
        if all(self.deck_size(k) for k in range(slots)):
            return
        for k in range(slots):
            self.enemy.shuffle_in(self.enemy_known[k])
            self.enemy_known[k] = []
        self.enemy.shuffle_in(self.enemy_retreat)
        self.enemy_retreat = []
        total = len(self.enemy)
        self.enemy_count = [len(range(k, total, slots)) for k in range(slots)]

    def _lose(self, reason: str) -> None:
        self.loss = reason
        self._finish()

    def _finish(self) -> None:
        self.phase = OVER
        self.current = TERMINAL

    # --- results and views --------------------------------------------------------------------

    def result(self) -> GameResult:
        if self.phase != OVER or self.current != TERMINAL:
            raise core.IllegalAction("the game is not over")
        score = self.score()
        details = {"turns": self.turn, "fallen_princes": self.fallen_princes()}
        if self.victory:
            ending = ending_for(self.rules.game, score)["id"]
            return GameResult((score,) * self.n, tuple(range(self.n)), len(self.history), decisions=core.count_decisions(self.history), success=True,
                              ending=ending, details=details)
        return GameResult((score,) * self.n, (), len(self.history), decisions=core.count_decisions(self.history), success=False,
                          ending=f"defeat:{self.loss}", details=details)

    def zones(self) -> Mapping[str, list[str]]:
        out: dict[str, list[str]] = {
            "mage_area": self.mage_area, "princes": self.princes, "city": self.city.cards(),
            "setup_pool": self.pool.cards(), "enemy_pool": self.enemy.cards(),
            "arrival": [c for c in self.arrival if c is not None],
            "interception": [c for c in self.intercept if c is not None],
            "enemy_retreat": self.enemy_retreat, "enemy_dead": self.enemy_dead,
            "ally_dead": self.ally_dead, "damage": self.damage,
        }
        for k, deck in enumerate(self.enemy_known):
            out[f"enemy_deck_{k}"] = deck[::-1]
        for s in range(self.n):
            out[f"line_{s}"] = self.lines[s]
        return out

    def card_label(self, card: str) -> str:
        return f"{self.rules.name[card]} ({self.rules.rank[card]}, {self.rules.suit[card]}) {card}"

    def describe(self, action) -> str:
        try:
            kind, args = self.rules.decode_action(action)
            if kind == "prince":
                return f"take the {self.rules.suit[args[0]]} prince {args[0]}"
            if kind == "scout":
                return f"scout: tap {self.card_label(args[0])}, reveal the arrival in slot {args[1] + 1}"
            if kind == "retreat":
                return f"temporary retreat of {self.card_label(args[0])}"
            if kind == "sortie":
                text = f"sortie {self.card_label(args[0])} to slot {args[1] + 1}"
                return text + " and declare" if len(args) == 3 else text
            if kind == "declare":
                return f"declare with {self.card_label(args[0])}"
            if kind == "draw":
                return f"draw {self.card_label(args[0])}"
            if kind in ("none", "rally", "rescue"):
                return {"none": "no action", "rally": "return to the line (untap all)", "rescue": "rescue (take the top city card)"}[kind]
        except (KeyError, IndexError, TypeError, ValueError):
            pass
        return str(action)

    def to_act(self) -> int | None:
        return self.current + 1 if self.current >= 0 else None

    def public_view(self) -> dict[str, Any]:
        """Everything is public in this co-operative game except the order of the decks and the
        arrivals nobody has scouted (seats numbered from 1)."""
        return {
            "turn": self.turn,
            "lines": [list(line) for line in self.lines],
            "tapped": sorted(c for line in self.lines for c in line if c in self.tapped),
            "acted": [s + 1 for s in range(self.n) if self.acted[s]],
            "princes_to_choose": list(self.princes),
            "arrival": [None if c is None else (c if c in self.revealed else "face-down") for c in self.arrival],
            "interception": [None if c is None else {"card": c, "seat": self.owner[k] + 1} for k, c in enumerate(self.intercept)],
            "defence_declared": self.defence + 1 if self.defence >= 0 else None,
            "covenants": {p: s + 1 for p, s in self.covenants.items()},
            "city_deck": len(self.city), "damage": list(self.damage),
            "enemy_decks": [self.deck_size(k) for k in range(self.rules.slots)],
            "enemy_retreat": list(self.enemy_retreat),
            "enemy_dead": list(self.enemy_dead), "ally_dead": list(self.ally_dead),
            "mage_area": list(self.mage_area), "score_now": self.score(),
            "outcome": ("victory" if self.victory else (f"defeat: {self.loss}" if self.loss else None)),
        }


# --- bots -----------------------------------------------------------------------------------

class _Seen:
    """What every seat knows, read from an Observation (the greedy bot's working view)."""

    def __init__(self, obs: core.Observation, rules: Rules) -> None:
        pub = obs.public
        self.phase = obs.phase
        self.current = obs.seat
        self.lines = pub["lines"]
        self.n = len(self.lines)
        self.tapped = set(pub["tapped"])
        acted = set(pub["acted"])
        self.acted = [s + 1 in acted for s in range(self.n)]
        self.arrival = pub["arrival"]
        self.revealed = {c for c in self.arrival if c is not None and c != "face-down"}
        self.intercept = [None if x is None else x["card"] for x in pub["interception"]]
        self.damage = pub["damage"]
        self.enemy_dead = pub["enemy_dead"]
        seen = {c for line in self.lines for c in line} | set(self.damage) | set(pub["ally_dead"]) \
            | set(pub["mage_area"]) | set(pub["princes_to_choose"]) | {c for c in self.intercept if c}
        city = [c for c in rules.rank if rules.side[c] == "ally" and c not in seen]
        self.city = city if len(city) == pub["city_deck"] else [None] * pub["city_deck"]

    def slot_of(self, card: str) -> int:
        return self.intercept.index(card)


class GreedyPolicy:
    """A sensible co-operative heuristic for every seat: rescue while the King is in the city,
    send the King at the Slaughter King (scouting for him) or at any arrival, win fights with
    the smallest ally that wins, pull back allies facing a revealed enemy they would lose to,
    keep a covenant for when the King lands in the damage area, and declare the all-out
    defence when the city would otherwise fall."""

    name = "greedy"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    def choose(self, obs: core.Observation, legal: list, rng: random.Random):
        if len(legal) == 1:
            return legal[0]
        state = _Seen(obs, self.rules)
        phase = state.phase
        if phase == PRINCE:
            return legal[0]
        seat = state.current
        rules = self.rules
        king = rules.king
        king_seat = next((s for s in range(state.n) if king in state.lines[s]), -1)
        king_ready = king_seat >= 0 and king not in state.tapped and not state.acted[king_seat]
        revealed = state.revealed
        sk_slot = next((k for k, c in enumerate(state.arrival) if c == rules.slaughter_king and c in revealed), -1)
        if phase == SCOUT:
            if king_ready and seat != king_seat and sk_slot < 0:
                scouts = [a for a in legal if a[0] == "scout"]
                return min(scouts, key=lambda a: (self._keep_value(a.args[0]), a))
            return NONE
        if phase == RETREAT:
            for a in legal:
                if a[0] != "retreat":
                    continue
                k = state.slot_of(a.args[0])
                enemy = state.arrival[k]
                if enemy is None or enemy not in revealed:
                    continue
                if k == sk_slot and king_ready and a.args[0] != king:
                    return a
                outcome = rules.combat(rules.rank[a.args[0]], rules.rank[enemy])
                if outcome == LOSE or (outcome == MUTUAL and rules.rank[a.args[0]] > rules.recruit_rank):
                    return a
            return NONE
        if phase == RALLY:
            line = state.lines[seat]
            if king in line and king in state.tapped:
                return RALLY_A
            if not any(c not in state.tapped for c in line):
                return RALLY_A
            return NONE
        if phase == SORTIE:
            return self._sortie(state, seat, legal, sk_slot)
        if phase == RESCUE:
            if len(state.city) > rules.slots + 1 and (king in state.city or len(state.city) > 2 * rules.slots + 2):
                return RESCUE_A
            return NONE
        return legal[0]

    def _keep_value(self, card: str) -> int:
        rules = self.rules
        if card == rules.king:
            return 100
        if card in rules.princes:
            return 50
        return rules.rank[card]

    def _sortie(self, state: _Seen, seat: int, legal: list, sk_slot: int):
        rules = self.rules
        rank = rules.rank
        king = rules.king
        sorties = [a for a in legal if a[0] == "sortie" and len(a.args) == 2]
        king_moves = [a for a in sorties if a.args[0] == king]
        if king_moves:
            hidden = [a for a in king_moves if state.arrival[a.args[1]] not in state.revealed]
            for a in king_moves:
                if a.args[1] == sk_slot:
                    return a
            return (hidden or king_moves)[0]
        # Declarations.
        declares = [a for a in legal if a[0] == "declare" or len(a.args) == 3]
        for a in declares:
            suit = rules.suit[a.args[0]]
            if suit in rules.covenant_suits:
                if king in state.damage or (len(state.damage) >= 2 * rules.slots and len(state.city) <= rules.slots):
                    return a
            elif suit == rules.defence_suit:
                threats = sum(1 for k in range(rules.slots) if state.arrival[k] is not None and state.intercept[k] is None)
                if threats >= len(state.city) and threats > 0:
                    return a
        # Fights: the weakest ally that wins against a revealed enemy.
        fighters = [a for a in sorties if a.args[0] not in rules.princes]
        best = None
        for a in fighters:
            enemy = state.arrival[a.args[1]]
            if enemy in state.revealed and rules.combat(rank[a.args[0]], rank[enemy]) == WIN:
                if best is None or rank[a.args[0]] < rank[best.args[0]]:
                    best = a
        if best:
            return best
        # Against a face-down arrival: the strongest ally if it wins more often than not.
        unknown = [c for c in rules.enemies if c not in state.enemy_dead and c not in state.revealed]
        if unknown:
            for a in sorted(fighters, key=lambda a: -rank[a.args[0]]):
                if state.arrival[a.args[1]] in state.revealed:
                    continue
                wins = sum(1 for e in unknown if rules.combat(rank[a.args[0]], rank[e]) == WIN)
                if 2 * wins > len(unknown):
                    return a
        # A desperate block when the city is about to fall.
        if len(state.city) <= rules.slots and fighters:
            return min(fighters, key=lambda a: (rank[a.args[0]], a))
        return NONE


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- checks ---------------------------------------------------------------------------------

def _ranks(game: Game, low: int, high: int, side: str = "ally") -> list[str]:
    return [c.id for c in game.cards if c.get("side") == side and low <= c.get("rank") <= high]


def setup_checks(game: Game) -> list[CheckResult]:
    """The opening deal needs the ranks-8–10 allies; what is left plus K and 7s is the city deck."""
    line = game.param("initial_line")
    low, high = line["dealt_from_ranks"]
    pool = _ranks(game, low, high)
    dealt = line["dealt_each"] * game.max_players
    princes = [c for c in game.cards if c.get("rank") == game.param("prince_rank")]
    city_low, city_high = game.param("city_deck_ranks")
    city_extra = [c.id for c in game.cards if c.get("side") == "ally" and c.get("rank") in (city_low, city_high) and not low <= c.get("rank") <= high]
    city = len(pool) - dealt + len(city_extra)
    enemies = [c for c in game.cards if c.get("side") == "enemy"]
    here = game.where
    decks = game.param("enemy_decks")
    results = [
        CheckResult("setup-princes", len(princes) == game.max_players,
                    f"{len(princes)} princes for {game.max_players} players", here("prince_rank")),
        CheckResult("setup-initial-deal", len(pool) == game.param("initial_pool_cards") and dealt <= len(pool),
                    f"ranks {low}–{high}: {len(pool)} cards, {dealt} dealt ({line['dealt_each']} each)", here("initial_line")),
        CheckResult("setup-city-deck", city == game.param("city_deck_cards"),
                    f"city deck: {len(pool) - dealt} left of ranks {low}–{high} + {len(city_extra)} (K and 7s) = {city} cards",
                    here("city_deck_cards")),
        CheckResult("setup-enemy-decks", len(enemies) % decks == 0,
                    f"{len(enemies)} enemies in {decks} decks of {len(enemies) // decks}", here("enemy_decks")),
    ]
    for name, message in parameter_problems(game):
        results.append(CheckResult(f"parameter-{name}", False, message, here(name) or here("game.yaml")))
    return results


def claim_checks(game: Game) -> list[CheckResult]:
    """Check each claim of game.yaml `claims` against the engine's own combat and score rules."""
    out = []
    try:
        rules = Rules(game, game.max_players)
    except ValueError as exc:
        return [CheckResult("claims", False, f"the claims cannot be checked: {exc}", game.where("game.yaml"))]
    enemy_ranks = sorted({c.get("rank") for c in game.cards if c.get("side") == "enemy"})
    for claim in game.claims:
        try:
            out.append(_claim_check(game, rules, claim, enemy_ranks))
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            cid = claim.get("id", "?") if isinstance(claim, dict) else "?"
            out.append(CheckResult(f"claim-{cid}", False, f"claim '{cid}' is incomplete or mistyped ({type(exc).__name__}: {exc}); "
                                   "give it the keys its kind needs (see the bundled requiem game)", game.where("game.yaml")))
    return out


def _claim_check(game: Game, rules: Rules, claim: Any, enemy_ranks: list[int]) -> CheckResult:
    """One claim of game.yaml `claims`; KeyError/TypeError when it lacks a key its kind needs."""
    at = game.where("game.yaml")
    cid = claim.get("id", "?")
    kind = claim.get("kind")
    text = claim.get("text", {}).get("en", "")
    if kind == "combat":
        ally, enemy = claim["ally_rank"], claim["enemy_rank"]
        got = rules.combat(ally, enemy)
        return CheckResult(f"claim-{cid}", got == claim["expect"],
                           f"{text}: {ally} + {enemy} = {ally + enemy} → {got} (expected {claim['expect']})", at)
    if kind == "combat_never":
        bad = [e for e in enemy_ranks if rules.combat(claim["ally_rank"], e) == claim["expect_not"]]
        return CheckResult(f"claim-{cid}", not bad,
                           f"{text}: rank {claim['ally_rank']} against enemy ranks {enemy_ranks[0]}–{enemy_ranks[-1]}: "
                           + ("never " + claim["expect_not"] if not bad else f"{claim['expect_not']} against {bad}"), at)
    if kind == "score_range":
        low, high = rules.score_range()
        ok = (low, high) == (claim["min"], claim["max"])
        return CheckResult(f"claim-{cid}", ok, f"{text}: the engine's scoring gives {low}..{high} (claimed {claim['min']}..{claim['max']})", at)
    return CheckResult(f"claim-{cid}", False, f"unknown claim kind {kind!r}; the requiem engine checks combat, combat_never and score_range", at)


# --- positions (cardgen.engine.position reads the file; this builds the state) ---

def _requiem_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    """A position of this game (see cardgen.engine.position): phase
    prince|scout|retreat|rally|sortie|rescue (to_act optional: the first seat with a choice is
    asked, as the rules do); zones lines {seat: [...]}, tapped, arrival [per slot], revealed,
    interception {slot: [seat, card]}, mage_area, princes, damage, enemy_retreat, enemy_dead,
    ally_dead; decks city, enemy_decks [per slot, top first]; counters turn, acted [seats], defence
    (slot), covenants {prince: seat}. Unplaced allies go to the city deck, unplaced enemies into the
    enemy decks (shuffled, dealt round-robin)."""
    phases = {"scout": SCOUT, "retreat": RETREAT, "rally": RALLY, "sortie": SORTIE, "rescue": RESCUE, "prince": PRINCE}
    b = PositionBuilder(rules, data, ["scout", "retreat", "rally", "sortie", "rescue", "prince"],
                 zones={"lines", "tapped", "arrival", "revealed", "interception", "mage_area", "princes", "damage",
                        "enemy_retreat", "enemy_dead", "ally_dead"},
                 decks={"city", "enemy_decks"},
                 counters={"turn", "acted", "defence", "covenants"})
    n = rules.players
    slots = rules.slots
    s = State(rules, None, setup=False)
    s.pool = core.Deck()
    s.enemy = core.Deck()
    s.enemy_count = [0] * slots
    s.mage_area = []
    s.princes = []
    for seat, cards in b.per_seat(("zones", "lines"), b.get("zones", "lines"), n).items():
        s.lines[seat] = b.cards(("zones", "lines", seat + 1), cards)
    arrival = b.get("zones", "arrival")
    if arrival is not None:
        if not isinstance(arrival, list) or len(arrival) != slots:
            raise PositionError(("zones", "arrival"), f"must list {slots} slots (an enemy card or null each)")
        s.arrival = [b.cards(("zones", "arrival", k), c)[0] if c is not None else None for k, c in enumerate(arrival)]
    inter = b.get("zones", "interception") or {}
    if not isinstance(inter, Mapping):
        raise PositionError(("zones", "interception"), "must map a slot (from 1) to [seat, card]")
    for k, entry in inter.items():
        slot = b.number(("zones", "interception", k), int_key(k), 1, slots) - 1
        if not isinstance(entry, list) or len(entry) != 2:
            raise PositionError(("zones", "interception", k), "must be [seat, card]")
        s.owner[slot] = b.seat(("zones", "interception", k, 0), entry[0])
        s.intercept[slot] = b.cards(("zones", "interception", k, 1), [entry[1]])[0]
    for name, attr in (("mage_area", "mage_area"), ("princes", "princes"), ("damage", "damage"),
                       ("enemy_retreat", "enemy_retreat"), ("enemy_dead", "enemy_dead"), ("ally_dead", "ally_dead")):
        setattr(s, attr, b.cards(("zones", name), b.get("zones", name)))
    in_lines = {c for line in s.lines for c in line}
    s.tapped = set(b.cards(("zones", "tapped"), b.get("zones", "tapped"), place=False))
    for c in s.tapped:
        if c not in in_lines:
            raise PositionError(("zones", "tapped"), f"{c} is not in a line")
    s.revealed = set(b.cards(("zones", "revealed"), b.get("zones", "revealed"), place=False))
    for c in s.revealed:
        if c not in s.arrival:
            raise PositionError(("zones", "revealed"), f"{c} is not an arrival")
    city_top, city_rest = b.deck(("decks", "city"), b.get("decks", "city"))
    decks = b.get("decks", "enemy_decks")
    if decks is not None:
        if not isinstance(decks, list) or len(decks) != slots:
            raise PositionError(("decks", "enemy_decks"), f"must list {slots} decks (top first)")
        for k, d in enumerate(decks):
            s.enemy_known[k] = b.cards(("decks", "enemy_decks", k), d)[::-1]
    rest = b.unplaced()
    if b.phase == "prince" and not b.has("zones", "princes"):
        s.princes = [c for c in rules.princes if c in rest]
    if not b.has("zones", "mage_area"):
        s.mage_area = [c for c in rules.mages if c in rest and c not in s.princes]
    taken = set(s.princes) | set(s.mage_area)
    enemies = [c for c in rest if rules.side[c] == "enemy"]
    s.city = position_deck(city_top, city_rest + [c for c in rest if rules.side[c] != "enemy" and c not in taken])
    s.enemy = core.Deck(enemies)
    s.enemy_count = [len(range(k, len(enemies), slots)) for k in range(slots)]
    s.turn = b.number(("counters", "turn"), b.get("counters", "turn", 1), 0)
    for p in b.seats(("counters", "acted"), b.get("counters", "acted")):
        s.acted[p] = True
    if b.has("counters", "defence"):
        s.defence = b.number(("counters", "defence"), b.get("counters", "defence"), 1, slots) - 1
    cov = b.get("counters", "covenants") or {}
    s.covenants = {c: b.seat(("counters", "covenants", c), v) for c, v in cov.items()}
    phase = phases[b.phase]
    s.phase = phase
    if phase == PRINCE:
        s.current = b.to_act if b.to_act is not None else 0
    elif b.to_act is not None:
        s.current = b.to_act
        if len(s._actions(b.to_act, phase)) <= 1 and phase != RETREAT:
            raise PositionError(("to_act",), f"seat {b.to_act + 1} has no choice in phase {phase}")
    else:
        s._next_seat(0)
    s.history = []
    return checked_state(s)


# What cardgen reads off the Rules class that the entry point names (see cardgen.registry).
Rules.POLICIES = POLICIES
Rules.setup_checks = staticmethod(setup_checks)
Rules.claim_checks = staticmethod(claim_checks)
