"""Actor-critic network: a shared torso with policy-logit and value heads."""

from typing import Callable, Optional, Sequence, Tuple

import haiku as hk
import jax

from networks import mlp

_DEFAULT_HIDDEN = (64, 64)


def make_actor_critic_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
) -> hk.Transformed:
  """MLP torso shared by a policy head and a value head.

  Args:
    num_actions: number of discrete actions.
    hidden_sizes: torso widths; default (64, 64).
    activation: torso activation; tanh as in the common PPO setting.

  Returns:
    `apply(params, observations [N, ...]) -> (logits [N, A], values [N])`.
  """
  hidden_sizes = _DEFAULT_HIDDEN if hidden_sizes is None else hidden_sizes

  def forward(observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
    torso = mlp.MLPTorso(hidden_sizes, activation=activation)(observations)
    logits = hk.Linear(num_actions, name='policy')(torso)
    values = hk.Linear(1, name='value')(torso)[..., 0]
    return logits, values

  return hk.without_apply_rng(hk.transform(forward))
