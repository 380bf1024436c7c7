"""Greedy play of the deployable policy: the most probable legal action.

The one definition of "greedy among legal actions", used by evaluation in
both loops (JAX), by the exporter's check and on-device play (NumPy, on
the TFLite model's outputs) and by `experiments.play`. Illegal actions
never win, even where the policy gives every action probability 0.
"""

from typing import Union

import jax
import jax.numpy as jnp
import numpy as np

from agents import action_masking
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
