"""Forward passes of policy networks with illegal actions masked.

The policy-gradient agents (REINFORCE, A2C, PPO) sample from, and take
losses of, logits whose illegal actions are pushed to a large negative value
(`action_masking.mask_logits`). These wrappers apply the network, check its
logits' shape and mask them, so every agent masks the same way. Networks
output either logits (a policy) or `(logits, values)` (an actor-critic).
"""

from typing import Callable, Tuple

import chex
import haiku as hk
import jax

from agents import action_masking
from environments import specs

PolicyFn = Callable[[hk.Params, jax.Array], jax.Array]
ActorCriticFn = Callable[[hk.Params, jax.Array], Tuple[jax.Array, jax.Array]]


def _checked_masked_logits(environment_spec: specs.EnvironmentSpec,
                           observations: jax.Array,
                           logits: jax.Array) -> jax.Array:
  chex.assert_shape(logits, (observations.shape[0],
                             environment_spec.num_actions))
  return action_masking.mask_for(environment_spec, observations, logits)


def masked_policy(network: hk.Transformed,
                  environment_spec: specs.EnvironmentSpec) -> PolicyFn:
  """`(params, observations [N, ...]) -> logits [N, A]`, illegal masked."""

  def forward(params: hk.Params, observations: jax.Array) -> jax.Array:
    return _checked_masked_logits(environment_spec, observations,
                                  network.apply(params, observations))

  return forward


def masked_actor_critic(network: hk.Transformed,
                        environment_spec: specs.EnvironmentSpec
                       ) -> ActorCriticFn:
  """`(params, observations [N, ...]) -> (logits [N, A] with illegal masked,
  values [N])`."""

  def forward(params: hk.Params,
              observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
    logits, values = network.apply(params, observations)
    return _checked_masked_logits(environment_spec, observations,
                                  logits), values

  return forward


def policy_probabilities(network: hk.Transformed,
                         environment_spec: specs.EnvironmentSpec,
                         has_values: bool = False) -> PolicyFn:
  """`(params, observations [N, ...]) -> [N, A]`: the deployable policy
  (`Agent.deployable_policy`), softmax over legal actions, 0 on illegal.

  Args:
    network: the agent's network.
    environment_spec: gives the legal actions.
    has_values: the network outputs `(logits, values)`; values are dropped.
  """

  def probabilities(params: hk.Params, observations: jax.Array) -> jax.Array:
    logits = network.apply(params, observations)
    if has_values:
      logits, _ = logits
    return action_masking.policy_probabilities(environment_spec,
                                               observations, logits)

  return probabilities
