"""TD3 (Fujimoto et al., 2018): twin delayed deep deterministic policy
gradient, with replay on the device.

A deterministic actor `μ(s) = squash(f(s))` inside the action bounds, twin
Q critics, and target copies of both, Polyak-averaged. As SAC, everything
the learner owns is one pytree of fixed-shape arrays, so `update` is a pure
function that jits alone (Python loop) or inside the compiled loop's
`lax.scan`.

Acting: uniformly random actions until the replay holds `min_replay_size`
transitions, then `clip(μ(s) + σ·ε)` with Gaussian exploration noise.

Each `update(state, trajectory)` call writes the trajectory's transitions
into the replay (`agents.replay`) and, once it holds `min_replay_size`,
takes `sgd_steps_per_update` SGD steps, each on its own uniformly sampled
minibatch; the three ideas of TD3 are in them:

  1. twin critics: `½ (Q_i(s, a) − y)²` for both, towards the smaller
     target, `y = r + γ d min_i Q̄_i(s', ã)`;
  2. target policy smoothing: `ã = clip(μ̄(s') + clip(σ̃·ε, −c, c))`;
  3. delayed actor: every `policy_delay`-th step, the actor ascends
     `Q_1(s, μ(s))` and the targets move, `θ̄ ← τ θ + (1 − τ) θ̄`.

The noise scales are in units of the action half-range (`(high − low)/2`,
the paper's `max_action`), so one setting serves any bounds. Time limits
bootstrap as in DQN and SAC (`replay.trajectory_transitions`).

Split over devices (`agents.data_parallel`), as SAC: every device inserts
the whole batch and draws the same minibatch and noise, computes the losses
of its share, and gradients and metrics are averaged over devices.
"""

import dataclasses
from typing import Any, Dict, NamedTuple, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import gaussian_policies
from agents import off_policy
from agents import optimizers
from agents import replay as replay_lib
from environments import continuous_actions
from environments import specs

_METRICS = ('critic_loss', 'actor_loss', 'mean_q', 'critic_grad_norm',
            'actor_updates')


@dataclasses.dataclass(frozen=True)
class TD3Config(off_policy.ReplaySettings):
  """TD3 hyperparameters (defaults: the TD3 paper's, as in CleanRL, but
  learning from 1,000 transitions instead of 25,000); the replay's are
  `off_policy.ReplaySettings`, with TD3's own meaning of two of them below.

  Attributes:
    actor_learning_rate: Adam step size of the actor.
    critic_learning_rate: Adam step size of the twin critics.
    discount: γ.
    tau: Polyak rate of the target actor and critics per actor update.
    min_replay_size: transitions stored before SGD starts; until then the
      actors act uniformly at random.
    sgd_steps_per_update: critic SGD steps per `update` call.
    policy_delay: critic steps per actor (and target) update.
    exploration_noise: std of the Gaussian added to the actor's actions
      while acting, in units of the action half-range.
    target_noise: std of the target-policy smoothing noise, in the same
      units.
    target_noise_clip: the smoothing noise is clipped to ± this, in the
      same units.
    max_grad_norm: clip each network's gradients to this size
      (`gradient_clipping` says how);
      None disables.
  """
  actor_learning_rate: float = 3e-4
  critic_learning_rate: float = 3e-4
  discount: float = 0.99
  tau: float = 0.005
  policy_delay: int = 2
  exploration_noise: float = 0.1
  target_noise: float = 0.2
  target_noise_clip: float = 0.5
  max_grad_norm: Optional[float] = None
  gradient_clipping: str = optimizers.gradient_clipping_setting()

  def __post_init__(self):
    super().__post_init__()
    config_checks.check_positive(self, 'actor_learning_rate',
                                 'critic_learning_rate')
    config_checks.check_unit_interval(self, 'discount', 'tau')
    config_checks.check_positive_integer(self, 'policy_delay')
    config_checks.check_non_negative(self, 'exploration_noise',
                                     'target_noise', 'target_noise_clip')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)
    optimizers.check_gradient_clipping(self)


