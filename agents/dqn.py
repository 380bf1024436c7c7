"""DQN (Mnih et al., 2015) with an in-state replay buffer, on RLax and Optax.

Everything the learner owns — online and target params, optimizer state, the
replay buffer and a PRNG key — is one pytree of fixed-shape JAX arrays, so
`update` is a pure function that jits on its own (Python `dm_env` loop) and
inside a compiled `lax.scan` loop alike.

Each `update(state, trajectory)` call:
  1. turns the `[T, B]` trajectory into `T·B` transitions (padding dropped);
  2. writes them into a circular replay buffer;
  3. once the buffer holds `min_replay_size` transitions, samples
     `batch_size` of them uniformly and takes ONE SGD step on the TD loss
     (double Q-learning by default), bootstrapping over legal actions only;
  4. copies the online params to the target params every
     `target_update_period` SGD steps.

So the loop's `unroll_length` (`config.update_period`) sets how many
environment steps each of the `config.num_actors` environments takes between
updates, and each update takes `config.sgd_steps_per_update` SGD steps. Acting is ε-greedy over legal
actions, with ε decaying linearly in the number of environment steps.

A time limit is not a termination: each transition's next observation is
that of its own episode (at a time limit, the observation it cut off) and
its bootstrap discount the environment's (0 at a termination only), so the
targets bootstrap through time limits (`replay.trajectory_transitions`).

Split over devices (`agents.data_parallel`), every device inserts the whole
batch into its replay and draws the same sample, and computes the loss of
its share of it; gradients and metrics are averaged over devices, so every
device holds the state of one device with the whole batch.
"""

import dataclasses
from typing import Any, Dict, NamedTuple, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax
import rlax

from agents import action_masking
from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import epsilon_greedy
from agents import optimizers
from agents import replay as replay_lib
from agents import returns as returns_lib
from environments import specs

LOSSES = ('huber', 'l2')
_HUBER_DELTA = 1.0


@dataclasses.dataclass(frozen=True)
class DQNConfig:
  """DQN hyperparameters.

  The defaults learn Catch within 20k steps. CartPole needs a slower, more
  stable setting (see `experiments/learning_benchmark.py` and the measured
  results in docs/benchmarks/learning.md).

  Attributes:
    learning_rate: Adam step size.
    discount: γ for the TD targets.
    batch_size: transitions per SGD minibatch, sampled uniformly from replay.
    replay_capacity: transitions the circular replay buffer holds.
    min_replay_size: transitions stored before SGD starts.
    update_period: environment steps per `update` call and environment
      (the loop's `unroll_length`).
    num_actors: environments acting side by side, one sequence each per
      update (the loop's batch of sequences); the compiled loop steps them
      in parallel, the Python loop one after another.
    sgd_steps_per_update: SGD steps each `update` call takes (each on its
      own sampled minibatch).
    target_update_period: SGD steps between copies of the online params into
      the target params.
    double_q: double Q-learning (online net selects, target net evaluates)
      if True, else plain Q-learning (max of the target net).
    loss: 'huber' (δ = 1) or 'l2' (½·td²) on the TD errors.
    epsilon_start: exploration rate at environment step 0.
    epsilon_end: exploration rate after `epsilon_decay_steps`.
    epsilon_decay_steps: environment steps of the linear ε decay.
    max_grad_norm: clip gradients to this global norm; None disables.
    bootstrap_time_limits: bootstrap through time limits from the value of
      the observation they cut off (`returns.with_time_limit_values`);
      False stops returns there as at terminations, as PureJaxRL and most
      single-file scripts do (to compare with them).
  """
  learning_rate: float = 1e-3
  discount: float = 0.99
  batch_size: int = 32
  replay_capacity: int = 10_000
  min_replay_size: int = 100
  update_period: int = 1
  num_actors: int = 1
  sgd_steps_per_update: int = 1
  target_update_period: int = 1000
  double_q: bool = True
  loss: str = 'huber'
  epsilon_start: float = 1.0
  epsilon_end: float = 0.05
  epsilon_decay_steps: int = 1_000
  max_grad_norm: Optional[float] = 10.0
  bootstrap_time_limits: bool = True

  def __post_init__(self):
    config_checks.check_positive(self, 'learning_rate')
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive_integer(
        self, 'batch_size', 'replay_capacity', 'min_replay_size',
        'update_period', 'num_actors', 'sgd_steps_per_update',
        'target_update_period', 'epsilon_decay_steps')
    config_checks.check_replay_sizes(self)
    config_checks.check_one_of(self, 'loss', LOSSES)
    config_checks.check_unit_interval(self, 'epsilon_start', 'epsilon_end')
    config_checks.check_positive(self, 'max_grad_norm', allow_none=True)


class DQNState(NamedTuple):
  params: hk.Params
  target_params: hk.Params
  opt_state: optax.OptState
  replay: replay_lib.Replay
  key: jax.Array
  env_steps: jax.Array  # int32 [], real environment steps seen (for ε).
  learner_steps: jax.Array  # int32 [], SGD steps taken.


