"""What both search agents ask of a bot: its move for an observation, and a playout (a state
played to its end by the bot at every seat)."""

from __future__ import annotations

import random
from typing import Any, Sequence

from ..core import CHANCE, TERMINAL, Action, Observation, Rules, State, sample_chance


def bot_move(bot: Any, observation: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
    """`bot`'s move given the seat's observation (None for a bot whose `needs_observation` is False)."""
    return bot.choose(observation if getattr(bot, "needs_observation", True) else None, legal, rng)


def play_out(state: State, rules: Rules, policy: Any, rng: random.Random, read_state: bool = True) -> None:
    """Play `state` to its end (or `rules.max_actions` more actions) in place: chance outcomes
    and the policy's randomness from `rng`, every seat's moves from `policy` (uniformly random
    moves when it is None).

    With `read_state`, a bot offering ``choose_state(state, legal, rng)`` reads the sampled state
    directly (its choices can break ties differently from its observation's: the hidden deck in
    its real order, not as the seat sees it); otherwise bots get the seat's views
    (`needs_observation`), never the history: building the seat's history string at every
    playout move cost a quarter of a greedy-rollout search.
    """
    rand = rng.random
    history = state.history
    apply = state._apply
    current = state.current_player
    legal_actions = state._legal_actions
    fast = getattr(policy, "choose_state", None) if read_state else None
    needs_obs = getattr(policy, "needs_observation", True)
    game_id = rules.game.id
    limit = len(history) + rules.max_actions
    while True:
        player = current()
        if player == CHANCE:
            n = state.chance_size()
            action = (state.chance_at(int(rand() * n)) if n > 1 else state.chance_at(0)) if n else sample_chance(state, rng)
        elif player == TERMINAL:
            return
        elif policy is None:
            legal = legal_actions()
            action = legal[int(rand() * len(legal))]
        elif fast is not None:
            action = fast(state, legal_actions(), rng)
        else:
            obs = (Observation(game_id, player, state.phase_name(), state.to_act(), state.private_view(player),
                               state.public_view(), ()) if needs_obs else None)
            action = policy.choose(obs, legal_actions(), rng)
        history.append(action)
        apply(action)
        if len(history) > limit:
            return
