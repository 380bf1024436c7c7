"""XLand-MiniGrid's games as pure-JAX functional cores
(`--env=xminigrid:<id>`).

XLand-MiniGrid (Nikulin et al., 2024) is MiniGrid and its XLand
meta-learning tasks in JAX, so each game becomes a
`functional.FunctionalEnvironment` and runs in both loops:
  * ids: xminigrid's registry: MiniGrid's games (`MiniGrid-Empty-8x8`,
    `MiniGrid-DoorKey-8x8`, `MiniGrid-MemoryS8`, …) and XLand's grids
    (`XLand-MiniGrid-R1-9x9`, …).
  * The core's state is xminigrid's `TimeStep`, stepped by xminigrid's
    step (it does not reset by itself). Its discount is kept: 0 where the
    goal is reached (reward 1 - 0.9·steps/max_steps), 1 at the time limit.
  * Observations are the agent's view (`view_size`² cells, two numbers a
    cell: tile and colour) as float32 (`observation='symbols'`), or each
    cell's tile and colour one-hot (`'one_hot'`: 13 + 12 channels), the
    input XLand-MiniGrid's baselines embed: a convolution over one-hot
    channels is an embedding and a convolution in one layer.
  * What XLand-MiniGrid's recurrent PPO baseline reads beside the view:
    `direction=True` appends the agent's direction one-hot (4; xminigrid's
    `DirectionObservationWrapper`) and `previous_action_reward=True` the
    previous action one-hot and the previous reward
    (`previous_action_reward.PreviousActionReward`). Either makes the
    observation one vector, the view flattened first (the network
    `xminigrid_gru_actor_critic` reads it back).
  * An XLand grid plays one ruleset (goal, rules and objects) of one of
    xminigrid's benchmarks: `benchmark` names it ('trivial-21k',
    'small-1m', …; xminigrid downloads it on first use, to
    $XLAND_MINIGRID_DATA or ~/.xland_minigrid) and `ruleset` its index.
    Without one an XLand grid has no goal, so it is refused.
  * Settings (`--env_config`): `max_steps` and `view_size` (None:
    xminigrid's defaults for the id), `observation`, `benchmark`,
    `ruleset`, `direction`, `previous_action_reward`.

xminigrid is imported on first use: without it every xminigrid id raises,
saying how to install it.
"""

import os
from typing import Any, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import name_hints
from environments import previous_action_reward as previous_lib
from environments import reference_scores
from environments import suite_packages

XLAND_PREFIX = 'XLand-'
OBSERVATIONS = ('symbols', 'one_hot')
DIRECTIONS = 4  # The direction's one-hot (`direction=True`).

# Measured: benchmarks/suites_random_play.json (its command in
# benchmarks/random_play.py): uniformly random actions, 1,000 episodes at
# the default settings. Reaching the goal rewards at most 1 (less its time
# penalty).
_MEASURED = 'mean of 1,000 episodes, benchmarks/suites_random_play.json'
REFERENCE_SCORES = {
    env_id: reference_scores.above_random_play(
        random_play, 1.0, "the goal's reward before its time penalty",
        _MEASURED)
    for env_id, random_play in (('MiniGrid-Empty-5x5', 0.249),
                                ('MiniGrid-Empty-8x8', 0.114),
                                ('MiniGrid-DoorKey-5x5', 0.047),
                                ('MiniGrid-DoorKey-8x8', 0.016))}


def _xminigrid() -> Any:
  """The xminigrid module, imported on first use (ValueError if missing)."""
  return suite_packages.require('xminigrid', 'xminigrid')


def check_id(env_id: str) -> None:
  """Raises ValueError, naming close matches and the ids, unless `env_id`
  is an xminigrid game."""
  valid = _xminigrid().registered_environments()
  if env_id not in valid:
    raise ValueError(f'Unknown XLand-MiniGrid environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, valid)} Valid '
                     f'xminigrid ids: {", ".join(valid)}.')


def _positive(name: str, value: Any) -> None:
  if isinstance(value, bool) or not isinstance(
      value, (int, np.integer)) or value < 1:
    raise ValueError(f'{name} must be an int >= 1; got {value!r}.')


def _ruleset(env_id: str, benchmark: Optional[str], ruleset: int) -> Any:
  """Ruleset `ruleset` of xminigrid's benchmark `benchmark`."""
  benchmarks = _xminigrid().benchmarks
  if benchmark is None:
    raise ValueError(
        f'xminigrid:{env_id} needs a ruleset to play: set '
        f'--env_config.benchmark (one of '
        f'{", ".join(benchmarks.registered_benchmarks())}; downloaded on '
        f'first use) and --env_config.ruleset=<index>.')
  if benchmark not in benchmarks.registered_benchmarks():
    raise ValueError(f'Unknown XLand-MiniGrid benchmark {benchmark!r}. Valid '
                     f'ones: {", ".join(benchmarks.registered_benchmarks())}.')
  try:
    loaded = benchmarks.load_benchmark(benchmark)
  except Exception as e:  # pylint: disable=broad-except
    path = os.path.join(benchmarks.DATA_PATH,
                        benchmarks.NAME2HFFILENAME[benchmark])
    raise ValueError(
        f'xminigrid could not load benchmark {benchmark!r} from {path} '
        f'(downloaded on first use): {e}. Offline, put the file there (or '
        f'set XLAND_MINIGRID_DATA to its folder): this project\'s '
        f'scripts/xminigrid_ruleset_generator.py makes it with '
        f'xland-minigrid\'s own generator, given the arguments its '
        f'scripts/generate_benchmarks.sh gives {benchmark!r}.'
    ) from e
  count = int(loaded.num_rulesets())
  if isinstance(ruleset, bool) or not isinstance(
      ruleset, (int, np.integer)) or not 0 <= ruleset < count:
    raise ValueError(f'ruleset must be an index in [0, {count}) of '
                     f'benchmark {benchmark!r}; got {ruleset!r}.')
  return loaded.get_ruleset(int(ruleset))


