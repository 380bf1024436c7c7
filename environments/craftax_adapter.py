"""Craftax's games as pure-JAX functional cores (`--env=craftax:<id>`).

Craftax (Matthews et al., 2024) is an open-ended survival-and-crafting game
written in JAX to gymnax's interface, so each game becomes a
`gymnax_adapter.GymnaxCore` and runs in both loops:
  * ids: `Craftax-Classic-Symbolic-v1` (Crafter's rules; a 1,345-float
    vector), `Craftax-Classic-Pixels-v1` (the same game as a 63x63x3
    image), `Craftax-Symbolic-v1` and `Craftax-Pixels-v1` (the full game:
    9 floors, 43 actions; an 8,268-float vector or a 130x110x3 image).
    Observations are float32 in [0, 1], as Craftax gives them.
  * Reward: Craftax's own (+1 for each achievement unlocked the first time,
    ±0.1 per point of health gained or lost).
  * Endings: death (and, in the full game, defeating the final boss) ends
    the episode with discount 0; the time limit (`max_timesteps`: 10,000
    steps in Classic, 100,000 in the full game) with discount 1. Craftax's
    own `done` holds both; the core tells them apart by asking Craftax's
    `is_terminal` again with the limit lifted.
  * Settings (`--env_config`): Craftax's env params (`max_timesteps`,
    `day_length`, …), listed by `--helpconfig`.

The pixel games draw their textures on first use (about a minute, cached
by Craftax afterwards). Craftax is imported on first use: without it every
craftax id raises, saying how to install it.
"""

from typing import Any, Tuple

import jax

from environments import gymnax_adapter
from environments import name_hints
from environments import reference_scores
from environments import suite_packages

IDS = ('Craftax-Classic-Symbolic-v1', 'Craftax-Classic-Pixels-v1',
       'Craftax-Symbolic-v1', 'Craftax-Pixels-v1')
# Measured: benchmarks/suites_random_play.json (its command in
# benchmarks/random_play.py): uniformly random actions, 1,000 episodes at
# the default settings. The most a game returns: every achievement's
# reward (Classic: 22 of 1; the full game: 67, worth 1, 3, 5 or 8, 226 in
# all), ending at full health. A pixel game is its symbolic game's.
_MEASURED = 'mean of 1,000 episodes, benchmarks/suites_random_play.json'
_CLASSIC = reference_scores.above_random_play(
    1.462, 22.0, 'every achievement', _MEASURED)
_FULL = reference_scores.above_random_play(
    1.133, 226.0, 'every achievement', _MEASURED)
REFERENCE_SCORES = {'Craftax-Classic-Symbolic-v1': _CLASSIC,
                    'Craftax-Classic-Pixels-v1': _CLASSIC,
                    'Craftax-Symbolic-v1': _FULL,
                    'Craftax-Pixels-v1': _FULL}
# A step count no episode reaches: Craftax's `is_terminal` under it is
# death (or victory) alone.
_NO_LIMIT = 2**31 - 1


def _make_game(env_id: str) -> Any:
  """Craftax's game `env_id`, without auto-reset (ValueError if Craftax is
  missing)."""
  suite_packages.require('craftax', 'Craftax')
  from craftax import craftax_env  # pylint: disable=g-import-not-at-top
  return craftax_env.make_craftax_env_from_name(env_id, auto_reset=False)


def check_id(env_id: str) -> None:
  """Raises ValueError, naming the ids, unless `env_id` is a Craftax game."""
  if env_id not in IDS:
    raise ValueError(f'Unknown Craftax environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, IDS)} Valid craftax '
                     f'ids: {", ".join(IDS)}.')
  _make_game(env_id)


def make_core(env_id: str, **env_kwargs: Any) -> gymnax_adapter.GymnaxCore:
  """Craftax game `env_id` as a functional core; `env_kwargs` set its env
  params."""
  check_id(env_id)
  game = _make_game(env_id)
  params = gymnax_adapter.with_overrides(
      f'craftax:{env_id}', game.default_params, env_kwargs, 'max_timesteps')
  unlimited = params.replace(max_timesteps=_NO_LIMIT)

  def episode_end(env_state: Any, done: jax.Array,
                  info: Any) -> Tuple[jax.Array, jax.Array]:
    del done, info  # `done` holds the time limit too.
    return game.is_terminal(env_state, unlimited), False

  return gymnax_adapter.GymnaxCore(game, params, env_id,
                                   int(params.max_timesteps),
                                   episode_end=episode_end)

