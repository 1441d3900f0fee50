"""Search agents for every engine, and the one place policy names are read.

A policy name is either one of the engine's own bots (its Rules class's POLICIES: ``random``,
``greedy``, ``heuristic`` ...) or a generic agent that works for every engine:

- ``ismcts[:ITERATIONS[:ROLLOUT]]``: the native information-set MCTS (`ismcts.ISMCTSPolicy`),
  200 iterations per move unless given, random rollouts unless ROLLOUT names one of the
  game's bots;
- ``ismcts-keep[:ITERATIONS:BOT]``: the same search with BOT's rollouts, playing BOT's own move
  unless the search finds one measurably better (its mean return one standard error above);
- ``rollout[:SAMPLES[:BOT]]``: one-step improvement of a bot by Monte Carlo rollouts
  (`rollout.RolloutPolicy`): every legal action tried on the same SAMPLES sampled futures
  (64 unless given), the bot's own move kept unless another does measurably better; random
  rollouts and the best mean unless BOT names one of the game's bots;
- ``openspiel-ismcts[:ITERATIONS]`` and ``openspiel-mcts[:ITERATIONS]``: OpenSpiel's own
  algorithms through the bridge (`cardgen.engine.openspiel_bridge`; needs the ``[agents]``
  extra).

`parse_policy` checks a name without building anything (for `simulate`, `check` and report
specs); `make_any_policy` builds it for a given `Rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...agent_settings import COUNTS, counted
from ..bots import make_policy, policy_names

MAX_ITERATIONS = 1_000_000
AGENTS = tuple(COUNTS)
WITH_BOT = ("ismcts", "ismcts-keep", "rollout")     # the agents whose third field names a bot


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy name: `kind` is a bot name or an agent in AGENTS."""

    kind: str
    iterations: int = 0
    rollout: str = "random"

    @property
    def is_agent(self) -> bool:
        return self.kind in AGENTS


def known_policies(engine: Any) -> list[str]:
    """The names to show in an error message: the game's bots and the generic agents."""
    return sorted(set(policy_names(engine)) | {"random", "first"}) + [f"{a}[:{counted(a)}]" for a in AGENTS]


def parse_policy(engine: Any, name: str) -> PolicySpec:
    """Read a policy name; ValueError with a readable message when it is not one."""
    bots = set(policy_names(engine)) | {"random", "first"}
    text = str(name).strip()
    head, _, rest = text.partition(":")
    if head not in AGENTS:
        if text in bots:
            return PolicySpec(text)
        raise ValueError(f"no policy {text!r}; choose from {', '.join(known_policies(engine))}")
    parts = rest.split(":") if rest else []
    iterations = COUNTS[head][1]
    rollout = "random"
    if parts:
        try:
            iterations = int(parts[0])
        except ValueError:
            raise ValueError(f"policy {text!r}: the iteration count must be a whole number, as in {head}:200") from None
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"policy {text!r}: iterations must be between 1 and {MAX_ITERATIONS}")
    if len(parts) > 1:
        if head not in WITH_BOT:
            raise ValueError(f"policy {text!r}: {head} takes only an iteration count ({head}:200)")
        rollout = parts[1]
        if rollout not in bots:
            raise ValueError(f"policy {text!r}: no rollout policy {rollout!r}; choose from {', '.join(sorted(bots))}")
    if len(parts) > 2:
        raise ValueError(f"policy {text!r}: write {head}[:iterations[:rollout]]")
    if head == "ismcts-keep" and rollout == "random":
        raise ValueError(f"policy {text!r}: ismcts-keep keeps a bot's move; name the bot, as in ismcts-keep:200:greedy")
    return PolicySpec(head, iterations, rollout)


def make_any_policy(engine: Any, name: str, rules: Any):
    """Build the policy `name` for `rules` (a game bot or a generic agent)."""
    spec = parse_policy(engine, name)
    if not spec.is_agent:
        return make_policy(engine, spec.kind, rules)
    if spec.kind in ("ismcts", "ismcts-keep"):
        from .ismcts import ISMCTSPolicy

        rollout = None if spec.rollout == "random" else make_policy(engine, spec.rollout, rules)
        return ISMCTSPolicy(rules, spec.iterations, rollout=rollout, name=name, keep_bot=spec.kind == "ismcts-keep")
    if spec.kind == "rollout":
        from .rollout import RolloutPolicy

        base = None if spec.rollout == "random" else make_policy(engine, spec.rollout, rules)
        return RolloutPolicy(rules, spec.iterations, base=base, name=name)
    from ..openspiel_bridge import openspiel_policy

    return openspiel_policy(rules, spec.kind, spec.iterations, name=name)
