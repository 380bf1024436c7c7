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
import optax

from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import masked_forward
from agents import optimizers
from agents import policy_gradient
from agents import recurrent_policy
from agents import returns as returns_lib
from environments import specs
from networks import recurrent as recurrent_lib

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
    max_grad_norm: clip gradients to this global norm; None disables.
  """
  learning_rate: float = 3e-3
  optimizer: str = 'adam'
  discount: float = 0.5
  batch_size: int = 16
  baseline: str = 'batch_mean'
  entropy_cost: float = 0.0
  max_grad_norm: Optional[float] = None

  def __post_init__(self):
    config_checks.check_one_of(self, 'baseline', BASELINES)
    config_checks.check_one_of(self, 'optimizer', optimizers.OPTIMIZERS)
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive_integer(self, 'batch_size')
    config_checks.check_positive(self, 'learning_rate')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)

  def batch_splits(self) -> Dict[str, int]:
    """Nothing beyond the environments: its batch splits wherever they do
    (`agents.registry.batch_splits`)."""
    return {}


def make_agent(config: ReinforceConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """Builds REINFORCE around a policy `network` (observations → logits),
  or a recurrent one (`networks.recurrent.RecurrentNetwork`), which acts
  with its state and whose loss replays each episode from its start."""
  optimizer = optimizers.make_optimizer(config.learning_rate,
                                        name=config.optimizer,
                                        max_grad_norm=config.max_grad_norm)
  recurrent = recurrent_lib.is_recurrent(network)
  if recurrent:
    recurrent_policy.check_environment(environment_spec, 'REINFORCE')
  else:
    logits_fn = masked_forward.masked_policy(network, environment_spec)

  def init(key: jax.Array) -> agent_lib.TrainingState:
    return agent_lib.init_training_state(
        network, environment_spec.observations, optimizer, key)

  def actor_params(state: agent_lib.TrainingState) -> hk.Params:
    return state.params

  def act(params: hk.Params, key: jax.Array,
          observations: jax.Array) -> Tuple[jax.Array, agent_lib.Extras]:
    logits = logits_fn(params, observations)
    actions = jax.random.categorical(key, logits).astype(jnp.int32)
    return actions, {}

  def loss_fn(params: hk.Params, trajectory: agent_lib.Trajectory,
              advantages: jax.Array) -> Tuple[jax.Array, agent_lib.Metrics]:
    flat = agent_lib.flatten_steps
    if recurrent:
      logits, _, _ = recurrent_policy.replay(
          network, environment_spec, params, trajectory.observations,
          trajectory.extras)
      logits = flat(logits)
    else:
      logits = logits_fn(params, flat(trajectory.observations))
    pg_loss, entropy_loss = policy_gradient.masked_losses(
        logits, flat(trajectory.actions), flat(advantages),
        flat(trajectory.mask))
    loss = pg_loss + config.entropy_cost * entropy_loss
    return loss, {'policy_loss': pg_loss, 'entropy': -entropy_loss}

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    chex.assert_equal_shape([trajectory.actions, trajectory.rewards,
                             trajectory.discounts, trajectory.mask])
    returns = returns_lib.discounted_returns(trajectory, config.discount)
    mask = trajectory.mask
    # Over every device's share of the batch (`agents.data_parallel`).
    mean_return = data_parallel.total((returns * mask).sum()) / jnp.maximum(
        data_parallel.total(mask.sum()), 1.0)
    advantages = returns
    if config.baseline == 'batch_mean':
      advantages = returns - mean_return
    grads, metrics = jax.grad(loss_fn, has_aux=True)(state.params, trajectory,
                                                     advantages)
    # Each device's loss is its share of the whole batch's mean.
    grads, metrics = data_parallel.total((grads, metrics))
    # The mean discounted return from each step of the batch (the
    # batch_mean baseline), apart from the evaluations' undiscounted return.
    metrics = dict(metrics, discounted_return=mean_return,
                   grad_norm=optax.global_norm(grads))
    if config.entropy_cost:  # Else the loss is the policy loss: logged once.
      metrics['loss'] = (metrics['policy_loss'] +
                         config.entropy_cost * -metrics['entropy'])
    return agent_lib.apply_gradients(optimizer, state, grads), metrics

  if recurrent:
    return recurrent_policy.agent(
        init, actor_params, update,
        agent_lib.DataRequirements(batch_size=config.batch_size), network,
        environment_spec)
  return agent_lib.Agent(
      init=init,
      actor_params=actor_params,
      act=act,
      update=update,
      deployable_policy=masked_forward.policy_probabilities(
          network, environment_spec),
      data=agent_lib.DataRequirements(batch_size=config.batch_size))
