"""Policy networks: observations to action logits, as pure `hk.transform`s."""

from typing import Optional, Sequence

import haiku as hk
import jax

from networks import mlp


def make_policy_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso) -> hk.Transformed:
  """Policy: a torso (default the MLP: flatten → hidden ReLU layers) →
  `num_actions` logits.

  With hidden sizes (2·B², B²), Plane Strike's default in its registry
  entry, this is the reference policy (flatten → 2·B² ReLU → B² ReLU → B²
  logits), whose exported softmax is a drop-in for the Android app's model.

  Args:
    num_actions: number of discrete actions (logits).
    hidden_sizes: hidden layer widths; None: the torso's default ((64, 64)
      for the MLP).
    torso: builds the torso from `hidden_sizes` (default: the MLP; e.g.
      `conv.ConvTorso` for images).

  Returns:
    `init(key, observations)` and `apply(params, observations)`; observations
    are batched, `[N, *observation_shape]`, and logits are `[N, num_actions]`.
  """
  def forward(observations: jax.Array) -> jax.Array:
    features = torso(hidden_sizes)(observations)
    return hk.Linear(num_actions, name='logits')(features)

  return hk.without_apply_rng(hk.transform(forward))
