"""Q-networks: observations to one Q-value per action, as pure transforms."""

from typing import Optional, Sequence

import haiku as hk
import jax

from networks import mlp

DEFAULT_HIDDEN_SIZES = mlp.DEFAULT_HIDDEN_SIZES


def make_q_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso) -> hk.Transformed:
  """Q-network: a torso (default the MLP: flatten → hidden ReLU layers) →
  `num_actions` Q-values.

  The head is linear (no activation), since Q-values are unbounded returns.

  Args:
    num_actions: number of discrete actions (Q-values per observation).
    hidden_sizes: hidden layer widths; None: the torso's default
      (`DEFAULT_HIDDEN_SIZES` for the MLP).
    torso: builds the torso from `hidden_sizes` (default: the MLP; e.g.
      `conv.ConvTorso` for images).

  Returns:
    `init(key, observations)` and `apply(params, observations)`; observations
    are batched, `[N, *observation_shape]`, and Q-values are
    `[N, num_actions]`.
  """
  if num_actions < 1:
    raise ValueError(f'num_actions must be >= 1; got {num_actions}.')

  def forward(observations: jax.Array) -> jax.Array:
    features = torso(hidden_sizes)(observations)
    return hk.Linear(num_actions, name='q_values')(features)

  return hk.without_apply_rng(hk.transform(forward))


def make_dueling_q_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso) -> hk.Transformed:
  """Dueling Q-network (Wang et al., 2016): a torso, then a value stream
  and an advantage stream (one ReLU layer as wide as the torso's output,
  then linear), combined as Q(s, a) = V(s) + A(s, a) − mean_a A(s, a).

  Takes the arguments of `make_q_network` and gives the same outputs
  (`[N, num_actions]` Q-values), so every agent that acts by Q-values can
  use it (`--network=mlp_dueling_q_values`).
  """
  if num_actions < 1:
    raise ValueError(f'num_actions must be >= 1; got {num_actions}.')

  def forward(observations: jax.Array) -> jax.Array:
    features = torso(hidden_sizes)(observations)
    width = features.shape[-1]

    def stream(size: int, name: str) -> jax.Array:
      hidden = jax.nn.relu(hk.Linear(width, name=f'{name}_hidden')(features))
      return hk.Linear(size, name=name)(hidden)

    advantages = stream(num_actions, 'advantages')
    return (stream(1, 'value') + advantages -
            advantages.mean(axis=-1, keepdims=True))

  return hk.without_apply_rng(hk.transform(forward))
