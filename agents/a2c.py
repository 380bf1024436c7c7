"""Advantage actor-critic (A2C) on RLax losses and an Optax optimizer.

Learns from fixed-length unrolls: λ-returns bootstrapped from the critic
(`rlax.lambda_returns`), `rlax.policy_gradient_loss` on the advantages,
`rlax.entropy_loss`, and a squared-error value loss. Returns are cut at
episode ends; truncated episodes are treated as ends too (their next
observation is not in the unroll). Illegal actions are masked when acting
and in the losses.
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
    max_grad_norm: clip gradients to this global norm; None disables.
  """
  learning_rate: float = 1e-3
  discount: float = 0.99
  td_lambda: float = 0.95
  unroll_length: int = 16
  batch_size: int = 2
  entropy_cost: float = 0.01
  value_cost: float = 0.5
  max_grad_norm: Optional[float] = 0.5

  def __post_init__(self):
    for name in ('discount', 'td_lambda'):
      if not 0.0 <= getattr(self, name) <= 1.0:
        raise ValueError(f'{name} must be in [0, 1]; got '
                         f'{getattr(self, name)}.')
    for name in ('unroll_length', 'batch_size'):
      if getattr(self, name) < 1:
        raise ValueError(f'{name} must be >= 1; got {getattr(self, name)}.')
    if self.learning_rate <= 0:
      raise ValueError(
          f'learning_rate must be > 0; got {self.learning_rate}.')


def bootstrapped_values(values: jax.Array,
                        final_values: jax.Array) -> jax.Array:
  """`[T, B]` v(o_{t+1}): the next step's value, then the final value."""
  return jnp.concatenate([values[1:], final_values[None]], axis=0)


def continuation_discounts(trajectory: agent_lib.Trajectory,
                           discount: float) -> jax.Array:
  """`[T, B]` γ·d_{t+1}, zero where an episode ended (no bootstrapping)."""
  return discount * trajectory.discounts * (
      1.0 - trajectory.last.astype(jnp.float32))


def masked_actor_critic(network: hk.Transformed,
                        environment_spec: specs.EnvironmentSpec):
  """`(params, observations) -> (logits with illegal masked, values)`."""
  num_actions = environment_spec.num_actions

  def forward(params: hk.Params, observations: jax.Array):
    logits, values = network.apply(params, observations)
    chex.assert_shape(logits, (observations.shape[0], num_actions))
    return action_masking.mask_for(environment_spec, observations,
                                   logits), values

  return forward


def make_agent(config: A2CConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """A2C around an actor-critic `network` (obs -> (logits, values))."""
  transforms = []
  if config.max_grad_norm is not None:
    transforms.append(optax.clip_by_global_norm(config.max_grad_norm))
  optimizer = optax.chain(*transforms, optax.adam(config.learning_rate))

  forward = masked_actor_critic(network, environment_spec)

  def init(key: jax.Array) -> agent_lib.TrainingState:
    return agent_lib.init_training_state(
        network, environment_spec.observations, optimizer, key)

  def act(params, key, observations):
    logits, _ = forward(params, observations)
    return jax.random.categorical(key, logits).astype(jnp.int32), {}

  def action_probabilities(params, observations):
    logits, _ = network.apply(params, observations)
    return action_masking.policy_probabilities(environment_spec,
                                               observations, logits)

  def loss_fn(params, trajectory: agent_lib.Trajectory):
    t, b = trajectory.actions.shape
    flat = lambda x: x.reshape((t * b,) + x.shape[2:])
    logits, values = forward(params, flat(trajectory.observations))
    values = values.reshape(t, b)
    _, final_values = forward(params, trajectory.final_observations)
    returns = jax.vmap(rlax.lambda_returns, in_axes=(1, 1, 1, None),
                       out_axes=1)(
                           trajectory.rewards,
                           continuation_discounts(trajectory, config.discount),
                           bootstrapped_values(values, final_values),
                           config.td_lambda)
    returns = jax.lax.stop_gradient(returns)
    advantages = returns - values
    weights = trajectory.mask
    scale = (t * b) / jnp.maximum(weights.sum(), 1.0)
    pg_loss = scale * rlax.policy_gradient_loss(
        logits, flat(trajectory.actions), flat(advantages), flat(weights))
    entropy_loss = scale * rlax.entropy_loss(logits, flat(weights))
    value_loss = 0.5 * jnp.sum(weights * advantages**2) / jnp.maximum(
        weights.sum(), 1.0)
    loss = (pg_loss + config.value_cost * value_loss +
            config.entropy_cost * entropy_loss)
    return loss, {'loss': loss, 'policy_loss': pg_loss,
                  'value_loss': value_loss, 'entropy': -entropy_loss}

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    grads, metrics = jax.grad(loss_fn, has_aux=True)(state.params,
                                                     trajectory)
    updates, opt_state = optimizer.update(grads, state.opt_state,
                                          state.params)
    params = optax.apply_updates(state.params, updates)
    metrics = dict(metrics, grad_norm=optax.global_norm(grads))
    new_state = agent_lib.TrainingState(params, opt_state, state.key,
                                        state.updates + 1)
    return new_state, metrics

  return agent_lib.Agent(
      init=init,
      actor_params=lambda state: state.params,
      act=act,
      update=update,
      action_probabilities=action_probabilities,
      data=agent_lib.DataRequirements(batch_size=config.batch_size,
                                      unroll_length=config.unroll_length))
