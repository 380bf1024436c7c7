"""EnvPool's games (`envpool:<id>`): N environments stepped in one call.

EnvPool (Weng et al., 2022) runs a batch of C++ environments on a thread
pool: Atari (the ALE with its ROMs in the package: 'Pong-v5'), MuJoCo
('HalfCheetah-v5'), classic control ('CartPole-v1'), Box2D and more
(`envpool.list_all_envs()`). The Python loop steps N of them as one pool
(`make_batch`, an `environment_batch.EnvironmentBatch`) instead of N
environments one after another; evaluation, specs and `experiments.play`
use one environment's `dm_env` face (`make_environment`, a pool of one).
The pool runs in sync mode (every call steps all N); the loop's actor
thread (`--actor_thread`) overlaps it with learning.

Conversions, as `gym_adapter` does for Gymnasium:
  * Observations are float32. Images come from EnvPool channels first
    (Atari: 4 stacked 84x84 frames, `(4, 84, 84)`) and are given channels
    last (`(84, 84, 4)`), as the conv networks read them; uint8 ones
    (Atari's frames) are scaled to [0, 1], as Navix's and POPGym Arcade's
    images are (and as CleanRL's Atari network divides by 255). A
    `Discrete(n)` observation becomes a one-hot vector.
  * `terminated` ends an episode with discount 0, `truncated` (a time
    limit) with discount 1.
  * Discrete actions are checked against their range; continuous ones are
    checked finite and clipped to the bounds.

Seeding: a pool of N with seed s seeds its environment i with s' + i
(EnvPool's own; s' is s reduced into int32's range). The pool's episodes
are not addressable, so a resumed run trains on other episodes than an
uninterrupted one would (the loop warns); one environment's face plays
episode k of a seed exactly (`EnvPoolEnvironment`), so evaluations are the
same games however they are reached.

Settings (`--env_config`): the keywords of `envpool.make_gymnasium` for the
game, listed by `--helpconfig` with their defaults (Atari:
`episodic_life`, `reward_clip`, `stack_num`, `max_episode_steps`, ...).
"""

import inspect
import os
import warnings
from typing import Any, Dict, Optional, Sequence, Tuple

import dm_env
from dm_env import specs
import numpy as np

from environments import continuous_actions
from environments import dm_env_wrapper
from environments import environment_batch
from environments import episode_streams
from environments import gym_adapter
from environments import name_hints
from environments import suite_packages

EXTRA = 'envpool'
_INT32_LIMIT = 2**31 - 1
# Config keys of the pool, not of the game: set here, not by a setting.
_POOL_KEYS = frozenset((
    'num_envs', 'batch_size', 'num_threads', 'max_num_players',
    'thread_affinity_offset', 'base_path', 'seed', 'env_seed',
    'gym_reset_return_info', 'task', 'reward_threshold'))


def _envpool() -> Any:
  """EnvPool, imported on first use (ValueError naming its pip line).

  Its import sets variables of the process (`MPLBACKEND=Agg` and
  `MPLCONFIGDIR` for its Jumanji renderer, `TF_CPP_MIN_LOG_LEVEL`); they
  are put back as they were, so that the processes this one starts (a
  notebook's kernel, a comparison's runs) see the user's settings."""
  saved = dict(os.environ)
  try:
    return suite_packages.require('envpool', 'EnvPool', EXTRA)
  finally:
    for key in set(os.environ) - set(saved):
      del os.environ[key]
    for key, value in saved.items():
      if os.environ.get(key) != value:
        os.environ[key] = value


def ids() -> Tuple[str, ...]:
  """Every id EnvPool registers."""
  return tuple(_envpool().list_all_envs())


def check_id(env_id: str) -> None:
  """Raises ValueError, naming close matches, unless EnvPool has `env_id`."""
  valid = ids()
  if env_id not in valid:
    examples = ', '.join(i for i in ('CartPole-v1', 'Pendulum-v1', 'Pong-v5',
                                     'Breakout-v5', 'HalfCheetah-v5')
                         if i in valid)
    raise ValueError(
        f'Unknown EnvPool environment {env_id!r}.'
        f'{name_hints.did_you_mean(env_id, valid)} EnvPool has '
        f'{len(valid)} ids (e.g. {examples}); list them with '
        f'`python -c "import envpool; print(envpool.list_all_envs())"`.')


def settings(env_id: str) -> Dict[str, inspect.Parameter]:
  """The game's settings: `envpool.make_gymnasium`'s keywords for it, less
  the pool's own, each with its default."""
  check_id(env_id)
  config = _envpool().make_spec(env_id).config
  return {key: inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY,
                                 default=value, annotation=type(value))
          for key, value in config._asdict().items()
          if key not in _POOL_KEYS}


def _check_settings(env_id: str, kwargs: Dict[str, Any]) -> None:
  valid = settings(env_id)
  unknown = sorted(set(kwargs) - set(valid))
  if unknown:
    raise ValueError(
        f'envpool:{env_id} has no setting {", ".join(map(repr, unknown))}; '
        f'its settings: {", ".join(valid)}.')


