"""IMPALA (Espeholt et al., 2018): an actor-critic whose actors may act with
older params than the learner's, corrected by V-trace.

The actors record the log-probability of each action under the params they
acted with (the behaviour policy μ); the learner weighs each step by the
truncated importance ratio ρ = min(ρ̄, π/μ) of its own policy π, through
`rlax.vtrace_td_error_and_advantage`: the value targets are V-trace's
n-step returns (λ = `vtrace_lambda`, traces c = min(1, π/μ)) and the policy
gradient's advantage `ρ_pg (r + γ v_s' − V(s))`. Returns stop at
terminations and bootstrap through time limits from the value of the
observation the limit cut off, as A2C's (`returns.with_time_limit_values`).

`actor_lag` sets how many updates the actors' params trail the learner's:
the learner state keeps the params of the last `actor_lag` updates and
`actor_params` gives the oldest, so the lag is the same exactly in the compiled loop and
the Python loop (0: on-policy, ρ = 1 up to float rounding: A2C with λ = 1
returns). Evaluations and the export play the actors' params too, so with
a lag they are that many updates behind the learner's. Each update
reports the importance ratios it saw (`rho_mean`, `rho_clipped`: the
fraction above ρ̄), which measure the lag's effect.
"""

import dataclasses
from typing import Any, Dict, NamedTuple, Optional, Tuple

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
class IMPALAConfig:
  """IMPALA hyperparameters.

  Attributes:
    learning_rate: Adam step size.
    discount: γ.
    unroll_length: steps per sequence (T).
    batch_size: sequences per update (B).
    entropy_cost: weight of the entropy bonus.
    value_cost: weight of the value loss (½ V-trace error²).
    vtrace_lambda: λ of V-trace's traces (1: the paper's).
    clip_rho_threshold: ρ̄, the truncation of the importance ratios in the
      value targets.
    clip_pg_rho_threshold: the truncation of those in the policy gradient.
    actor_lag: updates the actors' params trail the learner's (0: they act
      with the learner's latest; V-trace corrects any lag).
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how); None disables.
  """
  learning_rate: float = 1e-3
  discount: float = 0.99
  unroll_length: int = 16
  batch_size: int = 8
  entropy_cost: float = 0.01
  value_cost: float = 0.5
  vtrace_lambda: float = 1.0
  clip_rho_threshold: float = 1.0
  clip_pg_rho_threshold: float = 1.0
  actor_lag: int = 0
  max_grad_norm: Optional[float] = 40.0
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def __post_init__(self):
    config_checks.check_unit_interval(self, 'discount', 'vtrace_lambda')
    config_checks.check_positive_integer(self, 'unroll_length', 'batch_size')
    config_checks.check_positive(self, 'learning_rate', 'clip_rho_threshold',
                                 'clip_pg_rho_threshold')
    config_checks.check_non_negative(self, 'entropy_cost', 'value_cost')
    if (isinstance(self.actor_lag, bool) or
        not isinstance(self.actor_lag, int) or self.actor_lag < 0):
      raise ValueError(f'IMPALAConfig.actor_lag must be an integer >= 0; '
                       f'got {self.actor_lag!r}.')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)
    optimizers.check_gradient_clipping(self)

  def batch_splits(self) -> Dict[str, int]:
    """Nothing beyond the environments: its batch splits wherever they do
    (`agents.registry.batch_splits`)."""
    return {}


class IMPALAState(NamedTuple):
  """The learner's params and optimizer state, and the params its actors
  act with.

  Attributes:
    training: params, optimizer state, key and update count.
    lagged_params: the params before each of the last `actor_lag`
      updates, oldest first, stacked on a leading axis (None when
      `actor_lag` is 0).
  """
  training: agent_lib.TrainingState
  lagged_params: Optional[hk.Params]


