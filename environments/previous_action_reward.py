"""A core whose observations also carry the previous action and reward.

A recurrent policy on a memory task often reads, beside what it sees, what
it last did and what that earned (Acme's `ObservationActionRewardWrapper`;
the recurrent PPO of XLand-MiniGrid's baselines). Passing them inside the
observation keeps every loop, replay and exported model as it is: the
observation stays one array.

`PreviousActionReward(core)` observes, as one float32 vector,

    [the core's observation, flattened; the previous action one-hot (A);
     the previous reward (1)]

with zeros for both at an episode's first step (no action taken yet).
Nothing is stored: a step knows the action it was given and the reward it
returned. Everything else (`max_episode_steps`, a legal-action mask, ...)
is the core's.
"""

from typing import Any, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional


class PreviousActionReward:
  """`core` (discrete actions) observing its previous action and reward
  too (the module docstring)."""

  def __init__(self, core: functional.FunctionalEnvironment):
    action_spec = core.action_spec()
    if not isinstance(action_spec, specs.DiscreteArray):
      raise ValueError('The previous action goes into the observation '
                       'one-hot, so the game needs discrete actions; got '
                       f'action spec {action_spec!r}.')
    self._core = core
    self._num_actions = int(action_spec.num_values)
    size = int(np.prod(core.observation_spec().shape))
    self._observation_spec = specs.Array(
        (size + self._num_actions + 1,), np.float32, name='observation')

  def __getattr__(self, name: str) -> Any:
    if name == '_core':  # Not yet set (a copy being made).
      raise AttributeError(name)
    return getattr(self._core, name)

  def _observation(self, observation: jax.Array, action: jax.Array,
                   reward: jax.Array) -> jax.Array:
    return jnp.concatenate([
        jnp.ravel(observation).astype(jnp.float32),
        jax.nn.one_hot(action, self._num_actions, dtype=jnp.float32),
        jnp.reshape(reward, (1,)).astype(jnp.float32)])

  def reset(self, key: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    state, timestep = self._core.reset(key)
    # one_hot of -1 is all zeros: no action before the first step.
    return state, timestep._replace(observation=self._observation(
        timestep.observation, jnp.int32(-1), jnp.float32(0.0)))

  def step(self, state: Any,
           action: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    state, timestep = self._core.step(state, action)
    return state, timestep._replace(observation=self._observation(
        timestep.observation, action, timestep.reward))

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.DiscreteArray:
    return self._core.action_spec()

  def reward_spec(self) -> specs.Array:
    return self._core.reward_spec()

  def discount_spec(self) -> specs.Array:
    return self._core.discount_spec()
