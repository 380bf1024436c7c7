"""Q-networks: observations to Q-values per action, as pure transforms.

With `num_atoms`, each action gets a distribution of its return instead of
one value: `num_atoms` logits over fixed atoms (C51) or quantiles (QR-DQN),
which the agent reads (`agents.value_distributions`).
"""

from typing import Optional, Sequence, Tuple

import haiku as hk
import jax
import numpy as np

from networks import mlp

DEFAULT_HIDDEN_SIZES = mlp.DEFAULT_HIDDEN_SIZES


def _check(num_actions: int, num_atoms: Optional[int]) -> Tuple[int, ...]:
  """The per-observation output shape: `[A]`, or `[A, K]` with atoms."""
  if num_actions < 1:
    raise ValueError(f'num_actions must be >= 1; got {num_actions}.')
  if num_atoms is None:
    return (num_actions,)
  if num_atoms < 2:
    raise ValueError(f'num_atoms must be >= 2; got {num_atoms}.')
  return (num_actions, num_atoms)


def _linear(features: jax.Array, shape: Tuple[int, ...],
            name: str) -> jax.Array:
  """A linear layer of `prod(shape)` outputs, shaped `[N, *shape]`."""
  outputs = hk.Linear(int(np.prod(shape)), name=name)(features)
  return outputs.reshape(features.shape[:1] + shape)


def make_q_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso,
    num_atoms: Optional[int] = None) -> hk.Transformed:
  """Q-network: a torso (default the MLP: flatten → hidden ReLU layers) →
  `num_actions` Q-values.

  The head is linear (no activation), since Q-values are unbounded returns.

  Args:
    num_actions: number of discrete actions (Q-values per observation).
    hidden_sizes: hidden layer widths; None: the torso's default
      (`DEFAULT_HIDDEN_SIZES` for the MLP).
    torso: builds the torso from `hidden_sizes` (default: the MLP; e.g.
      `conv.ConvTorso` for images).
    num_atoms: None: one value per action; else `num_atoms` outputs per
      action (a return distribution's logits or quantiles).

  Returns:
    `init(key, observations)` and `apply(params, observations)`; observations
    are batched, `[N, *observation_shape]`, and Q-values are
    `[N, num_actions]` (`[N, num_actions, num_atoms]` with atoms).
  """
  shape = _check(num_actions, num_atoms)

  def forward(observations: jax.Array) -> jax.Array:
    return _linear(torso(hidden_sizes)(observations), shape, 'q_values')

  return hk.without_apply_rng(hk.transform(forward))


def make_dueling_q_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso,
    num_atoms: Optional[int] = None) -> hk.Transformed:
  """Dueling Q-network (Wang et al., 2016): a torso, then a value stream
  and an advantage stream (one ReLU layer as wide as the torso's output,
  then linear), combined as Q(s, a) = V(s) + A(s, a) − mean_a A(s, a)
  (per atom, with `num_atoms`, as in Rainbow).

  Takes the arguments of `make_q_network` and gives the same outputs, so
  every agent that acts by Q-values can use it
  (`--network=mlp_dueling_q_values`).
  """
  shape = _check(num_actions, num_atoms)

  def forward(observations: jax.Array) -> jax.Array:
    features = torso(hidden_sizes)(observations)
    width = features.shape[-1]

    def stream(stream_shape: Tuple[int, ...], name: str) -> jax.Array:
      hidden = jax.nn.relu(hk.Linear(width, name=f'{name}_hidden')(features))
      return _linear(hidden, stream_shape, name)

    advantages = stream(shape, 'advantages')
    return (stream((1,) + shape[1:], 'value') + advantages -
            advantages.mean(axis=1, keepdims=True))

  return hk.without_apply_rng(hk.transform(forward))
