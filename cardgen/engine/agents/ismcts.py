"""A native information-set Monte Carlo tree search agent (single-observer IS-MCTS).

The agent is a policy like the bots: it is given only its seat's `Observation`, the legal
actions and its own random source. To search it needs full states, so it *determinizes*:
it rebuilds a state the seat cannot tell apart from the real one by replaying the public
history the observation carries from a new initial state, choosing every chance outcome
the seat did not see (a ``draw:?`` in its history) among the cards still possible at that
point, and keeping every move it did see. Hidden moves are chosen constructively: a candidate
is tried against the moves seen after it, up to the next hidden move, and one with which they
can follow is taken (a peeked card that is drawn openly later must have been peeked, and put
back in an order that brings it up when it was drawn). A sampled state is accepted only when its
information-state string for the seat equals the real observation's, so determinizations
are consistent with everything the seat knows. When a card the seat saw later (a face-down
card opened, a card played from a hand) was sampled wrong, the replay is repaired: the two
observations are compared field by field and the hidden draws swapped so that the card seen
lands where it was seen; then the check runs again.

The search is SO-ISMCTS (Cowling, Powley and Whitehouse 2012): one tree over the moves of
every seat, keyed by action; each iteration samples a determinization, descends by UCB1 with
availability counts among the actions legal in that determinization, resolves chance nodes
at random as it meets them (future draws stay chance nodes in the determinized state, so
every iteration also samples the future), expands one node, plays a random rollout (or the
game's named bot) to the end and backs the seats' `returns()` up the path, each node
scoring the return of the seat that moved into it. The move played is the root's most
visited legal child.

`ISMCTSPolicy.stats` counts iterations, CPU time spent (process time, so a busy shared machine
does not shrink the figure) and `unmatched`, the moves for which no consistent determinization
was found (an inconsistent one is never searched: the rollout bot's move is played instead).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

from ..core import CHANCE, TERMINAL, Action, IllegalAction, Observation, Rules, State, sample_chance
from .playout import bot_move, play_out

EXPLORATION = 0.7          # UCB1 constant for returns in [0, 1]
POOL = 24                  # determinizations sampled per move (each iteration clones one)
PROBES = 8                 # candidates for a hidden move tried against the moves seen after it
KEEP_Z = 1.0               # ismcts-keep: standard errors by which the search must beat the bot's move


class _Inconsistent(Exception):
    """The replay cannot follow the observed history with the outcomes sampled so far."""


class Determinizer:
    """Samples states consistent with one seat's observation by replaying its history.

    Hidden draws are first sampled among the cards the seat has never seen (the cards named
    nowhere in its observation), each checked against the moves seen up to the next hidden one
    (`_outcome`). A card the seat saw later that must have come from a hidden
    draw (a face-down card opened, a card used from a hand) makes the replay fail where it is
    named, or the final views differ; either way a hidden draw is changed to that card and the
    replay runs again. Once a consistent state is found, later samples keep its draws of the
    cards seen (pinned: a card seen once keeps its place in the history even after it leaves
    the view, as events opened and then cleared away do) and resample only the others.
    """

    def __init__(self, rules: Rules, max_replays: int = 24) -> None:
        self.rules = rules
        self.card_ids = frozenset(card.id for card in rules.game.cards)
        self.max_replays = max_replays
        self.replays = 0
        self.inconsistent = 0
        self.samples = 0
        # The draws of seen cards in the last consistent state: the history only grows, so they
        # stay a good start for the next sample of this game (checked again every time).
        self._anchor: tuple[tuple[str, ...], dict[int, Action]] | None = None

    # --- replay ---------------------------------------------------------------------------

    def _candidates(self, state: State, label: str, want: Action | None, known: frozenset, rng: random.Random,
                    chance: bool) -> list[Action]:
        """The possible moves the seat would have seen as `label` (see State.hidden_label): chance
        outcomes or (`chance` False) legal choices of the seat to act, in the order to try them:
        `want` first, then the cards the seat has never seen, then the others, each shuffled."""
        n = state.chance_size() if chance else 0
        if n:
            pool = [state.chance_at(i) for i in range(n)]
        elif chance:
            pool = [a for a, _ in state.chance_outcomes()]
        else:
            pool = state.legal_actions()
        hidden_label = state.hidden_label
        pool = list(dict.fromkeys(a for a in pool if hidden_label(a) == label))
        fresh = [a for a in pool if a != want and self._card_of(a) not in known]
        stale = [a for a in pool if a != want and self._card_of(a) in known]
        rng.shuffle(fresh)
        rng.shuffle(stale)
        return ([want] if want in pool else []) + fresh + stale

    def _outcome(self, state: State, history: Sequence[str], i: int, want: Action | None, known: frozenset,
                 rng: random.Random, chance: bool, probe: bool) -> Action:
        """The hidden move `history[i]`, chosen constructively: each candidate is tried on a copy
        of the state and the replay run on to the next hidden move; the first candidate with which
        the moves the seat saw up to there are possible is taken (the order of `_candidates`, so
        the choice stays random among those that fit). Without a fitting candidate among the
        first PROBES, the one that got furthest (the replay then fails where a repair can act)."""
        candidates = self._candidates(state, history[i], want, known, rng, chance)
        if not candidates:
            raise _Inconsistent(i)
        if not probe or len(candidates) == 1:
            return candidates[0]
        stop = next((k for k in range(i + 1, len(history)) if ":?" in history[k]), len(history))
        if stop == i + 1:
            return candidates[0]              # the next move is hidden too: nothing to check yet
        best, furthest = candidates[0], -1
        for action in candidates[:PROBES]:
            trial = state.clone()
            trial.history.append(action)
            try:
                trial._apply(action)
                self._run(trial, history, i + 1, stop, {}, known, rng, {}, probe=False)
            except _Inconsistent as failure:
                if failure.args[0] > furthest:
                    best, furthest = action, failure.args[0]
                continue
            except (IllegalAction, ValueError, KeyError, IndexError):
                continue
            return action
        return best

    def _replay(self, history: Sequence[str], forced: dict[int, Action], known: frozenset,
                rng: random.Random, used: dict[int, Action]) -> State:
        """Replay `history` from a new state; a masked move takes `forced[i]` when it is
        possible there, else a possible move that lets the replay go on (see _outcome). `used`
        receives the hidden moves chosen; _Inconsistent(i) when move i cannot follow."""
        self.replays += 1
        state = self.rules.new_initial_state(None)
        self._run(state, history, 0, len(history), forced, known, rng, used, probe=True)
        return state

    def _run(self, state: State, history: Sequence[str], i: int, n: int, forced: dict[int, Action],
             known: frozenset, rng: random.Random, used: dict[int, Action], probe: bool) -> None:
        """Apply history[i:n] to `state` (see _replay)."""
        decode = self.rules.decode_action
        while i < n:
            if i < len(state.history):        # a move the engine made itself while replaying
                text = history[i]
                if ":?" not in text and str(state.history[i]) != text:
                    raise _Inconsistent(i)
                i += 1
                continue
            text = history[i]
            player = state.current_player()
            if player == TERMINAL:
                raise _Inconsistent(i)
            if ":?" in text:
                # a chance outcome the seat did not see, or another seat's secret choice
                action = self._outcome(state, history, i, forced.get(i), known, rng, player == CHANCE, probe)
                used[i] = action
            else:
                try:
                    action = decode(text)
                except (ValueError, TypeError):
                    raise _Inconsistent(i) from None
                if action not in state.legal_actions():
                    raise _Inconsistent(i)
            state.history.append(action)
            try:
                state._apply(action)
            except (IllegalAction, ValueError, KeyError, IndexError):
                raise _Inconsistent(i) from None
            i += 1

    # --- repair ---------------------------------------------------------------------------

    def _cards_in(self, value: Any, out: set) -> None:
        if isinstance(value, str):
            for part in value.split(":"):
                for piece in part.split(","):
                    if piece in self.card_ids:
                        out.add(piece)
        elif isinstance(value, dict):
            for v in value.values():
                self._cards_in(v, out)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                self._cards_in(v, out)

    def _diff(self, real: Any, mine: Any, out: list[tuple[str, str]]) -> None:
        """Collect (card in my replay, card the seat really saw) where the views differ."""
        if isinstance(real, dict) and isinstance(mine, dict):
            for key, value in real.items():
                if key in mine:
                    self._diff(value, mine[key], out)
        elif isinstance(real, (list, tuple)) and isinstance(mine, (list, tuple)):
            if len(real) == len(mine) and not (real and all(isinstance(x, str) for x in real) and sorted(real) == list(real)):
                for a, b in zip(real, mine):
                    self._diff(a, b, out)
            else:
                ids = self.card_ids
                extra = [b for b in mine if isinstance(b, str) and b in ids and b not in real]
                missing = [a for a in real if isinstance(a, str) and a in ids and a not in mine]
                out.extend(zip(extra, missing))
        elif isinstance(real, str) and isinstance(mine, str) and real != mine:
            ids = self.card_ids
            if real in ids and mine in ids:
                out.append((mine, real))

    @staticmethod
    def _card_of(action: Action) -> str | None:
        return action.args[0] if action.args and isinstance(action.args[0], str) else None

    def _put(self, used: dict[int, Action], at: int, card: str) -> dict[int, Action]:
        """`used` with the draw at `at` changed to `card` (and a hidden draw of `card` given the
        card it replaces, so the multiset of drawn cards stays the same)."""
        forced = dict(used)
        old = forced[at]
        make = self.rules.action_type
        forced[at] = make(old.kind, (card,) + tuple(old.args[1:]))
        was = self._card_of(old)
        for j, a in used.items():
            if j != at and self._card_of(a) == card:
                forced[j] = make(a.kind, (was,) + tuple(a.args[1:]))
                break
        return forced

    # --- sampling -------------------------------------------------------------------------

    def sample(self, observation: Observation, rng: random.Random, key: str | None = None,
               budget: int | None = None) -> tuple[State, bool]:
        """A state consistent with `observation` (and True), or when `max_replays` replays find
        none, the last complete state sampled (and False)."""
        self.samples += 1
        seat = observation.seat
        key = key if key is not None else observation.key()
        history = observation.history
        known: set = set()
        self._cards_in([observation.private, observation.public, [h for h in history if ":?" not in h]], known)
        known_f = frozenset(known)
        real = {"private": observation.private, "public": observation.public}
        anchor: dict[int, Action] = {}
        if self._anchor is not None:
            before, draws = self._anchor
            if history[:len(before)] == before:
                anchor = draws
        forced: dict[int, Action] = dict(anchor)
        last = None
        budget = self.max_replays if budget is None else budget
        while budget > 0:
            budget -= 1
            used: dict[int, Action] = {}
            try:
                state = self._replay(history, forced, known_f, rng, used)
            except _Inconsistent as failure:
                at = failure.args[0]
                forced = self._fix_failure(history, at, used, known_f, rng)
                if forced is None:
                    forced = dict(anchor)
                continue
            last = state
            mine = state.observation(seat)
            if mine.key() == key:
                pinned = dict(anchor)
                pinned.update({i: a for i, a in used.items() if self._card_of(a) in known_f})
                self._anchor = (tuple(history), pinned)
                return state, True
            pairs: list[tuple[str, str]] = []
            self._diff(real, {"private": mine.private, "public": mine.public}, pairs)
            pairs = [(w, r) for w, r in pairs if any(self._card_of(a) == w for a in used.values())]
            if not pairs:
                forced = dict(anchor) if rng.random() < 0.5 else {}
                continue
            w, r = pairs[int(rng.random() * len(pairs))]
            ats = [i for i, a in used.items() if self._card_of(a) == w]
            forced = self._put(used, ats[int(rng.random() * len(ats))], r)
        self.inconsistent += 1
        if last is None:
            last = self._fallback(history, known_f, rng)
        return last, False

    def _fix_failure(self, history: Sequence[str], at: int, used: dict[int, Action], known: frozenset,
                     rng: random.Random) -> dict[int, Action] | None:
        """Move `at` names a card some earlier hidden draw must have drawn: find a hidden draw
        that, holding that card, lets the replay get past `at`."""
        named: set = set()
        self._cards_in(history[at], named)
        named = {c for c in named if not any(self._card_of(a) == c for a in used.values())} or named
        if not named or not used:
            return None
        card = sorted(named)[int(rng.random() * len(named))]
        slots = [i for i in used if i < at]
        unseen = [i for i in slots if self._card_of(used[i]) not in known]
        rng.shuffle(unseen)
        others = [i for i in slots if i not in unseen]
        rng.shuffle(others)
        for i in (unseen + others)[:12]:
            forced = self._put(used, i, card)
            trial: dict[int, Action] = {}
            try:
                self._replay(history[:at + 1], forced, known, rng, trial)
            except _Inconsistent as failure:
                if failure.args[0] <= at:
                    continue
            forced.update({j: a for j, a in trial.items() if j not in forced})
            return forced
        return None

    def _fallback(self, history: Sequence[str], known: frozenset, rng: random.Random) -> State:
        """Replay as far as the history can be followed (never needed in the bundled games)."""
        for cut in range(len(history), -1, -1):
            try:
                return self._replay(history[:cut], {}, known, rng, {})
            except _Inconsistent:
                continue
        raise RuntimeError(f"{self.rules.game.id}: cannot rebuild a state from the observation")


class _Node:
    __slots__ = ("children", "visits", "avail", "total", "squares", "player")

    def __init__(self, player: int) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.squares = 0.0            # sum of squared returns: kept for the root's children only
        self.player = player          # the seat whose move led here (its return is scored)

    def mean_and_error(self) -> tuple[float, float]:
        """Mean return and the standard error of that mean (a root child's)."""
        n = self.visits
        if n == 0:
            return 0.0, math.inf
        mean = self.total / n
        variance = max(0.0, self.squares / n - mean * mean)
        return mean, math.sqrt(variance / n) if n > 1 else math.inf


class ISMCTSPolicy:
    """Single-observer IS-MCTS over determinizations of the seat's observation."""

    needs_observation = True

    def __init__(self, rules: Rules, iterations: int = 200, rollout: Any = None, exploration: float = EXPLORATION,
                 pool: int = POOL, name: str | None = None, keep_bot: bool = False) -> None:
        self.rules = rules
        self.iterations = iterations
        self.rollout_policy = rollout
        # `ismcts-keep`: play the rollout bot's own move unless the search found one measurably
        # better (its mean return KEEP_Z standard errors above the bot's move's): the search then
        # improves on the bot instead of replacing it with a noisy estimate
        self.keep_bot = keep_bot and rollout is not None
        self.exploration = exploration
        self.pool = pool
        self.name = name or f"ismcts:{iterations}"
        self.determinizer = Determinizer(rules)
        self.stats = {"moves": 0, "iterations": 0, "seconds": 0.0, "determinize_seconds": 0.0}

    def iterations_per_second(self) -> float:
        return self.stats["iterations"] / self.stats["seconds"] if self.stats["seconds"] else 0.0

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.process_time()     # CPU time: on a shared core wall time counts the others too
        key = observation.key()
        pool = []
        budget = None
        for _ in range(min(self.pool, self.iterations)):
            state, ok = self.determinizer.sample(observation, rng, key, budget)
            if ok:      # only states the seat cannot tell from the real one (issue #30)
                pool.append(state)
            elif not pool:
                budget = 3      # this observation is hard to match: do not spend the move on it
        self.stats["determinize_seconds"] += time.process_time() - started
        if not pool:
            # no consistent state found: the rollout bot's move (or a random one), counted
            self.stats["unmatched"] = self.stats.get("unmatched", 0) + 1
            self.stats["moves"] += 1
            self.stats["seconds"] += time.process_time() - started
            if self.rollout_policy is not None:
                return bot_move(self.rollout_policy, observation, legal_actions, rng)
            return legal_actions[int(rng.random() * len(legal_actions))]
        root = _Node(observation.seat)
        legal_set = set(legal_actions)
        for k in range(self.iterations):
            self._iterate(root, pool[k % len(pool)].clone(), rng)
        if self.rollout_policy is not None and not any(child.total for child in root.children.values()):
            # no playout reached a reward (a co-operative game lost in every sample, say): the
            # visit counts carry no information, so play the rollout bot's own move
            self.stats["fallbacks"] = self.stats.get("fallbacks", 0) + 1
            best = bot_move(self.rollout_policy, observation, legal_actions, rng)
        else:
            best = None
            best_visits = -1
            for action in legal_actions:
                child = root.children.get(action)
                visits = child.visits if child is not None else 0
                if visits > best_visits:
                    best, best_visits = action, visits
            if self.keep_bot:
                best = self._kept(root, best, observation, legal_actions, rng)
        self.stats["moves"] += 1
        self.stats["iterations"] += self.iterations
        self.stats["seconds"] += time.process_time() - started
        assert best in legal_set
        return best

    def _kept(self, root: _Node, best: Action, observation: Observation, legal_actions: Sequence[Action],
              rng: random.Random) -> Action:
        """The rollout bot's move, unless the search's best is measurably better than it."""
        bot = bot_move(self.rollout_policy, observation, legal_actions, rng)
        if bot == best or bot not in root.children:
            return best
        best_mean, best_error = root.children[best].mean_and_error()
        bot_mean, bot_error = root.children[bot].mean_and_error()
        if best_mean - bot_mean > KEEP_Z * math.sqrt(best_error ** 2 + bot_error ** 2):
            self.stats["changed"] = self.stats.get("changed", 0) + 1
            return best
        return bot

    def _iterate(self, root: _Node, state: State, rng: random.Random) -> None:
        rand = rng.random
        c = self.exploration
        log = math.log
        sqrt = math.sqrt
        node = root
        path = [root]
        history = state.history
        apply = state._apply
        expanded = False
        while True:
            player = state.current_player()
            if player == CHANCE:
                n = state.chance_size()
                action = (state.chance_at(int(rand() * n)) if n > 1 else state.chance_at(0)) if n else sample_chance(state, rng)
                history.append(action)
                apply(action)
                continue
            if player == TERMINAL:
                break
            legal = state._legal_actions()
            children = node.children
            untried = []
            best = None
            best_value = -1.0
            for action in legal:
                child = children.get(action)
                if child is None:
                    untried.append(action)
                    continue
                child.avail += 1
                value = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
                if value > best_value:
                    best, best_value = action, value
            if untried:
                action = untried[int(rand() * len(untried))]
                child = children[action] = _Node(player)
                history.append(action)
                apply(action)
                path.append(child)
                expanded = True
                break
            node = children[best]
            history.append(best)
            apply(best)
            path.append(node)
        if expanded:
            self._rollout(state, rng)
        returns = state.returns()
        for node in path[1:]:
            node.visits += 1
            node.total += returns[node.player]
        if len(path) > 1:
            path[1].squares += returns[path[1].player] ** 2
        root.visits += 1

    def _rollout(self, state: State, rng: random.Random) -> None:
        # through the bot's observation, as every IS-MCTS figure in docs/balance-history.md was measured
        play_out(state, self.rules, self.rollout_policy, rng, read_state=False)