def td_errors(q_tm1: jax.Array, a_tm1: jax.Array, r_t: jax.Array,
              discount_t: jax.Array, q_t_value: jax.Array,
              q_t_selector: jax.Array, legal_t: Optional[jax.Array],
              double_q: bool) -> jax.Array:
  """`[N]` TD errors whose bootstrap max/argmax ranges over legal actions.

  Args:
    q_tm1: `[N, A]` online Q-values at o_t.
    a_tm1: int `[N]` actions taken.
    r_t: `[N]` rewards.
    discount_t: `[N]` γ·bootstrap discounts.
    q_t_value: `[N, A]` target-network Q-values at o_{t+1}.
    q_t_selector: `[N, A]` online Q-values at o_{t+1} (double Q only).
    legal_t: bool `[N, A]` legal actions at o_{t+1}, or None (all legal).
    double_q: `rlax.double_q_learning` if True, else `rlax.q_learning`.
  """
  if legal_t is not None:
    q_t_value = action_masking.mask_logits(q_t_value, legal_t)
    q_t_selector = action_masking.mask_logits(q_t_selector, legal_t)
    # No legal move left: nothing to bootstrap from.
    discount_t = discount_t * jnp.any(legal_t, axis=-1)
  if double_q:
    return jax.vmap(rlax.double_q_learning)(q_tm1, a_tm1, r_t, discount_t,
                                            q_t_value, q_t_selector)
  return jax.vmap(rlax.q_learning)(q_tm1, a_tm1, r_t, discount_t, q_t_value)


def td_loss(errors: jax.Array, loss: str) -> jax.Array:
  """Mean Huber (δ = 1) or L2 (½·td²) loss of TD `errors`."""
  if loss == 'huber':
    return jnp.mean(rlax.huber_loss(errors, _HUBER_DELTA))
  if loss == 'l2':
    return jnp.mean(rlax.l2_loss(errors))
  raise ValueError(f'loss must be one of {LOSSES}; got {loss!r}.')


def make_epsilon_schedule(config: DQNConfig) -> optax.Schedule:
  """ε as a function of environment steps: linear, then constant."""
  return epsilon_greedy.schedule(config.epsilon_start, config.epsilon_end,
                                 config.epsilon_decay_steps)


def schedules(config: DQNConfig) -> Dict[str, int]:
  """The environment step each schedule ends at (`AgentEntry.schedules`):
  ε reaches `epsilon_end` after `epsilon_decay_steps` steps."""
  return {'ε decay (epsilon_decay_steps)': config.epsilon_decay_steps}


def batch_splits(config: DQNConfig) -> Dict[str, int]:
  """What a device count splitting one seed must divide (the registry's
  `AgentEntry.batch_splits`)."""
  return {'batch_size (transitions per SGD step)': config.batch_size}


