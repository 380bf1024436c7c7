"""Gaussian actor-critic networks for continuous actions (PPO).

Separate actor and critic MLPs, as in PureJaxRL's and CleanRL's continuous
PPO: the actor outputs the mean of a diagonal Gaussian over the
`action_dim` action components and its log standard deviation, either one
learned vector for every state (the common PPO choice) or a second head of
the actor (state-dependent). The critic outputs one value.
"""

from typing import Callable, Optional, Sequence, Tuple

import haiku as hk
import jax
import jax.numpy as jnp

from networks import actor_critic
from networks import mlp

# A state-dependent log-std head's output is bounded to this range (tanh
# rescaled), so a standard deviation never collapses to 0 or explodes.
LOG_STD_RANGE = (-5.0, 2.0)


def bounded_log_std(raw: jax.Array) -> jax.Array:
  """A head's raw output mapped smoothly into `LOG_STD_RANGE`."""
  low, high = LOG_STD_RANGE
  return low + 0.5 * (high - low) * (jnp.tanh(raw) + 1.0)


def make_gaussian_actor_critic_network(
    action_dim: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
    state_dependent_std: bool = False,
    initial_log_std: float = 0.0,
) -> hk.Transformed:
  """An actor MLP (Gaussian mean and log-std) and a critic MLP.

  Weights are orthogonal (sqrt 2 on hidden layers, 0.01 on the mean head,
  1.0 on the value head), biases zero, as in the discrete PPO networks.

  Args:
    action_dim: size of one action.
    hidden_sizes: widths of each MLP; default (64, 64).
    activation: hidden activation; tanh as in PureJaxRL.
    state_dependent_std: the log-std is a head of the actor (bounded to
      `LOG_STD_RANGE`); else one learned vector, the same in every state.
    initial_log_std: the state-independent log-std's initial value.

  Returns:
    `apply(params, observations [N, ...]) -> (means [N, D], log_stds
    [N, D], values [N])`.
  """
  if action_dim < 1:
    raise ValueError(f'action_dim must be >= 1; got {action_dim}.')
  hidden_sizes = tuple(mlp.DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                       else hidden_sizes)

  def torso(x: jax.Array, name: str) -> jax.Array:
    return hk.nets.MLP(
        hidden_sizes, activation=activation, activate_final=True,
        w_init=hk.initializers.Orthogonal(actor_critic.HIDDEN_INIT_SCALE),
        b_init=hk.initializers.Constant(0.0), name=f'{name}_torso')(x)

  def head(x: jax.Array, size: int, scale: float, name: str) -> jax.Array:
    return hk.Linear(size, name=name,
                     w_init=hk.initializers.Orthogonal(scale),
                     b_init=hk.initializers.Constant(0.0))(x)

  def forward(observations: jax.Array
             ) -> Tuple[jax.Array, jax.Array, jax.Array]:
    x = hk.Flatten(preserve_dims=1)(observations.astype('float32'))
    features = torso(x, 'policy')
    means = head(features, action_dim, actor_critic.POLICY_INIT_SCALE,
                 'policy_mean')
    if state_dependent_std:
      log_stds = bounded_log_std(
          head(features, action_dim, actor_critic.POLICY_INIT_SCALE,
               'policy_log_std'))
    else:
      log_std = hk.get_parameter(
          'log_std', (action_dim,), jnp.float32,
          init=hk.initializers.Constant(initial_log_std))
      log_stds = jnp.broadcast_to(log_std, means.shape)
    values = head(torso(x, 'value'), 1, actor_critic.VALUE_INIT_SCALE,
                  'value')[..., 0]
    return means, log_stds, values

  return hk.without_apply_rng(hk.transform(forward))