def loss(logits: jax.Array, values: jax.Array, next_values: jax.Array,
         trajectory: agent_lib.Trajectory, config: IMPALAConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """IMPALA's loss over a `[T, B]` batch: V-trace's policy gradient
  (`rlax.vtrace_td_error_and_advantage`) weighted by ρ_pg-corrected
  advantages, ½ the squared V-trace error and the entropy bonus, each a
  mean over the real steps; plus the importance ratios seen.

  Args:
    logits: `[T·B, A]` under the learner's params, illegal actions masked.
    values: `[T, B]` v(o_t), with gradient.
    next_values: `[T, B]` v(o_{t+1}) of each step's own episode, without
      gradient (`on_policy.PolicyNetwork.next_values`).
    trajectory: the batch, with the actors' `behaviour_log_prob` extras.
    config: discount, V-trace's λ and truncations, the losses' weights.
  """
  t, b = trajectory.actions.shape
  flat = agent_lib.flatten_steps
  log_probs = jnp.take_along_axis(
      jax.nn.log_softmax(logits), flat(trajectory.actions)[:, None],
      -1)[:, 0].reshape(t, b)
  rhos = jnp.exp(jax.lax.stop_gradient(log_probs) -
                 trajectory.extras['behaviour_log_prob'])
  vtrace = jax.vmap(
      lambda v_tm1, v_t, r_t, d_t, rho: rlax.vtrace_td_error_and_advantage(
          v_tm1, v_t, r_t, d_t, rho, config.vtrace_lambda,
          config.clip_rho_threshold, config.clip_pg_rho_threshold),
      in_axes=1, out_axes=1)(
          values,
          returns_lib.bootstrapped_values(values, next_values[-1]),
          returns_lib.with_time_limit_values(
              trajectory.rewards, trajectory, next_values, config.discount),
          returns_lib.continuation_discounts(trajectory, config.discount),
          rhos)
  weights = trajectory.mask
  pg_loss, entropy_loss = policy_gradient.masked_losses(
      logits, flat(trajectory.actions), flat(vtrace.pg_advantage),
      flat(weights))
  # A mean over the real steps of the whole batch (every device's share).
  real = jnp.maximum(data_parallel.total(weights.sum()), 1.0)
  value_loss = 0.5 * jnp.sum(weights * vtrace.errors**2) / real
  loss_value = (pg_loss + config.value_cost * value_loss +
                config.entropy_cost * entropy_loss)
  return loss_value, {
      'loss': loss_value, 'policy_loss': pg_loss, 'value_loss': value_loss,
      'entropy': -entropy_loss,
      'rho_mean': jnp.sum(weights * rhos) / real,
      # Beyond float rounding: an on-policy step's ratio is 1 ± 1e-6.
      'rho_clipped': jnp.sum(weights * (
          rhos > config.clip_rho_threshold * (1 + 1e-3))) / real}


def _behaviour_log_prob(logits, values, actions) -> agent_lib.Extras:
  """What the actors record: log μ(a|s) of the params they acted with
  (a gather, as `loss` takes π's: `policy_heads.categorical_log_prob`'s
  one-hot product would round differently and change the runs)."""
  del values
  return {'behaviour_log_prob': jnp.take_along_axis(
      jax.nn.log_softmax(logits), actions[:, None], -1)[:, 0]}


def make_agent(config: IMPALAConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed) -> agent_lib.Agent[IMPALAState]:
  """IMPALA around an actor-critic `network` (obs -> (logits, values))."""
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping)
  policy = on_policy.PolicyNetwork(network, environment_spec, 'IMPALA',
                                   recurrent_ok=False)
  init_training = on_policy.init_state(network, environment_spec, optimizer)

  def init(key: jax.Array) -> IMPALAState:
    training = init_training(key)
    lagged = None
    if config.actor_lag:
      lagged = jax.tree.map(
          lambda x: jnp.repeat(x[None], config.actor_lag, axis=0),
          training.params)
    return IMPALAState(training, lagged)

  def actor_params(state: IMPALAState) -> hk.Params:
    if state.lagged_params is None:
      return state.training.params
    return jax.tree.map(lambda x: x[0], state.lagged_params)

  def loss_fn(params: hk.Params, trajectory: agent_lib.Trajectory
             ) -> Tuple[jax.Array, Any]:
    logits, values, _ = policy.outputs(params, trajectory.observations,
                                       trajectory.extras)
    return loss(logits, values, policy.next_values(params, trajectory),
                trajectory, config)

  def update(state: IMPALAState, trajectory: agent_lib.Trajectory
            ) -> Tuple[IMPALAState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.mask], 2)
    chex.assert_equal_shape([trajectory.actions,
                             trajectory.extras['behaviour_log_prob']])
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    training, metrics = on_policy.gradient_step(
        loss_fn, optimizer, state.training, trajectory)
    lagged = state.lagged_params
    if lagged is not None:  # Drop the oldest; queue the params just left.
      lagged = jax.tree.map(
          lambda queue, old: jnp.concatenate([queue[1:], old[None]]),
          lagged, state.training.params)
    return IMPALAState(training, lagged), metrics

  return on_policy.agent(
      policy, init, update,
      agent_lib.DataRequirements(batch_size=config.batch_size,
                                 unroll_length=config.unroll_length),
      actor_params=actor_params, record=_behaviour_log_prob)
