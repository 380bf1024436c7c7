"""What an actor-critic agent needs of its policy's distribution.

PPO is one algorithm over both kinds of action space; only the
distribution differs. A `PolicyHead` bundles the network's forward pass
with that distribution's sampling, log-probability, entropy bonus and
deployable outputs:

* `categorical_head`: discrete actions, logits with illegal actions masked
  (`masked_forward`), deployable policy = action probabilities;
* `gaussian_head`: continuous actions, a diagonal Gaussian
  (`gaussian_policies`), deployable policy = the deterministic action.

`policy_head` picks one from the environment's action spec.
"""

from typing import Any, Callable, NamedTuple, Optional, Tuple

import haiku as hk
import jax
import jax.numpy as jnp
import rlax

from agents import gaussian_policies
from agents import masked_forward
from environments import specs

PolicyOutputs = Any  # Logits [N, A], or (means [N, D], log_stds [N, D]).


class PolicyHead(NamedTuple):
  """An actor-critic network and its action distribution.

  Attributes:
    forward: `(params, observations [N, ...]) -> (outputs, values [N])`
      (values None for a policy network).
    sample: `(key, outputs) -> actions` (`[N]` int32 or `[N, D]` float32).
    log_prob: `(outputs, actions) -> [N]`.
    entropy_loss: `outputs -> []`, minus the mean entropy (the bonus's
      loss term).
    deployable_policy: `(params, observations) -> [N, A] probabilities or
      [N, D] deterministic actions` (`Agent.deployable_policy`).
  """
  forward: Callable[[hk.Params, jax.Array], Tuple[PolicyOutputs, jax.Array]]
  sample: Callable[[jax.Array, PolicyOutputs], jax.Array]
  log_prob: Callable[[PolicyOutputs, jax.Array], jax.Array]
  entropy_loss: Callable[[PolicyOutputs], jax.Array]
  deployable_policy: Callable[[hk.Params, jax.Array], jax.Array]


def categorical_log_prob(logits: jax.Array, actions: jax.Array) -> jax.Array:
  """log π(a|s) by a one-hot product (no gather: export-friendly)."""
  one_hot = jax.nn.one_hot(actions, logits.shape[-1])
  return jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1)


def categorical_head(network: Optional[hk.Transformed],
                     environment_spec: specs.EnvironmentSpec,
                     has_values: bool = True) -> PolicyHead:
  """Masked logits of an actor-critic `network` (obs -> (logits, values)),
  or of a policy network (obs -> logits: `has_values` False, its values
  None); `network` None: the distribution alone, for a recurrent network,
  whose forward passes carry a state (`agents.recurrent_policy`)."""
  if network is None:
    forward = deployable_policy = None
  else:
    if has_values:
      forward = masked_forward.masked_actor_critic(network, environment_spec)
    else:
      logits = masked_forward.masked_policy(network, environment_spec)
      forward = lambda params, observations: (logits(params, observations),
                                              None)
    deployable_policy = masked_forward.policy_probabilities(
        network, environment_spec, has_values=has_values)
  return PolicyHead(
      forward=forward,
      sample=lambda key, logits: jax.random.categorical(
          key, logits).astype(jnp.int32),
      log_prob=categorical_log_prob,
      entropy_loss=lambda logits: rlax.entropy_loss(
          logits, jnp.ones(logits.shape[:-1])),
      deployable_policy=deployable_policy)


def gaussian_head(network: hk.Transformed,
                  environment_spec: specs.EnvironmentSpec,
                  squashed: bool) -> PolicyHead:
  """A diagonal Gaussian from a Gaussian actor-critic `network` (obs ->
  (means, log_stds, values)); `squashed`: tanh into the action bounds
  (which must be finite)."""
  spec = environment_spec.actions
  action_dim = environment_spec.action_dim
  if squashed:
    gaussian_policies.check_squashable(spec, 'PPOConfig.squash_actions')

  def forward(params, observations):
    means, log_stds, values = network.apply(params, observations)
    if means.shape[-1] != action_dim:
      raise ValueError(f'The network gives {means.shape[-1]} action '
                       f'components; the environment has {action_dim}.')
    return (means, log_stds), values

  def deployable_policy(params, observations):
    (means, _), _ = forward(params, observations)
    return gaussian_policies.deterministic_actions(means, spec, squashed)

  return PolicyHead(
      forward=forward,
      sample=lambda key, outputs: gaussian_policies.sample(
          key, *outputs, spec, squashed)[0],
      log_prob=lambda outputs, actions: gaussian_policies.log_prob(
          *outputs, actions, spec, squashed),
      entropy_loss=lambda outputs: -jnp.mean(
          gaussian_policies.entropy(outputs[1])),
      deployable_policy=deployable_policy)


def policy_head(network: hk.Transformed,
                environment_spec: specs.EnvironmentSpec,
                squashed: bool = False) -> PolicyHead:
  """The head for the environment's action space (`squashed`: continuous
  actions only)."""
  if environment_spec.is_continuous:
    return gaussian_head(network, environment_spec, squashed)
  return categorical_head(network, environment_spec)