class EnvPoolBatch(environment_batch.EnvironmentBatch):
  """N environments of one EnvPool game, each call stepping all N."""

  def __init__(self, env_id: str, num_envs: int, seed: Optional[int] = None,
               **kwargs: Any):
    """`kwargs`: the game's settings (`settings`); `seed` None: 0."""
    check_id(env_id)
    if isinstance(num_envs, bool) or not isinstance(
        num_envs, (int, np.integer)) or num_envs < 1:
      raise ValueError(f'num_envs must be an int >= 1; got {num_envs!r}.')
    _check_settings(env_id, kwargs)
    self.env_id = env_id
    self._kwargs = kwargs
    self._seed = seed
    self._pool = self._make_pool(int(num_envs), seed)
    self._ids = np.arange(num_envs, dtype=np.int32)
    spaces = suite_packages.require('gymnasium', 'Gymnasium', EXTRA).spaces
    space = self._pool.observation_space
    self._one_hot = (int(space.n), int(space.start)) if isinstance(
        space, spaces.Discrete) else None
    # Images, channels first in EnvPool: moved to channels last.
    self._channels_first = (not self._one_hot and len(space.shape) == 3)
    # uint8 observations (Atari's frames): scaled to [0, 1].
    self._scale = (1 / 255 if not self._one_hot and space.dtype == np.uint8
                   else None)
    spec = gym_adapter.observation_spec(space)
    if self._scale is not None:
      spec = specs.BoundedArray(spec.shape, spec.dtype,
                                spec.minimum * self._scale,
                                spec.maximum * self._scale, name=spec.name)
    if self._channels_first:
      spec = _channels_last(spec)
    self.observation_spec = spec
    self.action_spec = gym_adapter.action_spec(self._pool.action_space)
    self._ended = np.zeros(num_envs, bool)  # Ended, not yet reset.
    self._started = False

  def _make_pool(self, num_envs: int, seed: Optional[int]) -> Any:
    # EnvPool takes int32 seeds and gives environment i seed + i.
    pool_seed = int(seed or 0) % (_INT32_LIMIT - num_envs)
    with warnings.catch_warnings():
      # Gymnasium's note on EnvPool's float64 bounds of float32 Boxes, at
      # every pool made (each evaluation episode): not the user's concern.
      warnings.filterwarnings('ignore', message='.*precision lowered.*')
      pool = _envpool().make_gymnasium(self.env_id, num_envs=num_envs,
                                       seed=pool_seed, **self._kwargs)
      # The spaces are made when first read.
      _ = (pool.observation_space, pool.action_space)
    return pool

  def reseed(self, seed: int) -> None:
    """A fresh pool seeded with `seed` (EnvPool seeds only at creation);
    every environment must be `reset` before the next step."""
    if self._started or seed != self._seed:
      self._pool.close()
      self._pool = self._make_pool(self.num_envs, seed)
      self._seed, self._started = seed, False

  @property
  def num_envs(self) -> int:
    return len(self._ids)

  @property
  def addressable(self) -> bool:
    return False

  def _observations(self, raw: np.ndarray) -> np.ndarray:
    if self._one_hot:
      n, start = self._one_hot
      return np.eye(n, dtype=np.float32)[np.asarray(raw) - start]
    if self._channels_first:
      raw = np.moveaxis(raw, 1, -1)
    if self._scale is not None:
      return np.asarray(raw, np.float32) * np.float32(self._scale)
    return np.asarray(raw, np.float32)

  def _in_order(self, info: Dict[str, Any], *arrays: np.ndarray
               ) -> Tuple[np.ndarray, ...]:
    """`arrays` ordered by environment (EnvPool answers by `env_id`)."""
    order = np.argsort(info['env_id'], kind='stable')
    return tuple(a[order] for a in arrays)

  def reset(self, indices: Sequence[int],
            episodes: Sequence[int]) -> np.ndarray:
    """Resets environments `indices` (`episodes` are not addressable:
    each plays its next seeded episode)."""
    indices = np.asarray(indices, np.int32).reshape(-1)
    if not self._started:
      # EnvPool's first reset must start every environment.
      observations, info = self._pool.reset()
      (observations,) = self._in_order(info, observations)
      self._started = True
      self._ended[:] = False
      return self._observations(observations)[indices]
    observations, info = self._pool.reset(indices)
    order = np.argsort(np.argsort(indices, kind='stable'), kind='stable')
    (observations,) = self._in_order(info, observations)
    self._ended[indices] = False
    # Back in the order asked for.
    return self._observations(observations)[order]

  def _actions(self, actions: np.ndarray) -> np.ndarray:
    spec = self.action_spec
    if isinstance(spec, specs.DiscreteArray):
      array = np.asarray(actions)
      if (array.shape != (self.num_envs,) or
          not np.issubdtype(array.dtype, np.integer) or
          np.any((array < 0) | (array >= spec.num_values))):
        raise ValueError(
            f'Actions must be {self.num_envs} integers in '
            f'[0, {spec.num_values - 1}]; got {array.tolist()}.')
      return array.astype(np.int32)
    shape = (self.num_envs,) + tuple(spec.shape)
    array = np.asarray(actions, np.float32).reshape(shape)
    if not np.all(np.isfinite(array)):
      raise ValueError(f'Actions must be finite; got {array.tolist()}.')
    return continuous_actions.clip_to_spec(array, spec).astype(
        self._pool.action_space.dtype)

  def step(self, actions: np.ndarray) -> environment_batch.BatchStep:
    if not self._started or self._ended.any():
      raise RuntimeError(
          'Reset the environments that ended (and all, before the first '
          'step) before stepping an EnvPoolBatch: EnvPool would reset them '
          'in place of the step.')
    observations, rewards, terminated, truncated, info = self._pool.step(
        self._actions(actions), self._ids)
    observations, rewards, terminated, truncated = self._in_order(
        info, observations, rewards, terminated, truncated)
    last = np.logical_or(terminated, truncated)
    self._ended = last.copy()
    return environment_batch.BatchStep(
        observations=self._observations(observations),
        rewards=np.asarray(rewards, np.float64),
        discounts=np.where(terminated, 0.0, 1.0).astype(np.float32),
        last=last)

  def close(self) -> None:
    self._pool.close()


