"""Q-networks: observations to one Q-value per action, as pure transforms."""

from typing import Optional, Sequence

import haiku as hk
import jax

from networks import mlp

DEFAULT_HIDDEN_SIZES = (64, 64)


def make_q_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None) -> hk.Transformed:
  """MLP Q-network: flatten → hidden ReLU layers → `num_actions` Q-values.

  The head is linear (no activation), since Q-values are unbounded returns.

  Args:
    num_actions: number of discrete actions (Q-values per observation).
    hidden_sizes: hidden layer widths; default `DEFAULT_HIDDEN_SIZES`.

  Returns:
    `init(key, observations)` and `apply(params, observations)`; observations
    are batched, `[N, *observation_shape]`, and Q-values are
    `[N, num_actions]`.
  """
  if num_actions < 1:
    raise ValueError(f'num_actions must be >= 1; got {num_actions}.')
  if hidden_sizes is None:
    hidden_sizes = DEFAULT_HIDDEN_SIZES

  def forward(observations: jax.Array) -> jax.Array:
    torso = mlp.MLPTorso(hidden_sizes)
    return hk.Linear(num_actions, name='q_values')(torso(observations))

  return hk.without_apply_rng(hk.transform(forward))
