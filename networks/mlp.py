"""A general MLP torso: flattens each observation, then dense layers."""

from typing import Callable, Optional, Sequence

import haiku as hk
import jax

# Builds a torso inside a transform from `(hidden_sizes, activation=...)`:
# a module mapping `[N, *obs_shape]` to `[N, hidden_sizes[-1]]`, on which
# the heads go (`MLPTorso` and `conv.ConvTorso` are two). The factories of
# `policy`, `actor_critic` and `q_network` take one, so each head is written
# once for every torso.
TorsoFactory = Callable[..., Callable[[jax.Array], jax.Array]]

DEFAULT_HIDDEN_SIZES = (64, 64)


class MLPTorso(hk.Module):
  """Flatten the observation dims, then `hidden_sizes` dense layers.

  Inputs are `[batch, *observation_shape]`; the output is
  `[batch, hidden_sizes[-1]]`. The activation is applied after every layer,
  so heads (policy logits, values, Q-values) go on top. `hidden_sizes` None
  means `DEFAULT_HIDDEN_SIZES`.
  """

  def __init__(self,
               hidden_sizes: Optional[Sequence[int]] = None,
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               name: str = 'mlp_torso'):
    super().__init__(name=name)
    self._hidden_sizes = tuple(DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                               else hidden_sizes)
    self._activation = activation

  def __call__(self, observations: jax.Array) -> jax.Array:
    x = hk.Flatten(preserve_dims=1)(observations.astype('float32'))
    return hk.nets.MLP(
        self._hidden_sizes, activation=self._activation,
        activate_final=True)(x)
