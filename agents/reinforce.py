"""REINFORCE (Williams, 1992) on RLax losses and an Optax optimizer.

As in the Plane Strike reference trainer: sample whole episodes from the
policy, compute discounted returns (γ = 0.5 by default), and follow the policy
gradient weighted by those returns. Illegal moves are masked when acting and
inside the loss. Optionally subtract a baseline and add an entropy bonus.
"""

import dataclasses
from typing import Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax
import rlax

from agents import action_masking
from agents import agent as agent_lib
from environments import specs

BASELINES = ('none', 'batch_mean')
OPTIMIZERS = ('adam', 'sgd')


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
    if self.baseline not in BASELINES:
      raise ValueError(f'baseline must be one of {BASELINES}; got '
                       f'{self.baseline!r}.')
    if self.optimizer not in OPTIMIZERS:
      raise ValueError(f'optimizer must be one of {OPTIMIZERS}; got '
                       f'{self.optimizer!r}.')
    if not 0.0 <= self.discount <= 1.0:
      raise ValueError(f'discount must be in [0, 1]; got {self.discount}.')
    if self.batch_size < 1:
      raise ValueError(f'batch_size must be >= 1; got {self.batch_size}.')
    if self.learning_rate <= 0:
      raise ValueError(
          f'learning_rate must be > 0; got {self.learning_rate}.')


def _make_optimizer(config: ReinforceConfig) -> optax.GradientTransformation:
  optimizer = {'adam': optax.adam, 'sgd': optax.sgd}[config.optimizer]
  transforms = []
  if config.max_grad_norm is not None:
    transforms.append(optax.clip_by_global_norm(config.max_grad_norm))
  transforms.append(optimizer(config.learning_rate))
  return optax.chain(*transforms)


def discounted_returns(trajectory: agent_lib.Trajectory,
                       discount: float) -> jax.Array:
  """`[T, B]` returns G_t = r_{t+1} + γ d_{t+1} G_{t+1}, cut at episode ends."""
  continuation = discount * trajectory.discounts * (
      1.0 - trajectory.last.astype(jnp.float32))
  per_sequence = jax.vmap(
      lambda r, d: rlax.discounted_returns(r, d, jnp.zeros_like(r)),
      in_axes=1, out_axes=1)
  return per_sequence(trajectory.rewards, continuation)


def make_agent(config: ReinforceConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """Builds REINFORCE around a policy `network` (observations → logits)."""
  num_actions = environment_spec.num_actions
  optimizer = _make_optimizer(config)

  def logits_fn(params: hk.Params, observations: jax.Array) -> jax.Array:
    logits = network.apply(params, observations)
    chex.assert_shape(logits, (observations.shape[0], num_actions))
    return action_masking.mask_for(environment_spec, observations, logits)

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

  def action_probabilities(params: hk.Params,
                           observations: jax.Array) -> jax.Array:
    return action_masking.policy_probabilities(
        environment_spec, observations, network.apply(params, observations))

  def loss_fn(params: hk.Params, trajectory: agent_lib.Trajectory,
              advantages: jax.Array) -> Tuple[jax.Array, agent_lib.Metrics]:
    t, b = trajectory.actions.shape
    observations = trajectory.observations.reshape(
        (t * b,) + trajectory.observations.shape[2:])
    logits = logits_fn(params, observations)
    weights = trajectory.mask.reshape(-1)
    # RLax averages over all T·B entries; rescale to a mean over real steps.
    scale = (t * b) / jnp.maximum(weights.sum(), 1.0)
    pg_loss = scale * rlax.policy_gradient_loss(
        logits, trajectory.actions.reshape(-1), advantages.reshape(-1),
        weights)
    entropy_loss = scale * rlax.entropy_loss(logits, weights)
    loss = pg_loss + config.entropy_cost * entropy_loss
    return loss, {'policy_loss': pg_loss, 'entropy': -entropy_loss}

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    chex.assert_equal_shape([trajectory.actions, trajectory.rewards,
                             trajectory.discounts, trajectory.mask])
    returns = discounted_returns(trajectory, config.discount)
    mask = trajectory.mask
    mean_return = (returns * mask).sum() / jnp.maximum(mask.sum(), 1.0)
    advantages = returns
    if config.baseline == 'batch_mean':
      advantages = returns - mean_return
    grads, metrics = jax.grad(loss_fn, has_aux=True)(state.params, trajectory,
                                                     advantages)
    updates, opt_state = optimizer.update(grads, state.opt_state,
                                          state.params)
    params = optax.apply_updates(state.params, updates)
    loss = metrics['policy_loss'] + config.entropy_cost * -metrics['entropy']
    metrics = dict(metrics, loss=loss, mean_return=mean_return,
                   grad_norm=optax.global_norm(grads))
    new_state = agent_lib.TrainingState(params, opt_state, state.key,
                                        state.updates + 1)
    return new_state, metrics

  return agent_lib.Agent(
      init=init,
      actor_params=actor_params,
      act=act,
      update=update,
      action_probabilities=action_probabilities,
      data=agent_lib.DataRequirements(batch_size=config.batch_size))
