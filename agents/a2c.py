"""Advantage actor-critic (A2C) on RLax losses and an Optax optimizer.

Learns from fixed-length unrolls: λ-returns bootstrapped from the critic
(`rlax.lambda_returns`), `rlax.policy_gradient_loss` on the advantages,
`rlax.entropy_loss`, and a squared-error value loss. Returns are cut at
terminations and bootstrap through time limits from the value of the
observation the limit cut off (`returns.with_time_limit_values`). Illegal
actions are masked when acting and in the losses. A recurrent network
(`networks.recurrent`) acts with its state and the loss replays each
sequence from the state it began with; acting, recurrence and the
update's shell are the on-policy skeleton's (`agents.on_policy`), the loss
(`loss`) this module's.
"""

import dataclasses
from typing import Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import rlax

from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import on_policy
from agents import optimizers
from agents import policy_gradient
from agents import returns as returns_lib
from environments import specs


@dataclasses.dataclass(frozen=True)
class A2CConfig:
  """A2C hyperparameters.

  Attributes:
    learning_rate: Adam step size.
    discount: γ.
    td_lambda: λ of the λ-returns (1 = Monte Carlo to the unroll end, 0 =
      one-step TD).
    unroll_length: steps per sequence (T).
    batch_size: sequences per update (B).
    entropy_cost: weight of the entropy bonus.
    value_cost: weight of the value loss.
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how); None disables.
  """
  learning_rate: float = 1e-3
  discount: float = 0.99
  td_lambda: float = 0.95
  unroll_length: int = 16
  batch_size: int = 2
  entropy_cost: float = 0.01
  value_cost: float = 0.5
  max_grad_norm: Optional[float] = 0.5
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def __post_init__(self):
    config_checks.check_unit_interval(self, 'discount', 'td_lambda')
    config_checks.check_positive_integer(self, 'unroll_length', 'batch_size')
    config_checks.check_positive(self, 'learning_rate')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)
    optimizers.check_gradient_clipping(self)

  def batch_splits(self) -> Dict[str, int]:
    """Nothing beyond the environments: its batch splits wherever they do
    (`agents.registry.batch_splits`)."""
    return {}


def loss(logits: jax.Array, values: jax.Array, next_values: jax.Array,
         trajectory: agent_lib.Trajectory, config: A2CConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """A2C's loss over a `[T, B]` batch: the policy gradient weighted by the
  advantage G^λ_t − v(o_t), ½ the squared advantage as the value loss and
  the entropy bonus, each a mean over the real steps (`trajectory.mask`).

  Args:
    logits: `[T·B, A]`, illegal actions masked.
    values: `[T, B]` v(o_t), with gradient.
    next_values: `[T, B]` v(o_{t+1}) of each step's own episode, without
      gradient (`on_policy.PolicyNetwork.next_values`): the last row
      bootstraps the unroll, the others count at time limits.
    trajectory: the batch.
    config: discount, λ and the losses' weights.
  """
  flat = agent_lib.flatten_steps
  returns = jax.vmap(rlax.lambda_returns, in_axes=(1, 1, 1, None),
                     out_axes=1)(
                         returns_lib.with_time_limit_values(
                             trajectory.rewards, trajectory, next_values,
                             config.discount),
                         returns_lib.continuation_discounts(
                             trajectory, config.discount),
                         returns_lib.bootstrapped_values(values,
                                                         next_values[-1]),
                         config.td_lambda)
  returns = jax.lax.stop_gradient(returns)
  advantages = returns - values
  weights = trajectory.mask
  pg_loss, entropy_loss = policy_gradient.masked_losses(
      logits, flat(trajectory.actions), flat(advantages), flat(weights))
  # A mean over the real steps of the whole batch (every device's share).
  value_loss = 0.5 * jnp.sum(weights * advantages**2) / jnp.maximum(
      data_parallel.total(weights.sum()), 1.0)
  loss_value = (pg_loss + config.value_cost * value_loss +
                config.entropy_cost * entropy_loss)
  return loss_value, {'loss': loss_value, 'policy_loss': pg_loss,
                      'value_loss': value_loss, 'entropy': -entropy_loss}


def make_agent(config: A2CConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """A2C around an actor-critic `network` (obs -> (logits, values)), or
  a recurrent one (`networks.recurrent.RecurrentNetwork`)."""
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping)
  policy = on_policy.PolicyNetwork(network, environment_spec, 'A2C')

  def loss_fn(params: hk.Params, trajectory: agent_lib.Trajectory
             ) -> Tuple[jax.Array, agent_lib.Metrics]:
    logits, values, final_state = policy.outputs(
        params, trajectory.observations, trajectory.extras)
    next_values = policy.next_values(params, trajectory, final_state)
    return loss(logits, values, next_values, trajectory, config)

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    return on_policy.gradient_step(loss_fn, optimizer, state, trajectory)

  return on_policy.agent(
      policy, on_policy.init_state(network, environment_spec, optimizer),
      update, agent_lib.DataRequirements(batch_size=config.batch_size,
                                         unroll_length=config.unroll_length))
