"""Love Letter to Lady Luck: the full rules as a state machine, its setup checks and bots.

A round is an auction phase (each player wins exactly one castle card) followed by an ally
phase (players take turns using one untapped ally's ability, or pass). Rule numbers come from
game.yaml `parameters`; the decisions where the source is silent are in game.yaml `decisions`.

Actions (all tuples, so that they sort and dump to YAML as short lists):

- ("pick", slot)          the parent picks castle slot `slot` (0-based) for the auction
- ("bid", n)              open the auction with n AP, or outbid the current bid with n AP
- ("pass",)               leave the current auction, or pass in the ally phase
- ("ally",) / ("score",)  the winner keeps the card face up as an ally or face down as score
- ("use", card)           use an ally's ability (no target, or a "may" ability left unused)
- ("use", card, target)   ... with a target: a seat (Noble) or a card id (General, Magician, Knight)
- ("reveal", card)        the player chosen by a Noble turns this score card face up

Moves that leave no choice are made automatically: the last player of an auction phase takes
the last card for 0, a bidder who cannot outbid passes, and a player with no untapped ally
passes in the ally phase.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from ..checks import CheckResult
from ..io import limits
from ..io.schema import Dict, Int, Map, Str
from ..model import Game
from . import core
from .bots import RandomPolicy
from .core import TERMINAL, GameResult

ABILITIES = ("princess", "noble", "general", "magician", "priest", "knight", "fortune_teller", "maid")

# Every rule parameter this module reads; the loader refuses game.yaml at the line of any
# parameter that is missing, mistyped or out of range, so the engine never sees one.
PARAMETERS = Map({
    "starting_action_points": Int(0, 1000),
    "rounds": Int(1, 50),
    "action_point_divisor": Int(1, 1000),
    "set_aside_unseen": Dict(Int(1, limits.MAX_PLAYERS), Int(0, limits.MAX_CARDS), max_items=limits.MAX_PLAYERS),
    "castle_face_down": Int(0, limits.MAX_PLAYERS),
    "princess_uses_to_win": Int(1, 100),
    "ability_action_points": Dict(Str(ABILITIES), Int(0, 100), max_items=len(ABILITIES)),
})

PICK, BID, RAISE, TAKE, ALLY, NOBLE, OVER = range(7)
PHASE_NAMES = {PICK: "auction: pick", BID: "auction: opening bid", RAISE: "auction: bidding",
               TAKE: "auction: ally or score", ALLY: "ally phase", NOBLE: "ally phase: noble's choice", OVER: "game over"}

PASS = ("pass",)
ALLY_A = ("ally",)
SCORE_A = ("score",)
_BIDS: list[tuple[str, int]] = [("bid", n) for n in range(64)]
_PICKS = [("pick", s) for s in range(16)]


def _bids(low: int, high: int) -> list[tuple[str, int]]:
    while high >= len(_BIDS):
        _BIDS.append(("bid", len(_BIDS)))
    return _BIDS[low:high + 1]


class Rules(core.Rules):
    engine_id = "llll"
    max_actions = 5_000

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        self.start_ap: int = game.param("starting_action_points")
        self.rounds: int = game.param("rounds")
        self.divisor: int = game.param("action_point_divisor")
        self.set_aside: int = game.param("set_aside_unseen").get(players, 0)
        self.face_down: int = game.param("castle_face_down")
        self.princess_wins_at: int = game.param("princess_uses_to_win")
        gains = game.param("ability_action_points")
        self.ability: dict[str, str] = {}
        self.vp: dict[str, int] = {}
        self.name: dict[str, str] = {}
        for card in game.cards:
            if card.type_id not in ABILITIES:
                raise ValueError(f"{card.location}: llll engine: card type {card.type_id!r} has no ability in the engine ({', '.join(ABILITIES)})")
            self.ability[card.id] = card.type_id
            self.vp[card.id] = card.get("vp")
            self.name[card.id] = card.name.en
        self.use_action: dict[str, tuple[str, str]] = {cid: ("use", cid) for cid in self.ability}
        self.noble_actions = {cid: [("use", cid, t) for t in range(players)] for cid in self.ability}
        self.gain: dict[str, int] = {cid: gains.get(ab, 0) for cid, ab in self.ability.items()}
        self.card_ids = [card.id for card in game.cards]
        needed = self.rounds * players + self.set_aside
        if needed != len(self.card_ids):
            raise ValueError(f"{game.where('rounds')}: llll engine: {self.rounds} rounds × {players} players + {self.set_aside} set aside = {needed}, but the deck has {len(self.card_ids)} cards")

    def new_state(self, rng: random.Random, deck_order: Sequence[str] | None = None) -> "State":
        """Set up a game; `deck_order` (all card ids, top first) replaces the shuffle: with three
        players the first 8 are set aside, then each castle row is dealt from the top."""
        if deck_order is not None:
            deck = core.check_deck_order(self.game, deck_order)
        else:
            deck = core.shuffled(rng, self.card_ids)
        return State(self, rng, deck)

    def score_range(self) -> tuple[int, int]:
        best_vp = sum(sorted(self.vp.values(), reverse=True)[:self.rounds])
        # An ally phase never raises the number of untapped allies, so each ally is used at most
        # (cards in play) times a round: a generous but finite AP bound.
        max_gain = max(self.gain.values(), default=0)
        max_ap = self.start_ap + self.rounds * self.rounds * self.players * max_gain
        return 0, best_vp + max_ap // self.divisor


class State(core.State):
    def __init__(self, rules: Rules, rng: random.Random, deck_top_first: list[str]) -> None:
        n = rules.players
        self.rules = rules
        self.rng = rng
        self.history = []
        self.n = n
        self.deck = deck_top_first[::-1]            # top of the deck is the end of the list
        self.aside = [self.deck.pop() for _ in range(rules.set_aside)]
        self.castle: list[str | None] = [None] * n
        self.hidden: list[bool] = [False] * n
        self.ap = [rules.start_ap] * n
        self.allies: list[list[str]] = [[] for _ in range(n)]
        self.scores: list[list[str]] = [[] for _ in range(n)]
        self.tapped: set[str] = set()
        self.peeked: list[set[str]] = [set() for _ in range(n)]   # face-down cards each seat has seen
        self.secret: set[str] = set()     # score cards only their owner has seen (the face-down castle card)
        self.round = 1
        self.phase = PICK
        self.current = 0
        self.won = [False] * n
        self.slot = -1
        self.high_bid = 0
        self.high_bidder = -1
        self.in_auction = [False] * n
        self.last_winner = 0
        self.passed = [False] * n
        self.first_passer = -1
        self.princess_uses: dict[str, int] = {}
        self.noble_user = -1
        self.princess_winner = -1
        self._deal_castle()
        # The parent of the first round is decided by the players ("rock-paper-scissors");
        # seat 0 is the first parent, so seat numbers follow the playing order.
        self._start_auction(0)

    # --- the state machine ------------------------------------------------------------------

    def _deal_castle(self) -> None:
        n = self.n
        if len(self.deck) < n:
            return
        deck = self.deck
        self.castle = [deck.pop() for _ in range(n)]
        k = self.rules.face_down
        self.hidden = [i >= n - k for i in range(n)]   # the last k cards dealt stay face down

    def _start_auction(self, parent: int) -> None:
        n = self.n
        won = self.won
        while won[parent]:
            parent = (parent + 1) % n
        self.current = parent
        if won.count(False) == 1:
            # The last player is alone in the auction and takes the last card for 0.
            self.slot = next(i for i, c in enumerate(self.castle) if c is not None)
            self.high_bid = 0
            self.high_bidder = parent
            self.phase = TAKE
        else:
            self.phase = PICK

    def _next_bidder(self) -> None:
        """Move to the next player still in the auction who can outbid; resolve when none."""
        n = self.n
        seat = self.current
        in_auction = self.in_auction
        ap = self.ap
        high = self.high_bid
        for _ in range(n):
            seat = (seat + 1) % n
            if seat == self.high_bidder:
                break
            if in_auction[seat]:
                if ap[seat] > high:
                    self.current = seat
                    self.phase = RAISE
                    return
                in_auction[seat] = False          # cannot outbid: passes
        # Everyone else passed: the bidder pays and takes the card.
        self.ap[self.high_bidder] -= high
        self.current = self.high_bidder
        self.phase = TAKE

    def _start_ally_phase(self) -> None:
        if self.round < self.rules.rounds:
            self._deal_castle()
        else:
            self.castle = [None] * self.n
            self.hidden = [False] * self.n
        self.passed = [False] * self.n
        self.first_passer = -1
        self.princess_uses = {}
        self.current = self.last_winner
        self.phase = ALLY
        self._settle_ally_turn()

    def _settle_ally_turn(self) -> None:
        """From self.current, find the next player who has not passed; auto-pass those who
        cannot act; end the round when everyone has passed."""
        n = self.n
        passed = self.passed
        tapped = self.tapped
        seat = self.current
        for _ in range(n + 1):
            if not passed[seat]:
                for card in self.allies[seat]:
                    if card not in tapped:
                        self.current = seat
                        return
                self._pass(seat)
            seat = (seat + 1) % n
        self._end_round()

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True
        self.tapped.update(self.allies[seat])
        if self.first_passer < 0:
            self.first_passer = seat

    def _end_round(self) -> None:
        self.tapped.clear()
        self.princess_uses = {}
        if self.round >= self.rules.rounds:
            self.phase = OVER
            self.current = TERMINAL
            return
        self.round += 1
        self.won = [False] * self.n
        self._start_auction(self.first_passer)

    # --- the core API -------------------------------------------------------------------------

    def current_player(self) -> int:
        return self.current

    def legal_actions(self) -> list:
        phase = self.phase
        if phase == RAISE:
            out = _bids(self.high_bid + 1, self.ap[self.current])
            out.append(PASS)
            return out
        if phase == ALLY:
            return self._ally_actions(self.current)
        if phase == TAKE:
            return [ALLY_A, SCORE_A]
        if phase == PICK:
            return [_PICKS[i] for i, c in enumerate(self.castle) if c is not None]
        if phase == BID:
            return _bids(0, self.ap[self.current])
        if phase == NOBLE:
            return [("reveal", c) for c in sorted(self.scores[self.current])]
        return []

    def _ally_actions(self, seat: int) -> list:
        rules = self.rules
        tapped = self.tapped
        out: list = [PASS]
        simple = rules.use_action
        for card in self.allies[seat]:
            if card in tapped:
                continue
            ability = rules.ability[card]
            if ability == "noble":
                out.extend(rules.noble_actions[card])
                continue
            out.append(simple[card])
            if ability == "general":
                out.extend(("use", card, t) for allies in self.allies for t in allies if t in tapped)
            elif ability == "magician":
                out.extend(("use", card, t) for t in self.allies[seat] if t != card)
            elif ability == "knight":
                out.extend(("use", card, t) for allies in self.allies for t in allies if t not in tapped and t != card)
        if len(out) > 2:
            out.sort()
        return out

    def _apply(self, action) -> None:
        phase = self.phase
        kind = action[0]
        seat = self.current
        if phase == RAISE:
            if kind == "pass":
                self.in_auction[seat] = False
            else:
                self.high_bid = action[1]
                self.high_bidder = seat
            self._next_bidder()
        elif phase == ALLY:
            if kind == "pass":
                self._pass(seat)
                self.current = (seat + 1) % self.n
                self._settle_ally_turn()
            else:
                self._use(seat, action)
        elif phase == TAKE:
            card = self.castle[self.slot]
            self.castle[self.slot] = None
            if kind == "ally":
                self.allies[seat].append(card)
            else:
                self.scores[seat].append(card)
            if self.hidden[self.slot]:
                self.hidden[self.slot] = False
                self.peeked[seat].add(card)
                if kind == "score":
                    self.secret.add(card)
            self.won[seat] = True
            self.last_winner = seat
            if self.castle.count(None) != self.n:
                self._start_auction((seat + 1) % self.n)
            else:
                self._start_ally_phase()
        elif phase == PICK:
            self.slot = action[1]
            self.phase = BID
        elif phase == BID:
            self.high_bid = action[1]
            self.high_bidder = seat
            self.in_auction = [not w for w in self.won]   # the parent stays in: others may outbid him
            self._next_bidder()
        elif phase == NOBLE:
            card = action[1]
            self.scores[seat].remove(card)
            self.allies[seat].append(card)   # face up and untapped
            self.secret.discard(card)
            self.current = (self.noble_user + 1) % self.n
            self.phase = ALLY
            self._settle_ally_turn()
        else:
            raise core.IllegalAction("the game is over")

    def _use(self, seat: int, action) -> None:
        rules = self.rules
        card = action[1]
        ability = rules.ability[card]
        tapped = self.tapped
        tapped.add(card)      # the card is tapped as it is used; no ability can target itself
        if ability == "priest" or ability == "maid":
            self.ap[seat] += rules.gain[card]
        elif ability == "princess":
            uses = self.princess_uses.get(card, 0) + 1
            self.princess_uses[card] = uses
            if uses >= rules.princess_wins_at:
                self.princess_winner = seat
                self.phase = OVER
                self.current = TERMINAL
                return
        elif len(action) == 3:
            target = action[2]
            if ability == "general":
                tapped.discard(target)
            elif ability == "knight":
                tapped.add(target)
            elif ability == "magician":
                self.allies[seat].remove(target)
                tapped.discard(target)
                self.scores[seat].append(target)
            elif ability == "noble":
                choices = self.scores[target]
                if len(choices) > 1:
                    self.noble_user = seat
                    self.current = target
                    self.phase = NOBLE
                    return
                if choices:
                    card = choices.pop()
                    self.allies[target].append(card)
                    self.secret.discard(card)
        elif ability == "fortune_teller":
            for i, hidden in enumerate(self.hidden):
                if hidden and self.castle[i] is not None:
                    self.peeked[seat].add(self.castle[i])
        self.current = (seat + 1) % self.n
        self._settle_ally_turn()

    # --- results and views --------------------------------------------------------------------

    def points(self, seat: int) -> int:
        vp = self.rules.vp
        return sum(vp[c] for c in self.scores[seat]) + self.ap[seat] // self.rules.divisor

    def result(self) -> GameResult:
        if self.phase != OVER:
            raise core.IllegalAction("the game is not over")
        n = self.n
        vp = self.rules.vp
        scores = tuple(self.points(s) for s in range(n))
        if self.princess_winner >= 0:
            return GameResult(scores, (self.princess_winner,), len(self.history), ending="princess",
                              details={"round": self.round})
        keys = [(scores[s], max((vp[c] for c in self.scores[s]), default=0), len(self.scores[s])) for s in range(n)]
        best = max(keys)
        winners = tuple(s for s in range(n) if keys[s] == best)
        return GameResult(scores, winners, len(self.history), ending="points", details={"round": self.round})

    def zones(self) -> Mapping[str, list[str]]:
        out: dict[str, list[str]] = {"deck": self.deck, "set_aside": self.aside,
                                     "castle": [c for c in self.castle if c is not None]}
        for s in range(self.n):
            out[f"allies_{s}"] = self.allies[s]
            out[f"score_{s}"] = self.scores[s]
        return out

    def card_label(self, card: str) -> str:
        return f"{self.rules.name[card]} {card}"

    def describe(self, action) -> str:
        if not isinstance(action, tuple) or not action:
            return repr(action)
        kind = action[0]
        try:
            if kind == "pick":
                slot = action[1]
                card = self.castle[slot] if 0 <= slot < len(self.castle) else None
                shown = "face-down card" if card and self.hidden[slot] else (self.card_label(card) if card else "empty slot")
                return f"pick castle slot {slot + 1} ({shown})"
            if kind == "bid":
                return f"bid {action[1]} AP"
            if kind in ("pass", "ally", "score"):
                return {"pass": "pass", "ally": "keep as ally (face up)", "score": "keep as score (face down)"}[kind]
            if kind == "use":
                text = f"use {self.card_label(action[1])}"
                if len(action) == 3:
                    target = action[2]
                    text += f" on seat {target + 1}" if isinstance(target, int) else f" on {self.card_label(target)}"
                return text
            if kind == "reveal":
                return f"turn {self.card_label(action[1])} face up"
        except (KeyError, IndexError, TypeError):
            pass
        return repr(action)

    def summary(self) -> dict[str, Any]:
        rules = self.rules
        seats = []
        for s in range(self.n):
            seats.append({
                "seat": s + 1, "ap": self.ap[s], "points": self.points(s),
                "allies": [self.card_label(c) + (" (tapped)" if c in self.tapped else "") for c in self.allies[s]],
                "score_cards": [f"{self.card_label(c)} ({rules.vp[c]} VP)" for c in self.scores[s]],
            })
        return {"round": self.round, "phase": PHASE_NAMES[self.phase],
                "to_act": None if self.current == TERMINAL else self.current + 1,
                "castle": [None if c is None else ("face-down card" if self.hidden[i] else self.card_label(c))
                           for i, c in enumerate(self.castle)],
                "deck": len(self.deck), "set_aside": len(self.aside), "seats": seats}


# --- bots -----------------------------------------------------------------------------------

class GreedyPolicy:
    """A sensible heuristic: values cards by VP and AP income, bids up to that value, uses
    AP abilities, turns used allies into score with Magicians, attacks the leader with the
    Noble and Knight, and goes for the Princess win when a General can untap her."""

    name = "greedy"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        vps = list(rules.vp.values())
        self.mean_vp = sum(vps) / len(vps)

    def value(self, state: State, card: str | None, seat: int) -> float:
        rules = self.rules
        if card is None:
            return self.mean_vp
        rounds_left = rules.rounds - state.round
        income = rules.gain[card] * rounds_left / rules.divisor
        return max(rules.vp[card], income) + (1.0 if rules.ability[card] in ("general", "knight", "magician") and rounds_left > 1 else 0.0)

    def slot_value(self, state: State, slot: int, seat: int) -> float:
        card = state.castle[slot]
        if state.hidden[slot] and card not in state.peeked[seat]:
            return self.value(state, None, seat)
        return self.value(state, card, seat)

    def known_points(self, state: State, seat: int, viewer: int) -> float:
        """`seat`'s points as `viewer` knows them: a secret score card counts as an average card."""
        vp = self.rules.vp
        seen = state.peeked[viewer]
        total = sum(vp[c] if (c not in state.secret or c in seen) else self.mean_vp for c in state.scores[seat])
        return total + state.ap[seat] // self.rules.divisor

    def max_bid(self, state: State, seat: int) -> int:
        rules = self.rules
        value = self.slot_value(state, state.slot, seat)
        rounds_left = rules.rounds - state.round + 1
        budget = state.ap[seat] / max(1, rounds_left) * 1.5
        return int(min(state.ap[seat], budget + value - 2))

    def choose(self, state: State, rng: random.Random):
        rules = self.rules
        seat = state.current
        phase = state.phase
        if phase == PICK:
            slots = [i for i, c in enumerate(state.castle) if c is not None]
            return ("pick", max(slots, key=lambda i: (self.slot_value(state, i, seat), -i)))
        if phase == BID:
            return ("bid", max(0, min(state.ap[seat], self.max_bid(state, seat) // 2)))
        if phase == RAISE:
            if state.high_bid + 1 <= self.max_bid(state, seat):
                return ("bid", state.high_bid + 1)
            return PASS
        if phase == TAKE:
            card = state.castle[state.slot]
            ability = rules.ability[card]
            rounds_left = rules.rounds - state.round
            has_general = any(rules.ability[c] == "general" for c in state.allies[seat])
            if ability == "princess":
                return ALLY_A if has_general and rounds_left > 0 else SCORE_A
            useful = {"priest": 3, "maid": 5, "magician": 2, "general": 1, "knight": 1}.get(ability, 0)
            return ALLY_A if rounds_left >= useful and rules.vp[card] <= 3 else SCORE_A
        if phase == NOBLE:
            mine = state.scores[seat]
            if state.noble_user == seat:
                return ("reveal", max(mine, key=lambda c: (rules.gain[c], -rules.vp[c], c)))
            return ("reveal", min(mine, key=lambda c: (rules.vp[c], c)))
        return self._ally_turn(state, seat)

    def _ally_turn(self, state: State, seat: int):
        rules = self.rules
        tapped = state.tapped
        mine = [c for c in state.allies[seat] if c not in tapped]
        by = {}
        for c in mine:
            by.setdefault(rules.ability[c], []).append(c)
        last_round = state.round >= rules.rounds
        # Princess combo: use her, then untap her with a General.
        for p in by.get("princess", []):
            return ("use", p)
        for g in by.get("general", []):
            used = [c for c in state.allies[seat] if c in tapped and rules.ability[c] == "princess" and state.princess_uses.get(c)]
            if used:
                return ("use", g, used[0])
        for ab in ("priest", "maid"):
            for c in by.get(ab, []):
                return ("use", c)
        # Knight the most dangerous untapped ally of another player.
        for k in by.get("knight", []):
            danger = {"princess": 5, "general": 4, "priest": 3, "magician": 2, "noble": 2, "maid": 1}
            targets = [(danger.get(rules.ability[t], 0), t) for s in range(state.n) if s != seat and not state.passed[s]
                       for t in state.allies[s] if t not in tapped]
            targets = [t for t in targets if t[0] > 0]
            if targets:
                return ("use", k, max(targets)[1])
        for m in by.get("magician", []):
            others = [c for c in state.allies[seat] if c != m and (c in tapped or last_round)]
            if others:
                return ("use", m, max(others, key=lambda c: (rules.vp[c], c)))
        for nb in by.get("noble", []):
            leader = max((s for s in range(state.n) if s != seat), key=lambda s: (self.known_points(state, s, seat), -s))
            if state.scores[leader]:
                return ("use", nb, leader)
        for f in by.get("fortune_teller", []):
            if any(state.hidden[i] and state.castle[i] is not None for i in range(state.n)):
                return ("use", f)
        return PASS


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- checks ---------------------------------------------------------------------------------

def setup_checks(game: Game) -> list[CheckResult]:
    """Each player takes one card per round for `rounds` rounds; the rest are set aside unseen."""
    rounds = game.param("rounds")
    set_aside = game.param("set_aside_unseen")
    out = []
    stray = sorted(k for k in set_aside if k not in game.player_counts)
    if stray:
        out.append(CheckResult(
            "setup-set-aside-players", False,
            f"set_aside_unseen names {', '.join(map(str, stray))} player(s), outside the game's "
            f"{game.min_players}–{game.max_players}; use player counts the game allows",
            game.where("set_aside_unseen")))
    if game.param("castle_face_down") > game.min_players:
        out.append(CheckResult(
            "setup-castle-face-down", False,
            f"castle_face_down is {game.param('castle_face_down')}, more than the {game.min_players} castle "
            f"cards dealt a round with {game.min_players} players; use at most {game.min_players}",
            game.where("castle_face_down")))
    for players in game.player_counts:
        aside = set_aside.get(players, 0)
        used = rounds * players
        ok = used + aside == game.total
        out.append(CheckResult(
            f"setup-{players}p", ok,
            f"{players} players: {rounds} rounds × {players} = {used} cards + {aside} set aside = {used + aside} of {game.total}",
            None if ok else game.where("rounds"),
        ))
    return out