class TD3State(NamedTuple):
  actor_params: hk.Params
  critic_params: hk.Params
  target_actor_params: hk.Params
  target_critic_params: hk.Params
  actor_opt_state: optax.OptState
  critic_opt_state: optax.OptState
  replay: replay_lib.Replay
  key: jax.Array
  learner_steps: jax.Array  # int32 [], critic SGD steps taken.


def smoothed_target_actions(actions: jax.Array, noise: jax.Array,
                            target_noise: float, noise_clip: float,
                            low: jax.Array, high: jax.Array) -> jax.Array:
  """Target-policy smoothing: `clip(a + clip(σ̃·ε, −c, c)·h, low, high)`
  for target actions `a` and standard normal `noise` `[N, D]`, with σ̃ and
  c in units of the half-range `h = (high − low)/2`."""
  half_range = 0.5 * (high - low)
  smoothing = jnp.clip(target_noise * noise, -noise_clip, noise_clip)
  return jnp.clip(actions + smoothing * half_range, low, high)


def critic_targets(batch: replay_lib.Transitions, next_q: jax.Array,
                   discount: float) -> jax.Array:
  """`[B]` TD targets r + γ·d·min Q'(s', ã') for smoothed target actions
  ã' (`smoothed_target_actions`)."""
  return batch.rewards + discount * batch.discounts * next_q


def actor_loss(q: jax.Array) -> jax.Array:
  """−Q₁(s, μ(s)), averaged: the deterministic policy gradient's loss on
  the first critic's values `q [B, 2]`."""
  return -jnp.mean(q[:, 0])