class XMiniGridCore(functional.ScalarSpecs):
  """One xminigrid game as a `functional.FunctionalEnvironment`."""

  def __init__(self, env_id: str, max_steps: Optional[int] = None,
               view_size: Optional[int] = None,
               benchmark: Optional[str] = None, ruleset: int = 0,
               observation: str = 'symbols', direction: bool = False):
    check_id(env_id)
    _boolean('direction', direction)
    if observation not in OBSERVATIONS:
      raise ValueError(f'Unknown observation {observation!r} for '
                       f'xminigrid:{env_id}. Valid ones: '
                       f'{", ".join(OBSERVATIONS)}.')
    overrides = {k: v for k, v in (('max_steps', max_steps),
                                   ('view_size', view_size)) if v is not None}
    for name, value in overrides.items():
      _positive(name, value)
    is_xland = env_id.startswith(XLAND_PREFIX)
    if not is_xland and (benchmark is not None or ruleset != 0):
      raise ValueError(f'benchmark and ruleset are settings of XLand grids; '
                       f'xminigrid:{env_id} is a MiniGrid game.')
    self.env_id = env_id
    self.env, self.params = _xminigrid().make(env_id, **overrides)
    if is_xland:
      self.params = self.params.replace(
          ruleset=_ruleset(env_id, benchmark, ruleset))
    # (tiles, colours) of the one-hot encoding; None: the symbols as
    # numbers.
    self._one_hot = None
    shape = tuple(int(d) for d in self.env.observation_shape(self.params))
    if observation == 'one_hot':
      constants = _xminigrid().core.constants
      self._one_hot = (int(constants.NUM_TILES), int(constants.NUM_COLORS))
      shape = shape[:-1] + (sum(self._one_hot),)
    self._direction = direction
    if direction:
      shape = (int(np.prod(shape)) + DIRECTIONS,)
    self._observation_spec = specs.Array(shape, np.float32,
                                         name='observation')
    self._action_spec = specs.DiscreteArray(
        int(self.env.num_actions(self.params)), dtype=np.int32,
        name='action')

  @property
  def max_episode_steps(self) -> int:
    """xminigrid's `max_steps` (truncation)."""
    return int(self.params.max_steps)

  def _observation(self, timestep: Any) -> jax.Array:
    observation = timestep.observation
    if self._one_hot is None:
      observation = jnp.asarray(observation, jnp.float32)
    else:
      tiles, colours = self._one_hot
      observation = jnp.concatenate(
          [jax.nn.one_hot(observation[..., 0], tiles, dtype=jnp.float32),
           jax.nn.one_hot(observation[..., 1], colours, dtype=jnp.float32)],
          axis=-1)
    if not self._direction:
      return observation
    return jnp.concatenate([
        jnp.ravel(observation),
        jax.nn.one_hot(timestep.state.agent.direction, DIRECTIONS,
                       dtype=jnp.float32)])

  def reset(self, key: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    timestep = self.env.reset(self.params, key)
    return timestep, functional.restart(self._observation(timestep))

  def step(self, state: Any,
           action: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    timestep = self.env.step(self.params, state,
                             jnp.asarray(action, jnp.int32))
    terminated = timestep.discount == 0
    truncated = timestep.state.step_num >= self.params.max_steps
    return timestep, functional.transition(
        timestep.reward, self._observation(timestep), terminated, truncated)

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.DiscreteArray:
    return self._action_spec


def _boolean(name: str, value: Any) -> None:
  if not isinstance(value, (bool, np.bool_)):
    raise ValueError(f'{name} must be true or false; got {value!r}.')


def make_core(env_id: str, max_steps: Optional[int] = None,
              view_size: Optional[int] = None, benchmark: Optional[str] = None,
              ruleset: int = 0, observation: str = 'symbols',
              direction: bool = False, previous_action_reward: bool = False
             ) -> Any:
  """xminigrid game `env_id` as a functional core (its settings: the
  module's docstring)."""
  _boolean('previous_action_reward', previous_action_reward)
  core = XMiniGridCore(env_id, max_steps, view_size, benchmark, ruleset,
                       observation, direction)
  return (previous_lib.PreviousActionReward(core) if previous_action_reward
          else core)
