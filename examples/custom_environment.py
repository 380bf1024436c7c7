r"""A custom pure-JAX environment, trained in the compiled loop.

Corridor: the agent starts at the left end of a corridor of `length` cells
and walks left or right; reaching the right end gives +1 and ends the
episode, which is cut after `max_steps` steps. Walking left from the left
end is illegal (a legal-action mask), and any γ < 1 makes the shortest walk
(`length - 1` steps) the best.

Registering it is one `EnvironmentEntry`: the pure-JAX core (which also gets
a `dm_env` face, so the Python loop runs it too), its reference score for
comparison reports, and nothing else. Then:

  python -m experiments.train --imports=examples/custom_environment.py \
      --env=corridor --agent=ppo --num_steps=30000 --workdir=/tmp/corridor

and `experiments.compare`, `experiments.report` and
`experiments.export_tflite` take it the same way (the workdir remembers
`--imports`).
"""

from typing import Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import reference_scores
from environments import registry

LEFT, RIGHT = 0, 1


class Corridor:
  """Pure-JAX corridor walk; see `environments.functional`."""

  def __init__(self, length: int = 8, max_steps: int = 32):
    if length < 2 or max_steps < length - 1:
      raise ValueError(f'Need length >= 2 and max_steps >= length - 1; got '
                       f'length={length}, max_steps={max_steps}.')
    self.length = length
    self.max_episode_steps = max_steps

  def _observation(self, position: jax.Array) -> jax.Array:
    return jax.nn.one_hot(position, self.length, dtype=jnp.float32)

  def reset(self, key: jax.Array) -> Tuple[jax.Array, dm_env.TimeStep]:
    del key  # Every episode starts at the left end.
    state = (jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    return state, functional.restart(self._observation(state[0]))

  def step(self, state, action: jax.Array):
    position, steps = state
    move = jnp.where(action == RIGHT, 1, -1)
    position = jnp.clip(position + move, 0, self.length - 1)
    steps = steps + 1
    terminated = position == self.length - 1
    timestep = functional.transition(
        jnp.where(terminated, 1.0, 0.0), self._observation(position),
        terminated, steps >= self.max_episode_steps)
    return (position, steps), timestep

  def legal_actions(self, observations: jax.Array) -> jax.Array:
    """`[..., 2]`: left is illegal at the left end (cell 0)."""
    at_start = observations[..., 0] > 0
    return jnp.stack([~at_start, jnp.ones_like(at_start)], axis=-1)

  def observation_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((self.length,), np.float32, 0.0, 1.0,
                              name='position')

  def action_spec(self) -> specs.DiscreteArray:
    return specs.DiscreteArray(2, dtype=np.int32, name='action')

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


registry.register(registry.EnvironmentEntry(
    name='corridor',
    make_core=Corridor,
    # Scored by steps to the end (fewer is better): 32 is the step limit,
    # 7 the shortest walk of the default corridor.
    reference_score=reference_scores.ReferenceScore(
        metric='mean_episode_length', label='steps to the end', low=32.0,
        high=7.0, source='the step limit (32) and the shortest walk (7)',
        low_name='the step limit', high_name='the shortest walk')))
