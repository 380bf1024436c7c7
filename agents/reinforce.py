"""REINFORCE (Williams, 1992) on RLax losses and an Optax optimizer.

As in the Plane Strike reference trainer: sample whole episodes from the
policy, compute discounted returns (γ = 0.5 by default), and follow the policy
gradient weighted by those returns. Illegal moves are masked when acting and
inside the loss. Optionally subtract a baseline and add an entropy bonus.
"""

import dataclasses
from typing import Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import on_policy
from agents import optimizers
from agents import policy_gradient
from agents import returns as returns_lib
from environments import specs

BASELINES = ('none', 'batch_mean')


@dataclasses.dataclass(frozen=True)
class ReinforceConfig:
  """REINFORCE hyperparameters.

  Attributes:
    learning_rate: optimizer step size.
    optimizer: 'adam' or 'sgd'.
    discount: γ for the returns (the reference trainer uses 0.5).
    batch_size: whole episodes per update.
    baseline: 'none' (plain returns, as the reference) or 'batch_mean'
      (subtract the mean return of the batch's real steps).
    entropy_cost: weight of the entropy bonus (0 disables it).
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how); None disables.
  """
  learning_rate: float = 3e-3
  optimizer: str = 'adam'
  discount: float = 0.5
  batch_size: int = 16
  baseline: str = 'batch_mean'
  entropy_cost: float = 0.0
  max_grad_norm: Optional[float] = None
  gradient_clipping: str = optimizers.gradient_clipping_setting()

  def __post_init__(self):
    config_checks.check_one_of(self, 'baseline', BASELINES)
    config_checks.check_one_of(self, 'optimizer', optimizers.OPTIMIZERS)
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive_integer(self, 'batch_size')
    config_checks.check_positive(self, 'learning_rate')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)
    optimizers.check_gradient_clipping(self)

  def batch_splits(self) -> Dict[str, int]:
    """Nothing beyond the environments: its batch splits wherever they do
    (`agents.registry.batch_splits`)."""
    return {}


def advantages(trajectory: agent_lib.Trajectory, discount: float,
               baseline: str) -> Tuple[jax.Array, jax.Array]:
  """`(advantages [T, B], the mean return)`: each step's discounted return
  G_t (`returns.discounted_returns`), less the mean G_t of the batch's real
  steps (over every device's share) with the 'batch_mean' baseline."""
  returns = returns_lib.discounted_returns(trajectory, discount)
  mask = trajectory.mask
  mean_return = data_parallel.total((returns * mask).sum()) / jnp.maximum(
      data_parallel.total(mask.sum()), 1.0)
  if baseline == 'batch_mean':
    return returns - mean_return, mean_return
  return returns, mean_return


def loss(logits: jax.Array, actions: jax.Array, advantages: jax.Array,
         mask: jax.Array, entropy_cost: float
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """REINFORCE's loss over N steps: −A·log π(a|s) and the entropy bonus,
  each a mean over the real steps (`mask` 1; `policy_gradient`).

  Args:
    logits: `[N, A]`, illegal actions masked.
    actions: int `[N]`.
    advantages: `[N]` weights of the log-probabilities (no gradient).
    mask: `[N]`, 1 for real steps, 0 for padding.
    entropy_cost: weight of the entropy bonus.
  """
  pg_loss, entropy_loss = policy_gradient.masked_losses(logits, actions,
                                                        advantages, mask)
  return pg_loss + entropy_cost * entropy_loss, {'policy_loss': pg_loss,
                                                 'entropy': -entropy_loss}


def make_agent(config: ReinforceConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """Builds REINFORCE around a policy `network` (observations → logits),
  or a recurrent one (`networks.recurrent.RecurrentNetwork`), which acts
  with its state and whose loss replays each episode from its start."""
  optimizer = optimizers.make_optimizer(
      config.learning_rate, name=config.optimizer,
      max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping)
  policy = on_policy.PolicyNetwork(network, environment_spec, 'REINFORCE',
                                   has_values=False)

  def loss_fn(params: hk.Params, trajectory: agent_lib.Trajectory,
              advantages: jax.Array) -> Tuple[jax.Array, agent_lib.Metrics]:
    logits, _, _ = policy.outputs(params, trajectory.observations,
                                  trajectory.extras)
    flat = agent_lib.flatten_steps
    return loss(logits, flat(trajectory.actions), flat(advantages),
                flat(trajectory.mask), config.entropy_cost)

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    chex.assert_equal_shape([trajectory.actions, trajectory.rewards,
                             trajectory.discounts, trajectory.mask])
    weights, mean_return = advantages(trajectory, config.discount,
                                      config.baseline)
    state, metrics = on_policy.gradient_step(loss_fn, optimizer, state,
                                             trajectory, weights)
    # The mean discounted return from each step of the batch (the
    # batch_mean baseline), apart from the evaluations' undiscounted return.
    metrics['discounted_return'] = mean_return
    if config.entropy_cost:  # Else the loss is the policy loss: logged once.
      metrics['loss'] = (metrics['policy_loss'] +
                         config.entropy_cost * -metrics['entropy'])
    return state, metrics

  return on_policy.agent(
      policy, on_policy.init_state(network, environment_spec, optimizer),
      update, agent_lib.DataRequirements(batch_size=config.batch_size))