def _channels_last(spec: specs.Array) -> specs.Array:
  """An image spec `(C, H, W)` as `(H, W, C)`."""
  shape = spec.shape[1:] + spec.shape[:1]
  if isinstance(spec, specs.BoundedArray):
    move = lambda x: np.moveaxis(np.broadcast_to(x, spec.shape), 0, -1)
    return specs.BoundedArray(shape, spec.dtype, move(spec.minimum),
                              move(spec.maximum), name=spec.name)
  return specs.Array(shape, spec.dtype, name=spec.name)


class EnvPoolEnvironment(dm_env.Environment):
  """One EnvPool environment as a `dm_env.Environment` (a pool of one), for
  evaluation, specs and play. Seeded, it is an
  `episode_streams.EpisodeStream`: episode k of seed s is played by a pool
  seeded with `episode_seed(s, k)` (a new pool each episode: EnvPool seeds
  only at creation; making one is slowest for Atari games). `step`
  after a LAST time step starts a new episode, as the dm_env contract
  asks."""

  def __init__(self, env_id: str, seed: Optional[int] = None,
               **kwargs: Any):
    self._seeds = episode_streams.EpisodeSeeds(seed)
    # Made as episode 0 will be played (not made twice at the first reset).
    first = None if seed is None else episode_streams.episode_seed(seed, 0)
    self._batch = EnvPoolBatch(env_id, 1, first, **kwargs)
    self._needs_reset = True

  def seek(self, seed: int, episode: int = 0) -> None:
    """The next `reset` plays episode `episode` of seed `seed`."""
    self._seeds.seek(seed, episode)
    self._needs_reset = True

  def reset(self) -> dm_env.TimeStep:
    seed = self._seeds.next()
    if seed is not None:
      self._batch.reseed(seed)
    observation = self._batch.reset([0], [0])[0]
    self._needs_reset = False
    return dm_env.restart(observation)

  def step(self, action: Any) -> dm_env.TimeStep:
    if self._needs_reset:
      return self.reset()
    spec = self._batch.action_spec
    if isinstance(spec, specs.DiscreteArray):
      actions = np.array([dm_env_wrapper.validate_discrete_action(action,
                                                                  spec)])
    else:
      actions = continuous_actions.validate_action(action, spec)[None]
    stepped = self._batch.step(actions)
    observation = stepped.observations[0]
    reward = np.float32(stepped.rewards[0])
    discount = stepped.discounts[0]
    if stepped.last[0]:
      self._needs_reset = True
      return dm_env.TimeStep(dm_env.StepType.LAST, reward, discount,
                             observation)
    return dm_env.transition(reward, observation, discount=discount)

  def observation_spec(self) -> specs.Array:
    return self._batch.observation_spec

  def action_spec(self) -> specs.Array:
    return self._batch.action_spec

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')

  def close(self) -> None:
    self._batch.close()


def make_environment(env_id: str, seed: Optional[int] = None,
                     **kwargs: Any) -> EnvPoolEnvironment:
  """EnvPool game `env_id` as one `dm_env.Environment`."""
  return EnvPoolEnvironment(env_id, seed, **kwargs)


def make_batch(env_id: str, seed: Optional[int], num_envs: int,
               **kwargs: Any) -> EnvPoolBatch:
  """`num_envs` environments of EnvPool game `env_id`, one pool."""
  return EnvPoolBatch(env_id, num_envs, seed, **kwargs)
