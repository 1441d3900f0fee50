"""A rollout agent: one-step policy improvement of a bot by Monte Carlo (Bertsekas' rollout).

At each decision with more than one legal action the agent tries every action on the same
sampled futures and keeps the bot's own move unless another one does measurably better:

- a *sample* is a state consistent with the seat's observation (drawn by the IS-MCTS
  `Determinizer`; when the history hides nothing, as in a solitaire, the one replay is the
  state itself and only the future is uncertain) and a seed for the future;
- for every legal action the sample is cloned, the action applied and the game played to the
  end by the rollout bot, chance outcomes and the bot's randomness drawn from a source seeded
  with that sample's seed: every action meets the same chance stream (common random numbers),
  so differences between actions are not drowned by the luck of the draw;
- the move played is the bot's own choice unless the action with the best mean return beats
  it on the paired per-sample differences d (sum d > Z * sqrt(sum d^2), a sign test on the
  samples where they differ). After `QUIET` samples in which no action's return differed from
  the bot's move on any sample, the choice is left to the bot (the decision does not matter
  on these futures) and the rest of the samples are not spent; from `2 * QUIET` samples on,
  a decision whose best action is `DECIDED` standard errors above or below the bot's move
  stops as well.

The agent is given only its observation, like the bots; the rollouts play on its own sampled
states (a bot offering ``choose_state(state, legal, rng)`` is called with the sampled state
directly instead of an observation rebuilt at every rollout move). Without a bot (``rollout``
with random rollouts) there is no default move: the best mean return is played.

`RolloutPolicy.stats` counts decisions searched, samples and rollouts played, decisions left to
the bot early, moves changed from the bot's, and CPU time.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Sequence

from ..core import Action, Observation, Rules, State
from .ismcts import Determinizer
from .playout import bot_move, play_out

Z = 1.0           # how many standard errors the best action must beat the bot's move by
QUIET = 16        # samples after which a decision where no action made a difference stops
DECIDED = 3.0     # from 2 * QUIET samples on, a gap this many standard errors wide ends the search
POOL = 16         # determinizations per move when the history hides something


class RolloutPolicy:
    """Keeps its bot's move unless another does measurably better on shared sampled futures."""

    needs_observation = True

    def __init__(self, rules: Rules, samples: int = 64, base: Any = None, z: float = Z, quiet: int = QUIET,
                 pool: int = POOL, name: str | None = None) -> None:
        self.rules = rules
        self.samples = samples
        self.base = base
        self.z = z
        self.quiet = quiet
        self.pool = pool
        self.name = name or f"rollout:{samples}"
        self.determinizer = Determinizer(rules)
        self.stats = {"moves": 0, "samples": 0, "rollouts": 0, "quiet": 0, "decided": 0, "changed": 0, "seconds": 0.0}

    def rollouts_per_second(self) -> float:
        return self.stats["rollouts"] / self.stats["seconds"] if self.stats["seconds"] else 0.0

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.process_time()
        base = self.base
        default = None
        if base is not None:
            default = bot_move(base, observation, legal_actions, rng)
        seat = observation.seat
        key = observation.key()
        # a history with no hidden move replays to one state only: sample it once
        hidden = any(":?" in text for text in observation.history)
        pool: list = []
        budget = None
        returns = {action: [] for action in legal_actions}
        others = [a for a in legal_actions if a != default]
        done = 0
        wanted = list(legal_actions)
        tries = 0
        for k in range(self.samples):
            while (hidden and len(pool) < self.pool or not pool) and tries < 2 * self.pool:
                tries += 1
                state, ok = self.determinizer.sample(observation, rng, key, budget)
                if not ok:
                    budget = 3
                if state.current_player() == seat and state.legal_actions() == wanted:
                    pool.append(state)      # a sample where another set of moves is legal is no use
                    break
            if not pool:
                break
            sample = pool[k % len(pool)]
            seed = rng.getrandbits(64)
            for action in legal_actions:
                state = sample.clone()
                state.history.append(action)
                state._apply(action)
                self._rollout(state, random.Random(seed))
                returns[action].append(state.returns()[seat])
            done = k + 1
            if default is not None and done >= self.quiet and done % 8 == 0:
                if self._quiet(returns, default, others):
                    self.stats["quiet"] += 1
                    break
                if done >= 2 * self.quiet and self._decided(returns, default, others):
                    self.stats["decided"] += 1
                    break
        if not done:
            best = default if default is not None else legal_actions[0]
        else:
            best = self._pick(returns, default, others)
        self.stats["moves"] += 1
        self.stats["samples"] += done
        self.stats["rollouts"] += done * len(legal_actions)
        self.stats["changed"] += best != default and default is not None
        self.stats["seconds"] += time.process_time() - started
        return best

    @staticmethod
    def _quiet(returns: dict, default: Action, others: list) -> bool:
        mine = returns[default]
        return all(returns[a] == mine for a in others)

    def _decided(self, returns: dict, default: Action, others: list) -> bool:
        """The best action beats the bot's move, or falls short of it, by DECIDED standard errors."""
        gain, spread = self._gain(returns, default, others)[1:]
        return abs(gain) > DECIDED * spread

    def _gain(self, returns: dict, default: Action, others: list) -> tuple[Action, float, float]:
        """The other action with the best mean, the sum of its paired differences from the
        bot's move and the square root of their sum of squares."""
        means = {a: sum(returns[a]) for a in others}
        best = max(others, key=lambda a: means[a])
        diffs = [x - y for x, y in zip(returns[best], returns[default])]
        return best, sum(diffs), math.sqrt(sum(d * d for d in diffs))

    def _pick(self, returns: dict, default: Action | None, others: list) -> Action:
        means = {a: sum(r) / len(r) for a, r in returns.items()}
        if default is None:
            return max(returns, key=lambda a: means[a])      # the first of the best, in legal order
        if not others:
            return default
        best, gain, spread = self._gain(returns, default, others)
        return best if gain > 0 and gain > self.z * spread else default

    def _rollout(self, state: State, rng: random.Random) -> None:
        play_out(state, self.rules, self.base, rng)
