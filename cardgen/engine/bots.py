"""Bots: policies over legal actions.

A policy is any object with `choose(state, rng) -> action` that returns one of
`state.legal_actions()`. Policies draw their own randomness from the `rng` they are given,
never from the game's `state.rng`, so that a record (seed + actions) replays the same chance
events whatever the policies did. Each game module offers `POLICIES`, a mapping from a name to
a factory `Rules -> Policy`; "random" is always there.
"""

from __future__ import annotations

import random
from typing import Callable, Mapping, Protocol, runtime_checkable

from .core import Action, Rules, State


@runtime_checkable
class Policy(Protocol):
    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """Return one of `state.legal_actions()`."""
        ...


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules

    def choose(self, state: State, rng: random.Random) -> Action:
        legal = state.legal_actions()
        return legal[int(rng.random() * len(legal))]


class FirstPolicy:
    """Always the first legal action: deterministic, useful in tests."""

    name = "first"

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.legal_actions()[0]


PolicyFactory = Callable[[Rules], Policy]


def policy_names(module) -> list[str]:
    return sorted(getattr(module, "POLICIES", {"random": RandomPolicy}))


def make_policy(module, name: str, rules: Rules) -> Policy:
    """Build the named policy of a game module; 'random' and 'first' work for every game."""
    table: Mapping[str, PolicyFactory] = {"random": RandomPolicy, "first": FirstPolicy, **getattr(module, "POLICIES", {})}
    try:
        factory = table[name]
    except KeyError:
        raise KeyError(f"no policy {name!r} for {rules.game.id}; choose from {', '.join(sorted(table))}") from None
    policy = factory(rules)
    if not getattr(policy, "name", None):
        try:
            policy.name = name  # type: ignore[misc]
        except AttributeError:
            pass
    return policy
