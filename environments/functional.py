"""The pure-JAX functional interface that our own games implement.

A functional environment is a stateless object holding static configuration;
all mutable game state travels explicitly:

    state, timestep = env.reset(key)
    state, timestep = env.step(state, action)

Both functions are pure, so they can be `jax.jit`-ed, `jax.vmap`-ed over many
environments and run inside `lax.scan`. Time steps reuse `dm_env.TimeStep` as a
pytree of arrays: `step_type` is an int8 array holding `dm_env.StepType`
values, and FIRST steps carry reward 0 and discount 1 (instead of None) so that
every time step has the same structure. `DmEnvironment` in `dm_env_wrapper.py`
turns any functional environment into a regular `dm_env.Environment`.
"""

from typing import Any, Protocol, Tuple, TypeVar

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

State = TypeVar('State')

FIRST = int(dm_env.StepType.FIRST)
MID = int(dm_env.StepType.MID)
LAST = int(dm_env.StepType.LAST)


class FunctionalEnvironment(Protocol[State]):
  """Pure reset/step plus the specs of one (unbatched) environment.

  `max_episode_steps` bounds every episode's length, so a compiled loop can
  size fixed-shape buffers that hold whole episodes.

  Optional methods some cores add: `legal_action_mask(state)`, `sample_
  state(observation, key)` (with `hidden_state`: a state drawn from what
  the player knows) and `model_state(state)` (the state an agent that
  searches with the game's step starts from, when the core wraps it:
  `two_player.Versus`; without it, the state itself).
  """

  max_episode_steps: int

  def reset(self, key: jax.Array) -> Tuple[State, dm_env.TimeStep]:
    ...

  def step(self, state: State,
           action: jax.Array) -> Tuple[State, dm_env.TimeStep]:
    ...

  def observation_spec(self) -> specs.Array:
    ...

  def action_spec(self) -> specs.Array:
    ...

  def reward_spec(self) -> specs.Array:
    ...

  def discount_spec(self) -> specs.Array:
    ...


class ScalarSpecs:
  """The reward and discount specs of a core with one float32 reward a
  step and a discount in [0, 1] (most cores: mix it in)."""

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def restart(observation: Any) -> dm_env.TimeStep:
  """A FIRST time step with reward 0 and discount 1 (fixed structure)."""
  return dm_env.TimeStep(
      step_type=jnp.asarray(FIRST, jnp.int8),
      reward=jnp.asarray(0.0, jnp.float32),
      discount=jnp.asarray(1.0, jnp.float32),
      observation=observation)


def transition(reward: jax.Array, observation: Any, terminated: jax.Array,
               truncated: jax.Array) -> dm_env.TimeStep:
  """A MID or LAST time step.

  Termination ends the episode with discount 0; truncation (a time limit) ends
  it with discount 1, as in dm_env, so value-based agents can bootstrap.

  Args:
    reward: scalar reward for the step just taken.
    observation: the observation after the step.
    terminated: bool scalar, the game reached a terminal state.
    truncated: bool scalar, the episode was cut by a step limit.

  Returns:
    The time step.
  """
  last = jnp.logical_or(terminated, truncated)
  return dm_env.TimeStep(
      step_type=jnp.where(last, LAST, MID).astype(jnp.int8),
      reward=jnp.asarray(reward, jnp.float32),
      discount=jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
      observation=observation)
