"""POPGym Arcade's games as pure-JAX functional cores
(`--env=popgym_arcade:<id>`).

POPGym Arcade (Wang et al., 2025) is a suite of Atari-style pixel games,
each fully observable (an MDP) or partially observable (a POMDP: the same
game with part of its state hidden from the image, so a policy needs
memory). Its games are written to gymnax's interface, so each becomes a
`gymnax_adapter.GymnaxCore` and runs in both loops:
  * ids: 10 games at three difficulties (`CartPoleEasy`, `CountRecallHard`,
    `BattleShipMedium`, `MineSweeperEasy`, `NavigatorEasy`, …); every game
    has 5 actions (4 for AutoEncode).
  * Observations: POPGym Arcade's `obs_size` x `obs_size` RGB image (128
    or 256), as float32 scaled to [0, 1] (its baselines divide by 255 in
    their networks), for the conv networks.
  * Rewards are POPGym Arcade's own, scaled so an episode returns at most 1.
  * Endings: POPGym Arcade's `done` holds its time limit too; its info's
    `truncated` tells the time limit apart and its `terminated` the game's
    own end: the time limit ends an episode with discount 1, the game's
    end (also on the limit's step) with discount 0 (`episode_end`).
  * Settings (`--env_config`): `partial_obs` (false, the package's
    default: the MDP; true: the POMDP, the memory benchmark) and
    `obs_size`.

The adapter needs popgym-arcade 0.0.5, its last release on gymnax (later
ones install `stable-gymnax`, a `gymnax` of their own over gymnax's).
0.0.5 was written for an older gymnax than the one here, so each game is
made from a subclass that bridges the two (`_bridged`): gymnax's
`is_terminated` answers with the game's own `is_terminal`, and its
observation space is the image the game draws (0.0.5 declares some
games' at 256 x 256, and MineSweeper's at its board's size, whatever
`obs_size` is).

popgym-arcade is imported on first use: without it every popgym_arcade id
raises, saying how to install it.
"""

import functools
from typing import Any, Tuple

import jax
import jax.numpy as jnp

from environments import gymnax_adapter
from environments import name_hints
from environments import reference_scores
from environments import suite_packages

_GAMES = ('CartPole', 'NoisyCartPole', 'CountRecall', 'BattleShip',
          'AutoEncode', 'Navigator', 'MineSweeper', 'Skittles', 'Breakout',
          'Tetris')
IDS = tuple(f'{game}{level}' for game in _GAMES
            for level in ('Easy', 'Medium', 'Hard'))
OBS_SIZES = (128, 256)
# Games whose info's `terminated` is their `done`, time limit included.
_ENDS_HOLDING_THE_LIMIT = ('Breakout', 'Tetris')

# Measured: benchmarks/popgym_arcade_random_play.json (its command in
# docs/benchmarks/learning.md): uniformly random actions, 1,000 episodes
# at the default settings (the MDP, 128 pixels; random actions play the
# POMDP alike). POPGym Arcade scales every game's return to at most 1.
# The AutoEncode games have none: their drawing's constants, folded by
# XLA for 1,000 episodes at once, had not compiled after 14 minutes here.
_MEASURED = ('mean of 1,000 episodes, '
             'benchmarks/popgym_arcade_random_play.json')
REFERENCE_SCORES = {
    env_id: reference_scores.above_random_play(
        random_play, 1.0, 'the most a game returns', _MEASURED)
    for env_id, random_play in (
        ('CartPoleEasy', 0.137),
        ('CartPoleMedium', 0.068),
        ('CartPoleHard', 0.046),
        ('NoisyCartPoleEasy', 0.137),
        ('NoisyCartPoleMedium', 0.137),
        ('NoisyCartPoleHard', 0.137),
        ('CountRecallEasy', 0.067),
        ('CountRecallMedium', 0.033),
        ('CountRecallHard', 0.033),
        ('BattleShipEasy', -0.121),
        ('BattleShipMedium', -0.136),
        ('BattleShipHard', -0.144),
        ('NavigatorEasy', -0.539),
        ('NavigatorMedium', -0.556),
        ('NavigatorHard', -0.539),
        ('MineSweeperEasy', -0.007),
        ('MineSweeperMedium', -0.015),
        ('MineSweeperHard', -0.008),
        ('SkittlesEasy', 0.154),
        ('SkittlesMedium', 0.146),
        ('SkittlesHard', 0.138),
        ('BreakoutEasy', -0.933),
        ('BreakoutMedium', -0.945),
        ('BreakoutHard', -0.951),
        ('TetrisEasy', -1.0),
        ('TetrisMedium', -1.0),
        ('TetrisHard', -1.0))}


