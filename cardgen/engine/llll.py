"""Love Letter to Lady Luck: the full rules as a state machine, its setup checks and bots.

A round is an auction phase (each player wins exactly one castle card) followed by an ally
phase (players take turns using one untapped ally's ability, or pass). Rule numbers come from
game.yaml `parameters`; the decisions where the source is silent are in game.yaml `decisions`.

Actions are `Act` (kind, args), written ``kind:arg:arg`` in records (slots and seats 0-based):

- pick:<slot>             the parent picks castle slot `slot` for the auction
- bid:<n>                 open the auction with n AP, or outbid the current bid with n AP
- pass                    leave the current auction, or pass in the ally phase
- ally / score            the winner keeps the card face up as an ally or face down as score
- use:<card>              use an ally's ability (no target, or a "may" ability left unused)
- use:<card>:<target>     ... with a target: a seat (Noble) or a card id (General, Magician, Knight)
- reveal:<card>           the player chosen by a Noble turns this score card face up

Chance: the deck is an unordered multiset; each card set aside or dealt to the castle is a
chance node draw:<card> (hidden from everyone when set aside or dealt face down).

Moves that leave no choice are made automatically and recorded in the history:
auto-pick:<seat>:<slot> (the last player of an auction phase takes the last card for 0),
auto-pass:<seat> (a bidder who cannot outbid, or a player with no untapped ally in the ally
phase, passes).
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from ..io import limits
from ..io.schema import Dict, Int, Map, Str
from ..model import CheckResult, Game
from . import core
from .bots import RandomPolicy
from .core import TERMINAL, GameResult
from .position import PositionBuilder, PositionError, checked_state, position_deck

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
    "ability_uses_per_round": Int(1, 100),
    "ability_action_points": Dict(Str(ABILITIES), Int(0, 100), max_items=len(ABILITIES)),
})

PICK, BID, RAISE, TAKE, ALLY, NOBLE, DEAL, OVER = ("auction: pick", "auction: opening bid", "auction: bidding",
                                                  "auction: ally or score", "ally phase", "ally phase: noble's choice",
                                                  "deal", "game over")


class Act(core.Action):
    """An llll move: pick:<slot>, bid:<AP>, pass, ally, score, use:<card>[:<seat>|:<card>],
    reveal:<card>; chance: draw:<card>; automatic: auto-pass:<seat>, auto-pick:<seat>:<slot>
    (slots and seats 0-based in codes)."""

    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "reveal"})


PASS = Act("pass")
ALLY_A = Act("ally")
SCORE_A = Act("score")
_BIDS: list[Act] = [Act("bid", (n,)) for n in range(64)]
_PICKS = [Act("pick", (s,)) for s in range(16)]
_AUTO_PASS = [Act("auto-pass", (s,)) for s in range(16)]


def _bids(low: int, high: int) -> list[Act]:
    while high >= len(_BIDS):
        _BIDS.append(Act("bid", (len(_BIDS),)))
    return _BIDS[low:high + 1]


class Rules(core.Rules):
    engine_id = "llll"
    PARAMETERS = PARAMETERS
    player_counts = (3, 4)
    max_actions = 5_000
    action_type = Act

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        self.start_ap: int = game.param("starting_action_points")
        self.rounds: int = game.param("rounds")
        self.divisor: int = game.param("action_point_divisor")
        self.set_aside: int = game.param("set_aside_unseen").get(players, 0)
        self.face_down: int = game.param("castle_face_down")
        self.princess_wins_at: int = game.param("princess_uses_to_win")
        # decision ability-uses: without it two Generals untap each other for ever in one ally phase
        self.uses_per_round: int = game.param("ability_uses_per_round")
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
        self.use_action: dict[str, Act] = {cid: Act("use", (cid,)) for cid in self.ability}
        self.noble_actions = {cid: [Act("use", (cid, t)) for t in range(players)] for cid in self.ability}
        self.draw_action: dict[str, Act] = {cid: Act("draw", (cid,)) for cid in self.ability}
        self.target_action: dict[str, dict[str, Act]] = {cid: {t: Act("use", (cid, t)) for t in self.ability if t != cid}
                                                         for cid in self.ability}
        self.gain: dict[str, int] = {cid: gains.get(ab, 0) for cid, ab in self.ability.items()}
        self.card_ids = [card.id for card in game.cards]
        needed = self.rounds * players + self.set_aside
        if needed != len(self.card_ids):
            raise ValueError(f"{game.where('rounds')}: llll engine: {self.rounds} rounds × {players} players + {self.set_aside} set aside = {needed}, but the deck has {len(self.card_ids)} cards")

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> "State":
        """Set up a game: the deck is shuffled (an unordered multiset; each card dealt is a chance
        draw); `deck_order` (all card ids, top first) stacks it instead: with three players the
        first 8 are set aside, then each castle row is dealt from the top."""
        if deck_order is not None:
            deck = core.Deck.stacked(core.check_deck_order(self.game, deck_order))
        else:
            deck = core.Deck(self.card_ids)
        return State(self, deck)

    def from_position(self, data: Mapping[str, Any]) -> "State":
        return _llll_state(self, data)

    def max_action_points(self) -> int:
        """AP no seat can exceed: an ally phase never raises the number of untapped allies, so
        each ally is used at most (cards in play) times a round: a generous but finite bound."""
        max_gain = max(self.gain.values(), default=0)
        return self.start_ap + self.rounds * self.rounds * self.players * max_gain

    def score_range(self) -> tuple[int, int]:
        best_vp = sum(sorted(self.vp.values(), reverse=True)[:self.rounds])
        return 0, best_vp + self.max_action_points() // self.divisor

    def max_game_length(self) -> int:
        """Every card is drawn once; an auction is a pick, an opening bid, at most one raise per
        AP up to `max_action_points`, a pass or auto-pass per other seat and the take; an ally
        phase is at most `ability_uses_per_round` uses of each card owned so far (a Noble's use
        adds its target's choice) and a pass per seat (decision ability-uses)."""
        n, rounds = self.players, self.rounds
        auctions = rounds * n * (1 + 1 + self.max_action_points() + (n - 1) + 1)
        ally_phases = sum(2 * self.uses_per_round * n * r + n for r in range(1, rounds + 1))
        return len(self.card_ids) + auctions + ally_phases

    def action_kinds(self) -> dict[str, tuple[tuple, ...]]:
        cards = tuple(sorted(set(self.card_ids)))
        seats = tuple(range(self.players))
        slots = seats                                   # the castle row has one slot per player
        return {"draw": (cards,), "pick": (slots,), "bid": (tuple(range(self.max_action_points() + 1)),),
                "pass": (), "ally": (), "score": (), "use": (cards, (None, *seats, *cards)),
                "reveal": (cards,), "auto-pass": (seats,), "auto-pick": (seats, slots)}



class State(core.State):
    def __init__(self, rules: Rules, deck: core.Deck, deal: bool = True) -> None:
        n = rules.players
        self.rules = rules
        self.history = []
        self.hidden_moves = {}
        self.n = n
        self.deck = deck
        self.aside: list[str] = []
        self.castle: list[str | None] = [None] * n
        self.hidden: list[bool] = [False] * n
        self.ap = [rules.start_ap] * n
        self.allies: list[list[str]] = [[] for _ in range(n)]
        self.scores: list[list[str]] = [[] for _ in range(n)]
        self.tapped: set[str] = set()
        self.peeked: list[set[str]] = [set() for _ in range(n)]   # face-down cards each seat has seen
        self.secret: set[str] = set()     # score cards only their owner has seen (the face-down castle card)
        self.round = 1
        self.phase = DEAL
        self.current = core.CHANCE
        self.won = [False] * n
        self.slot = -1
        self.high_bid = 0
        self.high_bidder = -1
        self.in_auction = [False] * n
        self.last_winner = 0
        self.passed = [False] * n
        self.first_passer = -1
        self.princess_uses: dict[str, int] = {}
        self.uses: dict[str, int] = {}      # abilities used this ally phase, per card
        self.noble_user = -1
        self.princess_winner = -1
        self.to_deal = 0             # castle cards still to deal this round
        self.aside_left = rules.set_aside if deal else 0
        self.after_deal = PICK       # what the deal leads to: the first auction or an ally phase
        if deal:
            self._deal_castle()

    # --- the state machine ------------------------------------------------------------------

    def _deal_castle(self) -> None:
        n = self.n
        if len(self.deck) - self.aside_left < n:
            self._after_deal()
            return
        self.castle = [None] * n
        k = self.rules.face_down
        self.hidden = [i >= n - k for i in range(n)]   # the last k cards dealt stay face down
        self.to_deal = n
        self.phase = DEAL
        self.current = core.CHANCE

    def chance_size(self) -> int:
        return self.deck.choices()

    def chance_at(self, i: int) -> Act:
        return self.rules.draw_action[self.deck.candidate(i)]

    def chance_deck(self) -> core.Deck | None:
        return self.deck if self.current_player() == core.CHANCE else None

    def draw_action(self, card: str) -> Act:
        return self.rules.draw_action[card]

    def _draw(self, card: str) -> None:
        self.deck.take(card)
        if self.aside_left:
            self.aside_left -= 1
            self.aside.append(card)
            self.hidden_moves[len(self.history) - 1] = ()        # set aside unseen
            return
        n = self.n
        slot = n - self.to_deal
        self.castle[slot] = card
        if self.hidden[slot]:
            self.hidden_moves[len(self.history) - 1] = ()        # dealt face down
        self.to_deal -= 1
        if not self.to_deal:
            self._after_deal()

    def _after_deal(self) -> None:
        if self.after_deal == PICK:
            # The parent of the first round is decided by the players ("rock-paper-scissors");
            # seat 0 is the first parent, so seat numbers follow the playing order.
            self.after_deal = ALLY
            self._start_auction(0)
        else:
            self._open_ally_phase()

    def _start_auction(self, parent: int) -> None:
        n = self.n
        won = self.won
        while won[parent]:
            parent = (parent + 1) % n
        self.current = parent
        if won.count(False) == 1:
            # The last player is alone in the auction and takes the last card for 0.
            self.slot = next(i for i, c in enumerate(self.castle) if c is not None)
            self.history.append(Act("auto-pick", (parent, self.slot)))
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
                self.history.append(_AUTO_PASS[seat])
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
            self._open_ally_phase()

    def _open_ally_phase(self) -> None:
        self.passed = [False] * self.n
        self.first_passer = -1
        self.princess_uses = {}
        self.uses = {}
        self.current = self.last_winner
        self.phase = ALLY
        self._settle_ally_turn()

    def _settle_ally_turn(self) -> None:
        """From self.current, find the next player who has not passed; auto-pass those who
        cannot act (recorded as auto-pass moves); end the round when everyone has passed."""
        n = self.n
        passed = self.passed
        tapped = self.tapped
        uses, limit = self.uses, self.rules.uses_per_round
        seat = self.current
        for _ in range(n + 1):
            if not passed[seat]:
                for card in self.allies[seat]:
                    if card not in tapped and uses.get(card, 0) < limit:
                        self.current = seat
                        return
                self._pass(seat)
                self.history.append(_AUTO_PASS[seat])
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
        self.uses = {}
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

    def _legal_actions(self) -> list:
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
            return [Act("reveal", (c,)) for c in sorted(self.scores[self.current])]
        return []

    def _ally_actions(self, seat: int) -> list:
        rules = self.rules
        tapped = self.tapped
        out: list = [PASS]
        simple = rules.use_action
        on = rules.target_action
        uses, limit = self.uses, rules.uses_per_round
        for card in sorted(self.allies[seat]):
            if card in tapped or uses.get(card, 0) >= limit:
                continue
            ability = rules.ability[card]
            if ability == "noble":
                out.extend(rules.noble_actions[card])
                continue
            out.append(simple[card])
            if ability == "general":
                targets = sorted(t for allies in self.allies for t in allies if t in tapped)
            elif ability == "magician":
                targets = sorted(t for t in self.allies[seat] if t != card)
            elif ability == "knight":
                targets = sorted(t for allies in self.allies for t in allies if t not in tapped and t != card)
            else:
                continue
            mine = on[card]
            out.extend(mine[t] for t in targets)
        return out

    def _apply(self, action) -> None:
        phase = self.phase
        kind = action[0]
        seat = self.current
        if phase == DEAL:
            self._draw(action[1][0])
        elif phase == RAISE:
            if kind == "pass":
                self.in_auction[seat] = False
            else:
                self.high_bid = action[1][0]
                self.high_bidder = seat
            self._next_bidder()
        elif phase == ALLY:
            if kind == "pass":
                self._pass(seat)
                self.current = (seat + 1) % self.n
                self._settle_ally_turn()
            else:
                self._use(seat, action[1])
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
            self.slot = action[1][0]
            self.phase = BID
        elif phase == BID:
            self.high_bid = action[1][0]
            self.high_bidder = seat
            self.in_auction = [not w for w in self.won]   # the parent stays in: others may outbid him
            self._next_bidder()
        elif phase == NOBLE:
            card = action[1][0]
            self.scores[seat].remove(card)
            self.allies[seat].append(card)   # face up and untapped
            self.secret.discard(card)
            self.current = (self.noble_user + 1) % self.n
            self.phase = ALLY
            self._settle_ally_turn()
        else:
            raise core.IllegalAction("the game is over")

    def _use(self, seat: int, args: tuple) -> None:
        rules = self.rules
        card = args[0]
        ability = rules.ability[card]
        tapped = self.tapped
        tapped.add(card)      # the card is tapped as it is used; no ability can target itself
        self.uses[card] = self.uses.get(card, 0) + 1
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
        elif len(args) == 2:
            target = args[1]
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
            return GameResult(scores, (self.princess_winner,), len(self.history), decisions=core.count_decisions(self.history), ending="princess",
                              details={"round": self.round})
        keys = [(scores[s], max((vp[c] for c in self.scores[s]), default=0), len(self.scores[s])) for s in range(n)]
        best = max(keys)
        winners = tuple(s for s in range(n) if keys[s] == best)
        return GameResult(scores, winners, len(self.history), decisions=core.count_decisions(self.history), ending="points", details={"round": self.round})

    def zones(self) -> Mapping[str, list[str]]:
        out: dict[str, list[str]] = {"deck": self.deck.cards(), "set_aside": self.aside,
                                     "castle": [c for c in self.castle if c is not None]}
        for s in range(self.n):
            out[f"allies_{s}"] = self.allies[s]
            out[f"score_{s}"] = self.scores[s]
        return out

    def card_label(self, card: str) -> str:
        return f"{self.rules.name[card]} {card}"

    def describe(self, action) -> str:
        try:
            action = self.rules.decode_action(action)
            kind, args = action
            if kind == "pick":
                slot = args[0]
                card = self.castle[slot] if 0 <= slot < len(self.castle) else None
                shown = "face-down card" if card and self.hidden[slot] else (self.card_label(card) if card else "empty slot")
                return f"pick castle slot {slot + 1} ({shown})"
            if kind == "bid":
                return f"bid {args[0]} AP"
            if kind in ("pass", "ally", "score"):
                return {"pass": "pass", "ally": "keep as ally (face up)", "score": "keep as score (face down)"}[kind]
            if kind == "use":
                text = f"use {self.card_label(args[0])}"
                if len(args) == 2:
                    target = args[1]
                    text += f" on seat {target + 1}" if isinstance(target, int) else f" on {self.card_label(target)}"
                return text
            if kind == "reveal":
                return f"turn {self.card_label(args[0])} face up"
            if kind == "draw":
                return f"deal {args[0]}"
        except (KeyError, IndexError, TypeError, ValueError):
            pass
        return str(action)

    def to_act(self) -> int | None:
        return self.current + 1 if self.current >= 0 else None

    def public_view(self) -> dict[str, Any]:
        """Every fact the rules depend on that all players see (seats numbered from 1)."""
        seats = []
        for s in range(self.n):
            seats.append({
                "seat": s + 1, "ap": self.ap[s],
                "allies": list(self.allies[s]),
                "tapped": [c for c in self.allies[s] if c in self.tapped],
                "score_cards": ["face-down" if c in self.secret else c for c in self.scores[s]],
                "passed": self.passed[s] if self.phase in (ALLY, NOBLE) else False,
                "won_this_round": self.won[s],
            })
        auction = None
        if self.phase in (BID, RAISE, TAKE) and 0 <= self.slot < self.n:
            card = self.castle[self.slot]
            auction = {"slot": self.slot + 1, "card": "face-down" if self.hidden[self.slot] else card,
                       "high_bid": self.high_bid, "high_bidder": self.high_bidder + 1 if self.high_bidder >= 0 else None,
                       "in_auction": [s + 1 for s in range(self.n) if self.in_auction[s]] if self.phase == RAISE else []}
        return {"round": self.round,
                "castle": [None if c is None else ("face-down" if self.hidden[i] else c) for i, c in enumerate(self.castle)],
                "auction": auction,
                "first_passer": self.first_passer + 1 if self.first_passer >= 0 else None,
                "princess_uses": dict(self.princess_uses),
                "noble_user": self.noble_user + 1 if self.phase == NOBLE else None,
                "deck": len(self.deck) - self.aside_left, "set_aside": len(self.aside) + self.aside_left,
                "seats": seats}

    def private_view(self, seat: int) -> dict[str, Any]:
        seen = self.peeked[seat]
        out = {"peeked": sorted(seen),
               "castle_known": [c if c is not None and self.hidden[i] and c in seen else None
                                for i, c in enumerate(self.castle)],
               "secret_score_cards": [c for c in self.scores[seat] if c in self.secret]}
        if self.phase == TAKE and seat == self.current:
            out["taking"] = self.castle[self.slot]       # the winner looks at the card before keeping it
        return out

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        out["points"] = [self.points(s) for s in range(self.n)]
        return out


# --- bots -----------------------------------------------------------------------------------

class _Seen:
    """What a seat knows, read from its Observation (the greedy bot's working view)."""

    def __init__(self, obs: core.Observation) -> None:
        pub = obs.public
        self.seat = obs.seat
        self.phase = obs.phase
        self.round = pub["round"]
        self.castle = pub["castle"]
        self.n = len(pub["seats"])
        self.ap = [s["ap"] for s in pub["seats"]]
        self.allies = [s["allies"] for s in pub["seats"]]
        self.tapped = {c for s in pub["seats"] for c in s["tapped"]}
        self.passed = [s["passed"] for s in pub["seats"]]
        self.scores = [s["score_cards"] for s in pub["seats"]]
        self.peeked = set(obs.private["peeked"])
        self.my_secret = obs.private["secret_score_cards"]
        self.princess_uses = pub["princess_uses"]
        self.noble_user = (pub["noble_user"] or 0) - 1
        auction = pub["auction"] or {}
        self.slot = auction.get("slot", 0) - 1
        self.high_bid = auction.get("high_bid", 0)


class GreedyPolicy:
    """A sensible heuristic: values cards by VP and AP income, bids up to that value, uses
    AP abilities, turns used allies into score with Magicians, attacks the leader with the
    Noble and Knight, and goes for the Princess win when a General can untap her.
    It reads only its Observation."""

    name = "greedy"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        vps = list(rules.vp.values())
        self.mean_vp = sum(vps) / len(vps)

    def value(self, v: _Seen, card: str | None) -> float:
        rules = self.rules
        if card is None or card == "face-down":
            return self.mean_vp
        rounds_left = rules.rounds - v.round
        income = rules.gain[card] * rounds_left / rules.divisor
        return max(rules.vp[card], income) + (1.0 if rules.ability[card] in ("general", "knight", "magician") and rounds_left > 1 else 0.0)

    def slot_value(self, v: _Seen, slot: int, known: list) -> float:
        return self.value(v, known[slot])

    def known_points(self, v: _Seen, seat: int) -> float:
        """`seat`'s points as this seat knows them: a face-down score card counts as an average card."""
        vp = self.rules.vp
        total = sum(vp[c] if c != "face-down" else self.mean_vp for c in v.scores[seat])
        return total + v.ap[seat] // self.rules.divisor

    def max_bid(self, v: _Seen, seat: int, known: list) -> int:
        rules = self.rules
        value = self.slot_value(v, v.slot, known)
        rounds_left = rules.rounds - v.round + 1
        budget = v.ap[seat] / max(1, rounds_left) * 1.5
        return int(min(v.ap[seat], budget + value - 2))

    @staticmethod
    def _known_castle(v: _Seen, obs: core.Observation) -> list:
        """The castle as this seat knows it: face-down cards it has looked at are known."""
        known = obs.private["castle_known"]
        return [k if k is not None else c for c, k in zip(obs.public["castle"], known)]

    def choose(self, obs: core.Observation, legal: list, rng: random.Random):
        if len(legal) == 1:
            return legal[0]
        rules = self.rules
        v = _Seen(obs)
        seat = v.seat
        phase = v.phase
        if phase == PICK:
            known = self._known_castle(v, obs)
            slots = [i for i, c in enumerate(v.castle) if c is not None]
            return _PICKS[max(slots, key=lambda i: (self.slot_value(v, i, known), -i))]
        if phase == BID:
            known = self._known_castle(v, obs)
            return _bids(0, 1000)[max(0, min(v.ap[seat], self.max_bid(v, seat, known) // 2))]
        if phase == RAISE:
            known = self._known_castle(v, obs)
            if v.high_bid + 1 <= self.max_bid(v, seat, known):
                return _bids(0, 1000)[v.high_bid + 1]
            return PASS
        if phase == TAKE:
            card = obs.private.get("taking") or obs.public["auction"]["card"]
            ability = rules.ability[card]
            rounds_left = rules.rounds - v.round
            has_general = any(rules.ability[c] == "general" for c in v.allies[seat])
            if ability == "princess":
                return ALLY_A if has_general and rounds_left > 0 else SCORE_A
            useful = {"priest": 3, "maid": 5, "magician": 2, "general": 1, "knight": 1}.get(ability, 0)
            return ALLY_A if rounds_left >= useful and rules.vp[card] <= 3 else SCORE_A
        if phase == NOBLE:
            mine = [a.args[0] for a in legal]
            if v.noble_user == seat:
                return Act("reveal", (max(mine, key=lambda c: (rules.gain[c], -rules.vp[c], c)),))
            return Act("reveal", (min(mine, key=lambda c: (rules.vp[c], c)),))
        return self._ally_turn(v, seat)

    def _ally_turn(self, v: _Seen, seat: int):
        rules = self.rules
        tapped = v.tapped
        mine = [c for c in v.allies[seat] if c not in tapped]
        by: dict[str, list[str]] = {}
        for c in mine:
            by.setdefault(rules.ability[c], []).append(c)
        last_round = v.round >= rules.rounds
        # Princess combo: use her, then untap her with a General.
        for p in by.get("princess", []):
            return Act("use", (p,))
        for g in by.get("general", []):
            used = [c for c in v.allies[seat] if c in tapped and rules.ability[c] == "princess" and v.princess_uses.get(c)]
            if used:
                return Act("use", (g, used[0]))
        for ab in ("priest", "maid"):
            for c in by.get(ab, []):
                return Act("use", (c,))
        # Knight the most dangerous untapped ally of another player.
        for k in by.get("knight", []):
            danger = {"princess": 5, "general": 4, "priest": 3, "magician": 2, "noble": 2, "maid": 1}
            targets = [(danger.get(rules.ability[t], 0), t) for s in range(v.n) if s != seat and not v.passed[s]
                       for t in v.allies[s] if t not in tapped]
            targets = [t for t in targets if t[0] > 0]
            if targets:
                return Act("use", (k, max(targets)[1]))
        for m in by.get("magician", []):
            others = [c for c in v.allies[seat] if c != m and (c in tapped or last_round)]
            if others:
                return Act("use", (m, max(others, key=lambda c: (rules.vp[c], c))))
        for nb in by.get("noble", []):
            leader = max((s for s in range(v.n) if s != seat), key=lambda s: (self.known_points(v, s), -s))
            if v.scores[leader]:
                return Act("use", (nb, leader))
        for f in by.get("fortune_teller", []):
            if "face-down" in v.castle:
                return Act("use", (f,))
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


# --- positions (cardgen.engine.position reads the file; this builds the state) ---

def _llll_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    """A position of this game (see cardgen.engine.position): phase
    pick|bid|raise|take|ally|noble|deal; zones set_aside, castle (one entry per slot, null for an
    empty slot), face_down (castle slots dealt face down), allies {seat: [...]}, scores {seat:
    [...]}, secret (face-down score cards), tapped; decks deck; counters round, ap [per seat], won
    [seats], passed [seats], first_passer, last_winner, princess_uses {card: n}; pending slot,
    high_bid, high_bidder, in_auction [seats], noble_user."""
    phases = {"pick": PICK, "bid": BID, "raise": RAISE, "take": TAKE, "ally": ALLY, "noble": NOBLE, "deal": DEAL}
    b = PositionBuilder(rules, data, ["ally", "pick", "bid", "raise", "take", "noble", "deal"],
                 zones={"set_aside", "castle", "face_down", "allies", "scores", "secret", "tapped"},
                 decks={"deck"},
                 counters={"round", "ap", "won", "passed", "first_passer", "last_winner", "princess_uses"},
                 pending={"slot", "high_bid", "high_bidder", "in_auction", "noble_user"})
    n = rules.players
    s = State(rules, core.Deck(), deal=False)
    s.aside = b.cards(("zones", "set_aside"), b.get("zones", "set_aside"))
    castle = b.get("zones", "castle")
    if castle is not None:
        if not isinstance(castle, list) or len(castle) != n:
            raise PositionError(("zones", "castle"), f"must list {n} slots (a card id or null each)")
        for i, c in enumerate(castle):
            s.castle[i] = b.cards(("zones", "castle", i), c)[0] if c is not None else None
    if b.has("zones", "face_down"):
        slots = b.get("zones", "face_down") or []
        s.hidden = [False] * n
        for i, k in enumerate(slots):
            s.hidden[b.number(("zones", "face_down", i), k, 1, n) - 1] = True
    elif any(c is not None for c in s.castle):
        s.hidden = [i >= n - rules.face_down for i in range(n)]
    for seat, cards in b.per_seat(("zones", "allies"), b.get("zones", "allies"), n).items():
        s.allies[seat] = b.cards(("zones", "allies", seat + 1), cards)
    for seat, cards in b.per_seat(("zones", "scores"), b.get("zones", "scores"), n).items():
        s.scores[seat] = b.cards(("zones", "scores", seat + 1), cards)
    s.secret = set(b.cards(("zones", "secret"), b.get("zones", "secret"), place=False))
    for c in s.secret:
        owner = next((p for p in range(n) if c in s.scores[p]), None)
        if owner is None:
            raise PositionError(("zones", "secret"), f"{c} is not a score card")
        s.peeked[owner].add(c)
    in_play = {c for a in s.allies for c in a}
    s.tapped = set(b.cards(("zones", "tapped"), b.get("zones", "tapped"), place=False))
    for c in s.tapped:
        if c not in in_play:
            raise PositionError(("zones", "tapped"), f"{c} is not an ally in play")
    top, rest = b.deck(("decks", "deck"), b.get("decks", "deck"))
    s.deck = position_deck(top, rest + b.unplaced())
    s.round = b.number(("counters", "round"), b.get("counters", "round", 1), 1, rules.rounds)
    ap = b.get("counters", "ap")
    if ap is not None:
        s.ap = [b.number(("counters", "ap", i), v) for i, v in b.per_seat(("counters", "ap"), ap, n).items()] \
            if isinstance(ap, list) else [b.number(("counters", "ap"), ap.get(p + 1, rules.start_ap)) for p in range(n)]
    for p in b.seats(("counters", "won"), b.get("counters", "won")):
        s.won[p] = True
    for p in b.seats(("counters", "passed"), b.get("counters", "passed")):
        s.passed[p] = True
    if b.has("counters", "first_passer"):
        s.first_passer = b.seat(("counters", "first_passer"), b.get("counters", "first_passer"))
    elif any(s.passed):
        s.first_passer = s.passed.index(True)
    if b.has("counters", "last_winner"):
        s.last_winner = b.seat(("counters", "last_winner"), b.get("counters", "last_winner"))
    uses = b.get("counters", "princess_uses") or {}
    s.princess_uses = {b.cards(("counters", "princess_uses"), [c], place=False)[0]: b.number(("counters", "princess_uses", c), k)
                       for c, k in uses.items()}
    s.uses = dict(s.princess_uses)     # the only uses a position names (decision ability-uses)
    s.after_deal = ALLY
    s.aside_left = 0
    phase = phases[b.phase]
    current = b.to_act if b.to_act is not None else 0
    if phase == DEAL:
        s.castle = [None] * n
        s.after_deal = PICK
        s._deal_castle()
        if s.phase != DEAL:
            raise PositionError(("decks", "deck"), f"holds too few cards to deal a castle of {n}")
        s.after_deal = PICK if s.round == 1 and not any(s.won) else ALLY
        s.history = []
        return checked_state(s)
    if phase in (PICK, BID, RAISE, TAKE):
        if phase != PICK:
            slot = b.number(("pending", "slot"), b.get("pending", "slot", 0), 1, n) - 1
            if s.castle[slot] is None:
                raise PositionError(("pending", "slot"), "the auctioned slot is empty")
            s.slot = slot
            s.high_bid = b.number(("pending", "high_bid"), b.get("pending", "high_bid", 0))
            s.high_bidder = b.seat(("pending", "high_bidder"), b.get("pending", "high_bidder", current + 1)) \
                if phase != BID else current
            auction = b.get("pending", "in_auction")
            s.in_auction = [False] * n
            for p in (b.seats(("pending", "in_auction"), auction) if auction is not None else [q for q in range(n) if not s.won[q]]):
                s.in_auction[p] = True
        s.phase = phase
        s.current = current
        if phase == PICK and s.won.count(False) == 1:
            s._start_auction(current)
    elif phase == NOBLE:
        s.noble_user = b.seat(("pending", "noble_user"), b.get("pending", "noble_user"))
        s.phase = phase
        s.current = current
        if len(s.scores[current]) < 2:
            raise PositionError(("to_act",), "the Noble's target chooses among two or more score cards")
    else:
        s.phase = ALLY
        s.current = current
        s._settle_ally_turn()
    return checked_state(s)


# What cardgen reads off the Rules class that the entry point names (see cardgen.registry).
Rules.POLICIES = POLICIES
Rules.setup_checks = staticmethod(setup_checks)