def make_agent(config: TD3Config, environment_spec: specs.EnvironmentSpec,
               network: hk.MultiTransformed) -> agent_lib.Agent[TD3State]:
  """TD3 around a deterministic actor-twin-Q `network`
  (`networks.actor_twin_q`, `deterministic=True`).

  Actor params are `{'actor': params, 'uniform': bool}` (act uniformly
  at random while the replay fills); `deployable_policy` is `μ(s)`.
  """
  spec = environment_spec.actions
  action_dim = environment_spec.action_dim
  gaussian_policies.check_squashable(spec, 'TD3')
  low, high = (jnp.asarray(bound, jnp.float32)
               for bound in continuous_actions.bounds(spec))
  half_range = 0.5 * (high - low)
  observation_spec = environment_spec.observations
  actor_apply, critic_apply = network.apply
  make = lambda lr: optimizers.make_optimizer(
      lr, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping)
  actor_optimizer = make(config.actor_learning_rate)
  critic_optimizer = make(config.critic_learning_rate)

  def policy(actor_params, observations):
    pre_tanh = actor_apply(actor_params, observations)
    chex.assert_shape(pre_tanh, (observations.shape[0], action_dim))
    return gaussian_policies.squash(pre_tanh, spec)

  def init(key: jax.Array) -> TD3State:
    init_key, state_key = jax.random.split(key)
    actor_params, critic_params = off_policy.init_actor_critic(
        network, init_key, environment_spec)
    # Copies, not the same buffers: the state may be donated to jit.
    copy = lambda params: jax.tree.map(jnp.copy, params)
    return TD3State(
        actor_params=actor_params, critic_params=critic_params,
        target_actor_params=copy(actor_params),
        target_critic_params=copy(critic_params),
        actor_opt_state=actor_optimizer.init(actor_params),
        critic_opt_state=critic_optimizer.init(critic_params),
        replay=replay_lib.init_replay(config.replay_capacity,
                                      observation_spec, spec),
        key=state_key, learner_steps=jnp.zeros((), jnp.int32))

  def actor_params(state: TD3State) -> Dict[str, Any]:
    return {'actor': state.actor_params,
            'uniform': state.replay.size < config.min_replay_size}

  def act(params: Dict[str, Any], key: jax.Array, observations: jax.Array
         ) -> Tuple[jax.Array, agent_lib.Extras]:
    noise_key, uniform_key = jax.random.split(key)
    shape = (observations.shape[0], action_dim)
    noisy = jnp.clip(policy(params['actor'], observations) +
                     config.exploration_noise * half_range *
                     jax.random.normal(noise_key, shape), low, high)
    uniform = jax.random.uniform(uniform_key, shape, minval=low, maxval=high)
    return jnp.where(params['uniform'], uniform, noisy), {}

  def deployable_policy(params: Dict[str, Any],
                        observations: jax.Array) -> jax.Array:
    return policy(params['actor'], observations)

  def critic_loss_fn(critic_params, state, batch, noise):
    next_actions = smoothed_target_actions(
        policy(state.target_actor_params, batch.next_observations), noise,
        config.target_noise, config.target_noise_clip, low, high)
    next_q = jnp.min(critic_apply(state.target_critic_params,
                                  batch.next_observations, next_actions), -1)
    return off_policy.twin_critic_loss(
        critic_apply(critic_params, batch.observations, batch.actions),
        critic_targets(batch, next_q, config.discount))

  def actor_loss_fn(actor_params, critic_params, batch):
    return actor_loss(critic_apply(
        critic_params, batch.observations,
        policy(actor_params, batch.observations)))

  def actor_step(state: TD3State, batch: replay_lib.Transitions):
    loss, grads = jax.value_and_grad(actor_loss_fn)(
        state.actor_params, state.critic_params, batch)
    loss, grads = data_parallel.mean((loss, grads))
    updates, actor_opt_state = actor_optimizer.update(
        grads, state.actor_opt_state, state.actor_params)
    actor_params = optax.apply_updates(state.actor_params, updates)
    state = state._replace(
        actor_params=actor_params, actor_opt_state=actor_opt_state,
        target_actor_params=optax.incremental_update(
            actor_params, state.target_actor_params, config.tau),
        target_critic_params=optax.incremental_update(
            state.critic_params, state.target_critic_params, config.tau))
    return state, (loss, jnp.ones(()))

  def no_actor_step(state: TD3State, batch: replay_lib.Transitions):
    # The loss still, so that its metric is not diluted by the delay.
    loss = data_parallel.mean(
        actor_loss_fn(state.actor_params, state.critic_params, batch))
    return state, (loss, jnp.zeros(()))

  def sgd_step(state: TD3State, replay: replay_lib.Replay,
               key: jax.Array) -> Tuple[TD3State, Dict]:
    sample_key, noise_key = jax.random.split(key)
    # Every device draws the same minibatch and noise, and takes its share.
    batch, noise = data_parallel.share((
        replay_lib.replay_sample(replay, sample_key, config.batch_size),
        jax.random.normal(noise_key, (config.batch_size, action_dim))),
                                       axis=0)
    (c_loss, mean_q), c_grads = jax.value_and_grad(
        critic_loss_fn, has_aux=True)(state.critic_params, state, batch,
                                      noise)
    c_loss, mean_q, c_grads = data_parallel.mean((c_loss, mean_q, c_grads))
    updates, critic_opt_state = critic_optimizer.update(
        c_grads, state.critic_opt_state, state.critic_params)
    learner_steps = state.learner_steps + 1
    state = state._replace(
        critic_params=optax.apply_updates(state.critic_params, updates),
        critic_opt_state=critic_opt_state, learner_steps=learner_steps)
    # Under vmap lax.cond becomes a select: both branches run.
    state, (a_loss, actor_updates) = jax.lax.cond(
        learner_steps % config.policy_delay == 0, actor_step,
        no_actor_step, state, batch)
    metrics = {'critic_loss': c_loss, 'actor_loss': a_loss,
               'mean_q': mean_q,
               'critic_grad_norm': optax.global_norm(c_grads),
               'actor_updates': actor_updates}
    return state, {k: jnp.asarray(v, jnp.float32) for k, v in metrics.items()}

  def no_step(state: TD3State, replay: replay_lib.Replay,
              key: jax.Array) -> Tuple[TD3State, Dict]:
    del replay, key
    return state, {k: jnp.zeros((), jnp.float32) for k in _METRICS}

  return agent_lib.Agent(
      init=init,
      actor_params=actor_params,
      act=act,
      update=off_policy.make_update(config, environment_spec, sgd_step,
                                    no_step),
      deployable_policy=deployable_policy,
      data=off_policy.data_requirements(config))
