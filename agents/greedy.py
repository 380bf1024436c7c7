"""Greedy play of the deployable policy (`Agent.deployable_policy`).

The one definition of "greedy", used by evaluation in both loops (JAX), by
the exporter's check and on-device play (NumPy, on the TFLite model's
outputs) and by `experiments.play`: over discrete actions, the most
probable legal action (illegal actions never win, even where the policy
gives every action probability 0); over continuous actions, the policy's
outputs themselves (its deterministic action, already in the spec's
bounds).
"""

from typing import Union

import jax
import jax.numpy as jnp
import numpy as np

from agents import action_masking
from environments import continuous_actions
from environments import specs

Array = Union[np.ndarray, jax.Array]


def legal_mask(environment_spec: specs.EnvironmentSpec,
               observations: Array) -> Array:
  """Boolean `[..., A]` legal actions of `[..., *obs_shape]` observations
  (all True where the environment has no legal-action function); NumPy in,
  NumPy out."""
  legal = action_masking.legal_actions(environment_spec, observations)
  if legal is None:
    batch_shape = np.shape(observations)[:np.ndim(observations) - len(
        environment_spec.observations.shape)]
    xp = jnp if isinstance(observations, jax.Array) else np
    return xp.ones(batch_shape + (environment_spec.num_actions,), bool)
  return legal if isinstance(observations, jax.Array) else np.asarray(legal)


def greedy_actions(probabilities: Array, legal: Array) -> Array:
  """`[...]` argmax of `[..., A]` probabilities among `legal` actions
  (int32; JAX arrays in, JAX out, jit-able; NumPy in, NumPy out)."""
  if isinstance(probabilities, jax.Array) or isinstance(legal, jax.Array):
    return jnp.argmax(jnp.where(legal, probabilities, -1.0),
                      axis=-1).astype(jnp.int32)
  return np.argmax(np.where(legal, probabilities, -1.0),
                   axis=-1).astype(np.int32)


def greedy_play(environment_spec: specs.EnvironmentSpec, outputs: Array,
                observations: Array) -> Array:
  """Greedy actions from `deployable_policy` `outputs` for `observations`:
  `[...]` int32 discrete actions (`greedy_actions` among legal ones), or
  the `[..., action_dim]` continuous actions as they are (float32). JAX in,
  JAX out; NumPy in, NumPy out."""
  if environment_spec.is_continuous:
    xp = jnp if isinstance(outputs, jax.Array) else np
    return xp.asarray(outputs, xp.float32)
  return greedy_actions(outputs, legal_mask(environment_spec, observations))


def output_size(environment_spec: specs.EnvironmentSpec) -> int:
  """The size of one row of `deployable_policy`'s outputs: the number of
  discrete actions, or `action_dim`."""
  if environment_spec.is_continuous:
    return environment_spec.action_dim
  return environment_spec.num_actions


def agreement(environment_spec: specs.EnvironmentSpec, outputs: Array,
              expected: Array, observations: Array) -> np.ndarray:
  """`[N]` bool: the greedy actions of two models' `[N, ...]` outputs agree
  (the same discrete action; continuous actions within 1% of the action
  range, or of 1 where unbounded, in every component). NumPy."""
  outputs, expected = np.asarray(outputs), np.asarray(expected)
  observations = np.asarray(observations)
  if not environment_spec.is_continuous:
    return (greedy_play(environment_spec, outputs, observations) ==
            greedy_play(environment_spec, expected, observations))
  low, high = continuous_actions.bounds(environment_spec.actions)
  span = np.where(np.isfinite(high - low), high - low, 1.0)
  return np.all(np.abs(outputs - expected) <= 0.01 * span, axis=-1)