def make_agent(config: DQNConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed) -> agent_lib.Agent[DQNState]:
  """Builds DQN around a Q-`network` (observations `[N, ...]` → `[N, A]`).

  Actor params are `{'online': params, 'epsilon': ε}`; `act` is ε-greedy
  over legal actions and `deployable_policy` is the masked softmax of the
  Q-values (argmax = greedy action; that is what the TFLite export converts).
  """
  num_actions = environment_spec.num_actions
  observation_spec = environment_spec.observations
  optimizer = optimizers.make_optimizer(config.learning_rate,
                                        max_grad_norm=config.max_grad_norm)
  epsilon_schedule = make_epsilon_schedule(config)

  def q_values(params: hk.Params, observations: jax.Array) -> jax.Array:
    values = network.apply(params, observations)
    chex.assert_shape(values, (observations.shape[0], num_actions))
    return values

  def legal(observations: jax.Array) -> Optional[jax.Array]:
    return action_masking.legal_actions(environment_spec, observations)

  def init(key: jax.Array) -> DQNState:
    init_key, state_key = jax.random.split(key)
    params = agent_lib.init_params(network, observation_spec, init_key)
    # A copy, not the same buffers: the state may be donated to jit.
    target_params = jax.tree.map(jnp.copy, params)
    return DQNState(params=params, target_params=target_params,
                    opt_state=optimizer.init(params),
                    replay=replay_lib.init_replay(
                        config.replay_capacity, observation_spec,
                        environment_spec.actions),
                    key=state_key, env_steps=jnp.zeros((), jnp.int32),
                    learner_steps=jnp.zeros((), jnp.int32))

  def actor_params(state: DQNState) -> Dict[str, Any]:
    return {'online': state.params,
            'epsilon': epsilon_schedule(state.env_steps)}

  def act(params: Dict[str, Any], key: jax.Array,
          observations: jax.Array) -> Tuple[jax.Array, agent_lib.Extras]:
    return epsilon_greedy.act(
        environment_spec, key, observations,
        q_values(params['online'], observations), params['epsilon']), {}

  def deployable_policy(params: Dict[str, Any],
                           observations: jax.Array) -> jax.Array:
    return action_masking.policy_probabilities(
        environment_spec, observations,
        q_values(params['online'], observations))

  def loss_fn(params: hk.Params, target_params: hk.Params,
              batch: replay_lib.Transitions
             ) -> Tuple[jax.Array, agent_lib.Metrics]:
    q_tm1 = q_values(params, batch.observations)
    q_t_value = q_values(target_params, batch.next_observations)
    q_t_selector = (q_values(params, batch.next_observations)
                    if config.double_q else q_t_value)
    errors = td_errors(q_tm1, batch.actions, batch.rewards,
                       config.discount * batch.discounts, q_t_value,
                       q_t_selector, legal(batch.next_observations),
                       config.double_q)
    q_taken = jnp.take_along_axis(q_tm1, batch.actions[:, None], -1)
    return td_loss(errors, config.loss), {'mean_q': jnp.mean(q_taken)}

  def sgd_step(state: DQNState, replay: replay_lib.Replay, key: jax.Array):
    # Every device holds the same replay and draws the same sample; each
    # computes the loss of its equal share of it.
    batch = data_parallel.share(
        replay_lib.replay_sample(replay, key, config.batch_size), axis=0)
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
        state.params, state.target_params, batch)
    loss, aux, grads = data_parallel.mean((loss, aux, grads))
    updates, opt_state = optimizer.update(grads, state.opt_state,
                                          state.params)
    params = optax.apply_updates(state.params, updates)
    learner_steps = state.learner_steps + 1
    target_params = optax.periodic_update(params, state.target_params,
                                          learner_steps,
                                          config.target_update_period)
    metrics = {'loss': loss, 'mean_q': aux['mean_q'],
               'grad_norm': optax.global_norm(grads)}
    metrics = {k: jnp.asarray(v, jnp.float32) for k, v in metrics.items()}
    return params, target_params, opt_state, learner_steps, metrics

  def no_step(state: DQNState, replay: replay_lib.Replay, key: jax.Array):
    del replay, key
    metrics = {k: jnp.zeros((), jnp.float32)
               for k in ('loss', 'mean_q', 'grad_norm')}
    return (state.params, state.target_params, state.opt_state,
            state.learner_steps, metrics)

  def update(state: DQNState, trajectory: agent_lib.Trajectory
            ) -> Tuple[DQNState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.actions, trajectory.rewards,
                      trajectory.discounts, trajectory.last,
                      trajectory.mask], 2)
    chex.assert_equal_shape([trajectory.actions, trajectory.rewards,
                             trajectory.discounts, trajectory.last,
                             trajectory.mask])
    chex.assert_shape(trajectory.observations,
                      trajectory.actions.shape + tuple(observation_spec.shape))
    chex.assert_shape(trajectory.final_observations,
                      trajectory.actions.shape[1:] +
                      tuple(observation_spec.shape))
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    # Split over devices: every device inserts the whole batch, so that each
    # holds the replay of one device with the whole batch.
    trajectory = data_parallel.gather(
        trajectory._replace(final_observations=None), axis=1)._replace(
            final_observations=data_parallel.gather(
                trajectory.final_observations, axis=0))
    transitions, valid = replay_lib.trajectory_transitions(trajectory)
    replay = replay_lib.replay_insert(state.replay, transitions, valid)
    env_steps = state.env_steps + jnp.sum(valid, dtype=jnp.int32)
    key, sample_key = jax.random.split(state.key)
    learns = replay.size >= config.min_replay_size

    def step(carry, step_key):
      params, target_params, opt_state, learner_steps = carry
      current = state._replace(params=params, target_params=target_params,
                               opt_state=opt_state,
                               learner_steps=learner_steps)
      # Same shapes either way; under vmap lax.cond becomes a select.
      *carry, metrics = jax.lax.cond(learns, sgd_step, no_step, current,
                                     replay, step_key)
      return tuple(carry), metrics

    if config.sgd_steps_per_update == 1:  # One key, as before: same numbers.
      step_keys = sample_key[None]
    else:
      step_keys = jax.random.split(sample_key, config.sgd_steps_per_update)
    (params, target_params, opt_state, learner_steps), metrics = (
        jax.lax.scan(step, (state.params, state.target_params,
                            state.opt_state, state.learner_steps),
                     step_keys))
    metrics = jax.tree.map(jnp.mean, metrics)
    new_state = DQNState(params, target_params, opt_state, replay, key,
                         env_steps, learner_steps)
    metrics = dict(metrics, learned=learns.astype(jnp.float32),
                   replay_size=replay.size.astype(jnp.float32),
                   epsilon=epsilon_schedule(env_steps))
    return new_state, metrics

  return agent_lib.Agent(
      init=init,
      actor_params=actor_params,
      act=act,
      update=update,
      deployable_policy=deployable_policy,
      data=agent_lib.DataRequirements(batch_size=config.num_actors,
                                      unroll_length=config.update_period))
