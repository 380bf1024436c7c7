"""A general MLP torso: flattens each observation, then dense layers."""

from typing import Callable, Sequence

import haiku as hk
import jax


class MLPTorso(hk.Module):
  """Flatten the observation dims, then `hidden_sizes` dense layers.

  Inputs are `[batch, *observation_shape]`; the output is
  `[batch, hidden_sizes[-1]]`. The activation is applied after every layer,
  so heads (policy logits, values, Q-values) go on top.
  """

  def __init__(self,
               hidden_sizes: Sequence[int],
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               name: str = 'mlp_torso'):
    super().__init__(name=name)
    self._hidden_sizes = tuple(hidden_sizes)
    self._activation = activation

  def __call__(self, observations: jax.Array) -> jax.Array:
    x = hk.Flatten(preserve_dims=1)(observations.astype('float32'))
    return hk.nets.MLP(
        self._hidden_sizes, activation=self._activation,
        activate_final=True)(x)