def _popgym_arcade() -> Any:
  """The popgym_arcade package, imported on first use (ValueError if
  missing)."""
  return suite_packages.require('popgym_arcade', 'POPGym Arcade')


def check_id(env_id: str) -> None:
  """Raises ValueError, naming close matches and the ids, unless `env_id`
  is a POPGym Arcade game."""
  if env_id not in IDS:
    raise ValueError(f'Unknown POPGym Arcade environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, IDS)} Valid '
                     f'popgym_arcade ids: {", ".join(IDS)}.')
  _popgym_arcade()


@functools.lru_cache(maxsize=None)
def _bridged(env_id: str) -> type:
  """Game `env_id`'s class with what gymnax expects of it (module
  docstring) and its image scaled to [0, 1]."""
  game_class = getattr(_popgym_arcade().environments, env_id)
  spaces = suite_packages.require('gymnax.environments.spaces', 'gymnax')
  environment = suite_packages.require('gymnax.environments.environment',
                                       'gymnax')
  own_is_terminal = (game_class.is_terminal
                     is not environment.Environment.is_terminal)

  class Bridged(game_class):
    """`env_id` as gymnax's interface here expects it."""

    def is_terminated(self, state: Any, params: Any) -> jax.Array:
      if own_is_terminal:
        return self.is_terminal(state, params)
      return super().is_terminated(state, params)

    def reset_env(self, key: jax.Array, params: Any) -> Tuple[Any, Any]:
      observation, state = super().reset_env(key, params)
      return _scaled(observation), state

    def step_env(self, key: jax.Array, state: Any, action: Any,
                 params: Any) -> Tuple[Any, ...]:
      observation, state, reward, done, info = super().step_env(
          key, state, action, params)
      return _scaled(observation), state, reward, done, info

    def observation_space(self, params: Any) -> Any:
      drawn = jax.eval_shape(self.reset_env, jax.random.PRNGKey(0),
                             params)[0]
      return spaces.Box(0.0, 1.0, drawn.shape, jnp.float32)

  Bridged.__name__ = Bridged.__qualname__ = env_id
  return Bridged


def _scaled(image: jax.Array) -> jax.Array:
  """An image drawn in [0, 255] as float32 in [0, 1]."""
  return jnp.asarray(image, jnp.float32) / 255.0


def episode_end(env_id: str) -> gymnax_adapter.EpisodeEnd:
  """`(terminated, truncated)` of game `env_id`'s steps: the time limit
  (info's `truncated`) truncates; the game's own end (info's `terminated`)
  terminates, also on the limit's step, where termination wins. Breakout's
  and Tetris's `terminated` holds their time limit too, so on the limit's
  step they truncate."""
  own_end_holds_limit = env_id.startswith(_ENDS_HOLDING_THE_LIMIT)

  def split(env_state: Any, done: jax.Array,
            info: Any) -> Tuple[jax.Array, jax.Array]:
    del env_state
    truncated = jnp.asarray(info['truncated'], bool)
    own_end = jnp.asarray(info['terminated'], bool)
    if own_end_holds_limit:
      own_end = jnp.logical_and(own_end, jnp.logical_not(truncated))
    terminated = jnp.logical_and(
        done, jnp.logical_or(own_end, jnp.logical_not(truncated)))
    return terminated, truncated

  return split


def make_core(env_id: str, partial_obs: bool = False,
              obs_size: int = 128) -> gymnax_adapter.GymnaxCore:
  """POPGym Arcade game `env_id` as a functional core: the POMDP where
  `partial_obs`, drawn at `obs_size` pixels a side."""
  check_id(env_id)
  if not isinstance(partial_obs, bool):
    raise ValueError(f'partial_obs must be true or false; got '
                     f'{partial_obs!r}.')
  if isinstance(obs_size, bool) or obs_size not in OBS_SIZES:
    raise ValueError(f'obs_size must be one of '
                     f'{", ".join(map(str, OBS_SIZES))}; got {obs_size!r}.')
  game = _bridged(env_id)(partial_obs=partial_obs, obs_size=int(obs_size))
  max_steps = getattr(game, 'max_steps_in_episode', None) or getattr(
      game, 'max_episode_length')
  return gymnax_adapter.GymnaxCore(game, game.default_params, env_id,
                                   int(max_steps),
                                   episode_end=episode_end(env_id))
