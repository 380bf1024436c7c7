"""Soft actor-critic (SAC; Haarnoja et al., 2018) with replay on the device.

A tanh-squashed Gaussian actor, twin Q critics with Polyak-averaged target
critics, and an entropy temperature tuned automatically towards a target
entropy (−action_dim by default). As DQN, everything the learner owns —
params, target params, three optimizer states, the replay buffer and a PRNG
key — is one pytree of fixed-shape arrays, so `update` is a pure function
that jits alone (Python loop) or inside the compiled loop's `lax.scan`.

Each `update(state, trajectory)` call writes the trajectory's transitions
into the replay buffer (`agents.replay`) and, once it holds
`min_replay_size`, takes `sgd_steps_per_update` steps, each on its own
uniformly sampled minibatch:

  1. critics: `½ (Q_i(s, a) − y)²` for both critics (`rlax.l2_loss`), with
     `y = r + γ d (min_i Q̄_i(s', a') − α log π(a'|s'))`, `a' ~ π(·|s')`;
  2. actor: `α log π(a|s) − min_i Q_i(s, a)` for a reparameterised
     `a ~ π(·|s)` (critics held fixed);
  3. temperature: `−α (log π(a|s) + target_entropy)` (log-probs held fixed);
  4. target critics: `Q̄ ← τ Q + (1 − τ) Q̄` (`optax.incremental_update`).

Terminations stop the bootstrap (`d = 0`); time limits do not (as DQN:
each transition's next observation is its own episode's, the one a time
limit cut off: `replay.trajectory_transitions`).

Split over devices (`agents.data_parallel`), as DQN: every device inserts
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
from environments import specs

_METRICS = ('critic_loss', 'actor_loss', 'temperature_loss', 'temperature',
            'mean_q', 'entropy', 'critic_grad_norm', 'actor_grad_norm')


@dataclasses.dataclass(frozen=True)
class SACConfig(off_policy.ReplaySettings):
  """SAC hyperparameters (defaults: the SAC paper's, as in CleanRL); the
  replay's are `off_policy.ReplaySettings`.

  Attributes:
    actor_learning_rate: Adam step size of the actor.
    critic_learning_rate: Adam step size of the twin critics.
    temperature_learning_rate: Adam step size of log α.
    discount: γ.
    tau: Polyak rate of the target critics per SGD step.
    initial_temperature: α at the start.
    learn_temperature: tune α towards `target_entropy`; else keep it.
    target_entropy: the entropy α is tuned towards; None: −action_dim.
    max_grad_norm: clip each network's gradients to this size
      (`gradient_clipping` says how);
      None disables.
  """
  actor_learning_rate: float = 3e-4
  critic_learning_rate: float = 3e-4
  temperature_learning_rate: float = 3e-4
  discount: float = 0.99
  tau: float = 0.005
  initial_temperature: float = 1.0
  learn_temperature: bool = True
  target_entropy: Optional[float] = None
  max_grad_norm: Optional[float] = None
  gradient_clipping: str = optimizers.gradient_clipping_setting()

  def __post_init__(self):
    super().__post_init__()
    config_checks.check_positive(self, 'actor_learning_rate',
                                 'critic_learning_rate',
                                 'temperature_learning_rate',
                                 'initial_temperature')
    config_checks.check_unit_interval(self, 'discount', 'tau')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)
    optimizers.check_gradient_clipping(self)


def critic_targets(batch: replay_lib.Transitions, next_q: jax.Array,
                   next_log_probs: jax.Array, temperature: jax.Array,
                   discount: float) -> jax.Array:
  """`[B]` soft TD targets r + γ·d·(min Q'(s', a') − α·log π(a'|s')), for
  `a'` drawn from the current policy at the next observation."""
  return batch.rewards + discount * batch.discounts * (
      next_q - temperature * next_log_probs)


def actor_loss(log_probs: jax.Array, q: jax.Array,
               temperature: jax.Array) -> jax.Array:
  """α·log π(a|s) − min Q(s, a) for reparameterised actions `a`, averaged."""
  return jnp.mean(temperature * log_probs - q)


def temperature_loss(log_temperature: jax.Array, log_probs: jax.Array,
                     target_entropy: float) -> jax.Array:
  """−α·(log π(a|s) + target entropy), averaged: α rises while the
  policy's entropy is below its target."""
  return -jnp.mean(jnp.exp(log_temperature) *
                   jax.lax.stop_gradient(log_probs + target_entropy))


class SACState(NamedTuple):
  actor_params: hk.Params
  critic_params: hk.Params
  target_critic_params: hk.Params
  log_temperature: jax.Array  # float32 [], log α.
  actor_opt_state: optax.OptState
  critic_opt_state: optax.OptState
  temperature_opt_state: optax.OptState
  replay: replay_lib.Replay
  key: jax.Array
  learner_steps: jax.Array  # int32 [], SGD steps taken.


def make_agent(config: SACConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.MultiTransformed) -> agent_lib.Agent[SACState]:
  """SAC around an actor-twin-Q `network` (`networks.actor_twin_q`).

  Actor params are `{'actor': params}`; `act` samples the squashed
  Gaussian, and `deployable_policy` is its deterministic action (the mean,
  squashed and rescaled into the action bounds).
  """
  spec = environment_spec.actions
  action_dim = environment_spec.action_dim
  gaussian_policies.check_squashable(spec, 'SAC')
  observation_spec = environment_spec.observations
  actor_apply, critic_apply = network.apply
  target_entropy = (-float(action_dim) if config.target_entropy is None
                    else config.target_entropy)
  make = lambda lr: optimizers.make_optimizer(
      lr, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping)
  actor_optimizer = make(config.actor_learning_rate)
  critic_optimizer = make(config.critic_learning_rate)
  temperature_optimizer = optimizers.make_optimizer(
      config.temperature_learning_rate)

  def policy(actor_params, observations, noise):
    means, log_stds = actor_apply(actor_params, observations)
    chex.assert_shape(means, (observations.shape[0], action_dim))
    return gaussian_policies.reparameterize(means, log_stds, noise, spec,
                                            squashed=True)

  def init(key: jax.Array) -> SACState:
    init_key, state_key = jax.random.split(key)
    actor_params, critic_params = off_policy.init_actor_critic(
        network, init_key, environment_spec)
    log_temperature = jnp.log(jnp.asarray(config.initial_temperature,
                                          jnp.float32))
    return SACState(
        actor_params=actor_params, critic_params=critic_params,
        # A copy, not the same buffers: the state may be donated to jit.
        target_critic_params=jax.tree.map(jnp.copy, critic_params),
        log_temperature=log_temperature,
        actor_opt_state=actor_optimizer.init(actor_params),
        critic_opt_state=critic_optimizer.init(critic_params),
        temperature_opt_state=temperature_optimizer.init(log_temperature),
        replay=replay_lib.init_replay(config.replay_capacity,
                                      observation_spec, spec),
        key=state_key, learner_steps=jnp.zeros((), jnp.int32))

  def act(params: Dict[str, Any], key: jax.Array, observations: jax.Array
         ) -> Tuple[jax.Array, agent_lib.Extras]:
    noise = jax.random.normal(key, (observations.shape[0], action_dim))
    actions, _ = policy(params['actor'], observations, noise)
    return actions, {}

  def deployable_policy(params: Dict[str, Any],
                        observations: jax.Array) -> jax.Array:
    means, _ = actor_apply(params['actor'], observations)
    return gaussian_policies.deterministic_actions(means, spec,
                                                   squashed=True)

  def critic_loss_fn(critic_params, state, batch, next_noise):
    next_actions, next_log_probs = policy(
        state.actor_params, batch.next_observations, next_noise)
    next_q = jnp.min(critic_apply(state.target_critic_params,
                                  batch.next_observations, next_actions), -1)
    targets = critic_targets(batch, next_q, next_log_probs,
                             jnp.exp(state.log_temperature), config.discount)
    return off_policy.twin_critic_loss(
        critic_apply(critic_params, batch.observations, batch.actions),
        targets)

  def actor_loss_fn(actor_params, state, batch, noise):
    actions, log_probs = policy(actor_params, batch.observations, noise)
    q = jnp.min(critic_apply(state.critic_params, batch.observations,
                             actions), -1)
    return actor_loss(log_probs, q, jnp.exp(state.log_temperature)), log_probs

  def sgd_step(state: SACState, replay: replay_lib.Replay,
               key: jax.Array) -> Tuple[SACState, Dict]:
    sample_key, noise_key, next_noise_key = jax.random.split(key, 3)
    # Every device draws the same minibatch and noise, and takes its share.
    noise_shape = (config.batch_size, action_dim)
    batch, noise, next_noise = data_parallel.share((
        replay_lib.replay_sample(replay, sample_key, config.batch_size),
        jax.random.normal(noise_key, noise_shape),
        jax.random.normal(next_noise_key, noise_shape)), axis=0)
    (c_loss, mean_q), c_grads = jax.value_and_grad(
        critic_loss_fn, has_aux=True)(state.critic_params, state, batch,
                                      next_noise)
    (a_loss, log_probs), a_grads = jax.value_and_grad(
        actor_loss_fn, has_aux=True)(state.actor_params, state, batch, noise)
    t_loss, t_grad = jax.value_and_grad(temperature_loss)(
        state.log_temperature, log_probs, target_entropy)
    c_loss, mean_q, c_grads, a_loss, a_grads, t_loss, t_grad, entropy = (
        data_parallel.mean((c_loss, mean_q, c_grads, a_loss, a_grads,
                            t_loss, t_grad, -jnp.mean(log_probs))))
    updates, critic_opt_state = critic_optimizer.update(
        c_grads, state.critic_opt_state, state.critic_params)
    critic_params = optax.apply_updates(state.critic_params, updates)
    updates, actor_opt_state = actor_optimizer.update(
        a_grads, state.actor_opt_state, state.actor_params)
    actor_params = optax.apply_updates(state.actor_params, updates)
    log_temperature, temperature_opt_state = (state.log_temperature,
                                              state.temperature_opt_state)
    if config.learn_temperature:
      updates, temperature_opt_state = temperature_optimizer.update(
          t_grad, state.temperature_opt_state, state.log_temperature)
      log_temperature = optax.apply_updates(state.log_temperature, updates)
    state = state._replace(
        actor_params=actor_params, critic_params=critic_params,
        target_critic_params=optax.incremental_update(
            critic_params, state.target_critic_params, config.tau),
        log_temperature=log_temperature, actor_opt_state=actor_opt_state,
        critic_opt_state=critic_opt_state,
        temperature_opt_state=temperature_opt_state,
        learner_steps=state.learner_steps + 1)
    metrics = {
        'critic_loss': c_loss, 'actor_loss': a_loss,
        'temperature_loss': t_loss,
        'temperature': jnp.exp(log_temperature), 'mean_q': mean_q,
        'entropy': entropy,
        'critic_grad_norm': optax.global_norm(c_grads),
        'actor_grad_norm': optax.global_norm(a_grads)}
    return state, {k: jnp.asarray(v, jnp.float32) for k, v in metrics.items()}

  def no_step(state: SACState, replay: replay_lib.Replay,
              key: jax.Array) -> Tuple[SACState, Dict]:
    del replay, key
    metrics = {k: jnp.zeros((), jnp.float32) for k in _METRICS}
    metrics['temperature'] = jnp.exp(state.log_temperature)
    return state, metrics

  return agent_lib.Agent(
      init=init,
      actor_params=lambda state: {'actor': state.actor_params},
      act=act,
      update=off_policy.make_update(config, environment_spec, sgd_step,
                                    no_step),
      deployable_policy=deployable_policy,
      data=off_policy.data_requirements(config))
