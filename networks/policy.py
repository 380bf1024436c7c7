"""Policy networks: observations to action logits, as pure `hk.transform`s."""

from typing import Optional, Sequence

import haiku as hk
import jax

from networks import mlp


def make_policy_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None) -> hk.Transformed:
  """MLP policy: flatten → hidden ReLU layers → `num_actions` logits.

  With hidden sizes (2·B², B²), Plane Strike's default in its registry
  entry, this is the reference policy (flatten → 2·B² ReLU → B² ReLU → B²
  logits), whose exported softmax is a drop-in for the Android app's model.

  Args:
    num_actions: number of discrete actions (logits).
    hidden_sizes: hidden layer widths; default (64, 64).

  Returns:
    `init(key, observations)` and `apply(params, observations)`; observations
    are batched, `[N, *observation_shape]`, and logits are `[N, num_actions]`.
  """
  if hidden_sizes is None:
    hidden_sizes = (64, 64)

  def forward(observations: jax.Array) -> jax.Array:
    torso = mlp.MLPTorso(hidden_sizes)
    return hk.Linear(num_actions, name='logits')(torso(observations))

  return hk.without_apply_rng(hk.transform(forward))
