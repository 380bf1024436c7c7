"""SAC's and TD3's networks: an actor and twin Q critics.

SAC's actor is a squashed Gaussian (means and log-stds); TD3's is
deterministic (one pre-tanh action). One `hk.multi_transform` holds actor
and critics, so a single `init` creates every
parameter and each function applies only its own: the actor's parameters
live under modules named `actor…`, the critics' under `critic…`
(`split_params` separates them for their two optimizers). ReLU MLPs of
(256, 256) by default, as in the SAC and TD3 papers.
"""

from typing import Callable, Optional, Sequence, Tuple

import haiku as hk
import jax
import jax.numpy as jnp

from networks import gaussian_actor_critic

DEFAULT_HIDDEN_SIZES = (256, 256)
ACTOR_PREFIX = 'actor'
CRITIC_PREFIX = 'critic'


def make_actor_twin_q_network(
    action_dim: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
    deterministic: bool = False,
) -> hk.MultiTransformed:
  """The actor and two Q critics.

  Args:
    action_dim: size of one action.
    hidden_sizes: widths of each MLP; default (256, 256).
    activation: hidden activation.
    deterministic: the actor gives one action (TD3's) instead of a
      Gaussian (SAC's).

  Returns:
    `init(key, observations [N, ...], actions [N, D])` and `apply` =
    `(actor, critic)`: `actor(params, observations) -> (means [N, D],
    log_stds [N, D])` of the Gaussian before squashing (log-stds bounded
    to `gaussian_actor_critic.LOG_STD_RANGE`), or, `deterministic`, the
    action before squashing `[N, D]`; and `critic(params,
    observations, actions) -> [N, 2]` Q-values, one column per critic.
  """
  if action_dim < 1:
    raise ValueError(f'action_dim must be >= 1; got {action_dim}.')
  hidden_sizes = tuple(DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                       else hidden_sizes)

  def mlp(output_size: int, name: str) -> hk.nets.MLP:
    return hk.nets.MLP(tuple(hidden_sizes) + (output_size,),
                       activation=activation, name=name)

  def flat(observations: jax.Array) -> jax.Array:
    return hk.Flatten(preserve_dims=1)(observations.astype('float32'))

  def build():
    actor_mlp = mlp(action_dim if deterministic else 2 * action_dim,
                    ACTOR_PREFIX)
    critics = [mlp(1, f'{CRITIC_PREFIX}_{i}') for i in range(2)]

    def actor(observations: jax.Array):
      if deterministic:
        return actor_mlp(flat(observations))
      means, raw = jnp.split(actor_mlp(flat(observations)), 2, axis=-1)
      return means, gaussian_actor_critic.bounded_log_std(raw)

    def critic(observations: jax.Array, actions: jax.Array) -> jax.Array:
      inputs = jnp.concatenate(
          [flat(observations), actions.astype(jnp.float32)], axis=-1)
      return jnp.concatenate([c(inputs) for c in critics], axis=-1)

    def init(observations: jax.Array, actions: jax.Array):
      return actor(observations), critic(observations, actions)

    return init, (actor, critic)

  return hk.without_apply_rng(hk.multi_transform(build))


def split_params(params: hk.Params) -> Tuple[hk.Params, hk.Params]:
  """`(actor_params, critic_params)` of the network's parameters."""
  critic, actor = hk.data_structures.partition(
      lambda module, name, value: module.startswith(CRITIC_PREFIX), params)
  return actor, critic
