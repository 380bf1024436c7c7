"""Proximal policy optimisation (PPO, clipped) on RLax losses and Optax.

One algorithm over both kinds of action space: a categorical policy over
discrete actions (illegal ones masked), a diagonal Gaussian over continuous
ones (`agents.policy_heads`; optionally tanh-squashed into the bounds).
Only the distribution differs; every loss and update below is shared.

Per update: GAE advantages (`rlax.truncated_generalized_advantage_estimation`)
from the values recorded while acting (cut at terminations; at a time
limit bootstrapped from the value of the observation it cut off,
`returns.with_time_limit_values`), then several epochs of shuffled
minibatches of the clipped surrogate (`rlax.clipped_surrogate_pg_loss`), a
clipped value loss and an entropy bonus, with global-norm gradient clipping
and optional linear learning-rate annealing. All of it is one pure function,
so the epochs run under `lax.scan` inside the caller's `jit`. The loss
(`loss`) is this module's; acting, recurrence and the epochs are the
on-policy skeleton's (`agents.on_policy`).

Split over devices (`agents.data_parallel`), every device gathers the whole
batch and draws the same shuffles, then computes the loss and gradients of
its share of each minibatch; gradients, advantage statistics and metrics
are averaged over devices. The minibatches are therefore those of one
device holding the whole batch, and so are the updates (to float rounding).

With a recurrent network (`networks.recurrent`, discrete actions) PPO acts
step by step with its state (`agents.on_policy`) and its minibatches
are whole sequences, each replayed from the state it began with, so
`num_minibatches` must divide `batch_size`.
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
from agents import minibatches
from agents import on_policy
from agents import optimizers
from agents import returns as returns_lib
from environments import specs


@dataclasses.dataclass(frozen=True)
class PPOConfig(minibatches.MinibatchSettings):
  """PPO hyperparameters (defaults: the common CartPole setting).

  Attributes:
    learning_rate: initial Adam step size.
    learning_rate_decay_updates: if set, anneal the step size linearly to 0
      over this many updates (e.g. total steps / (unroll · batch)).
    anneal_learning_rate: anneal the step size linearly to 0 over the
      run's step budget: the framework sets `learning_rate_decay_updates`
      from `--num_steps` (`optimizers.fit_decay_to_budget`).
    discount: γ.
    gae_lambda: λ of GAE.
    clip_epsilon: ratio clipping of the surrogate.
    value_clip_epsilon: clip value updates to this range around the old
      values; None disables value clipping.
    entropy_cost: weight of the entropy bonus.
    value_cost: weight of the value loss.
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how).
    unroll_length: steps per sequence (T).
    batch_size: sequences per update (B).
    num_epochs: passes over each batch.
    num_minibatches: minibatches per epoch; must divide T·B (with a
      recurrent network, whose minibatches are whole sequences: B).
    normalize_advantages: standardise advantages per minibatch.
    reward_scale: rewards are multiplied by this before the returns and
      advantages (continuous-control tasks such as Pendulum, whose rewards
      reach -16 a step, learn better with values near 1).
    squash_actions: continuous actions only: a tanh-squashed Gaussian
      rescaled into the action bounds (which must be finite), instead of a
      plain Gaussian whose samples the environment clips.
  """
  learning_rate: float = 2.5e-4
  learning_rate_decay_updates: Optional[int] = None
  anneal_learning_rate: bool = False
  discount: float = 0.99
  gae_lambda: float = 0.95
  clip_epsilon: float = 0.2
  value_clip_epsilon: Optional[float] = 0.2
  entropy_cost: float = 0.01
  value_cost: float = 0.5
  max_grad_norm: float = 0.5
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  unroll_length: int = 128
  batch_size: int = 4
  num_epochs: int = 4
  num_minibatches: int = 4
  normalize_advantages: bool = True
  reward_scale: float = 1.0
  squash_actions: bool = False
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def __post_init__(self):
    config_checks.check_unit_interval(self, 'discount', 'gae_lambda')
    config_checks.check_positive_integer(self, 'unroll_length', 'batch_size',
                                         'num_epochs', 'num_minibatches')
    self.check_minibatches()
    config_checks.check_positive(self, 'learning_rate', 'clip_epsilon',
                                 'max_grad_norm', 'reward_scale')
    optimizers.check_gradient_clipping(self)
    config_checks.check_positive(self, 'value_clip_epsilon', allow_none=True)


def _standardize(advantages: jax.Array) -> jax.Array:
  """Advantages less their mean, over their standard deviation, both of
  the whole minibatch (every device's equal share of it)."""
  local_mean = advantages.mean()
  mean = data_parallel.mean(local_mean)
  std = jnp.sqrt(data_parallel.mean(advantages.var() +
                                    jnp.square(local_mean - mean)))
  return (advantages - mean) / (std + 1e-8)


def advantages(trajectory: agent_lib.Trajectory, next_values: jax.Array,
               config: PPOConfig) -> jax.Array:
  """`[T, B]` GAE advantages (`rlax.truncated_generalized_advantage_estimation`)
  of the values the actors recorded (`extras['value']`), bootstrapped from
  `next_values` (`on_policy.PolicyNetwork.next_values`: the last row ends
  the unroll, the others count at time limits); 0 on padding."""
  values = trajectory.extras['value']
  gae = jax.vmap(
      rlax.truncated_generalized_advantage_estimation,
      in_axes=(1, 1, None, 1), out_axes=1)(
          returns_lib.with_time_limit_values(
              trajectory.rewards * config.reward_scale, trajectory,
              next_values, config.discount),
          returns_lib.continuation_discounts(trajectory, config.discount),
          config.gae_lambda,
          returns_lib.values_with_final(values, next_values[-1]))
  # Padding (mask 0) gets no advantage, so it exerts no policy gradient.
  return gae * trajectory.mask


def loss(log_probs: jax.Array, entropy_loss: jax.Array, values: jax.Array,
         batch: Dict[str, jax.Array], config: PPOConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """PPO's loss over a minibatch of M steps: the clipped surrogate
  (`rlax.clipped_surrogate_pg_loss`), ½ the (optionally clipped) squared
  value error and the entropy bonus.

  Args:
    log_probs: `[M]` log π(a|s) of the actions under the current params.
    entropy_loss: `[]` minus the mean entropy of the current policy.
    values: `[M]` v(o) under the current params.
    batch: `log_prob` and `value` recorded when acting, `advantages` and
      `returns` (advantages + recorded values), `actions`, each `[M]`.
    config: the clipping, the weights and whether advantages are
      standardized over the minibatch.
  """
  ratios = jnp.exp(log_probs - batch['log_prob'])
  advantages = batch['advantages']
  if config.normalize_advantages:
    advantages = _standardize(advantages)
  policy_loss = rlax.clipped_surrogate_pg_loss(ratios, advantages,
                                               config.clip_epsilon)
  value_error = (values - batch['returns'])**2
  if config.value_clip_epsilon is not None:
    clipped = batch['value'] + jnp.clip(values - batch['value'],
                                        -config.value_clip_epsilon,
                                        config.value_clip_epsilon)
    value_error = jnp.maximum(value_error, (clipped - batch['returns'])**2)
  value_loss = 0.5 * value_error.mean()
  loss_value = (policy_loss + config.value_cost * value_loss +
                config.entropy_cost * entropy_loss)
  return loss_value, {
      'loss': loss_value, 'policy_loss': policy_loss,
      'value_loss': value_loss, 'entropy': -entropy_loss,
      'clip_fraction': jnp.mean(jnp.abs(ratios - 1.0) > config.clip_epsilon),
  }


def make_agent(config: PPOConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """PPO around an actor-critic `network`: obs -> (logits, values) over
  discrete actions, obs -> (means, log_stds, values) over continuous ones;
  or a recurrent actor-critic (`networks.recurrent.RecurrentNetwork`).
  """
  if config.squash_actions and not environment_spec.is_continuous:
    raise ValueError('PPOConfig.squash_actions applies to continuous '
                     'actions; this environment\'s are discrete.')
  policy = on_policy.PolicyNetwork(network, environment_spec, 'PPO',
                                   squash_actions=config.squash_actions)
  if policy.recurrent and config.batch_size % config.num_minibatches:
    raise ValueError(
        f'PPOConfig.num_minibatches ({config.num_minibatches}) must divide '
        f'batch_size ({config.batch_size}) with a recurrent network: its '
        f'minibatches are whole sequences.')
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping, eps=1e-5,
      decay_steps=optimizers.decay_optimizer_steps(config))
  head = policy.head

  def minibatch_loss(params, batch):
    (outputs, values), batch = policy.minibatch_outputs(params, batch)
    return loss(head.log_prob(outputs, batch['actions']),
                head.entropy_loss(outputs), values, batch, config)

  def update(
      state: agent_lib.TrainingState, trajectory: agent_lib.Trajectory
  ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.rewards, trajectory.mask], 2)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    gae = advantages(trajectory,
                     policy.next_values(state.params, trajectory), config)
    values = trajectory.extras['value']
    data = {'observations': trajectory.observations,
            'actions': trajectory.actions,
            'log_prob': trajectory.extras['log_prob'],
            'value': values, 'advantages': gae, 'returns': gae + values,
            **policy.sequence_fields(trajectory)}
    return on_policy.minibatch_epochs(
        minibatch_loss, optimizer, state, data, config.num_epochs,
        config.num_minibatches, whole_sequences=policy.recurrent)

  return on_policy.agent(
      policy, on_policy.init_state(network, environment_spec, optimizer),
      update, agent_lib.DataRequirements(batch_size=config.batch_size,
                                         unroll_length=config.unroll_length),
      record=lambda outputs, values, actions: {
          'log_prob': head.log_prob(outputs, actions), 'value': values})
