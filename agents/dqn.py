"""DQN (Mnih et al., 2015) with an in-state replay buffer, on RLax and Optax.

Everything the learner owns — online and target params, optimizer state, the
replay buffer and a PRNG key — is one pytree of fixed-shape JAX arrays, so
`update` is a pure function that jits on its own (Python `dm_env` loop) and
inside a compiled `lax.scan` loop alike.

Each `update(state, trajectory)` call:
  1. turns the `[T, B]` trajectory into `T·B` transitions (padding dropped);
  2. writes them into a circular replay buffer;
  3. once the buffer holds `min_replay_size` transitions, samples
     `batch_size` of them (uniformly, or by priority with
     `prioritized_replay`: `agents.prioritized_replay`) and takes
     `sgd_steps_per_update` SGD steps on the TD loss (double Q-learning by
     default), bootstrapping over legal actions only;
  4. copies the online params to the target params every
     `target_update_period` SGD steps (or averages them in, with
     `target_update_rate` below 1).

With `n_step > 1` the transitions are n-step ones
(`replay.trajectory_transitions`). What the network outputs per action and the loss
on it is the agent's `ValueHead` (`agents.value_distributions`): one value
and a Huber or L2 TD loss here; C51 (`agents.c51`) and QR-DQN
(`agents.qr_dqn`) are this agent with a return distribution instead.

So the loop's `unroll_length` (`config.update_period`) sets how many
environment steps each of the `config.num_actors` environments takes
between updates, and each update takes `config.sgd_steps_per_update` SGD
steps. Acting is ε-greedy over legal actions, with ε decaying linearly in
the number of environment steps.

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

from agents import action_masking
from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import epsilon_greedy
from agents import off_policy
from agents import optimizers
from agents import prioritized_replay
from agents import replay as replay_lib
from agents import value_distributions
from environments import specs

LOSSES = value_distributions.EXPECTED_LOSSES


@dataclasses.dataclass(frozen=True)
class DQNConfig(off_policy.ReplaySettings):
  """DQN hyperparameters; the replay's are `off_policy.ReplaySettings`
  (DQN's defaults smaller).

  The defaults learn Catch within 20k steps. CartPole needs a slower, more
  stable setting (see `benchmarks/learning.py` and the measured
  results in docs/benchmarks/learning.md).

  Attributes:
    learning_rate: Adam step size.
    discount: γ for the TD targets.
    batch_size: transitions per SGD minibatch, sampled uniformly from replay.
    num_actors: environments acting side by side, one sequence each per
      update (the loop's batch of sequences); the compiled loop steps them
      in parallel, the Python loop one after another.
    sgd_steps_per_update: SGD steps each `update` call takes (each on its
      own sampled minibatch).
    target_update_period: SGD steps between updates of the target params.
    target_update_rate: τ of each target update, θ̄ ← τ θ + (1 − τ) θ̄: 1
      copies the online params (DQN's); below 1 averages (Polyak, as rejax
      and SBX offer, usually with `target_update_period` 1).
    double_q: double Q-learning (online net selects, target net evaluates)
      if True, else plain Q-learning (max of the target net).
    loss: 'huber' (δ = 1) or 'l2' (½·td²) on the TD errors.
    epsilon_start: exploration rate at environment step 0.
    epsilon_end: exploration rate after `epsilon_decay_steps`.
    epsilon_decay_steps: environment steps of the linear ε decay.
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how); None disables.
    adam_epsilon: Adam's ε; None: Optax's 1e-8. Distributional agents often
      raise it (CleanRL's and Dopamine's C51: 0.01 / batch_size).
    n_step: steps of reward in each target before it bootstraps (Rainbow:
      3), within each unroll of `update_period` steps, which it must not
      exceed (`replay.trajectory_transitions`).
    prioritized_replay: sample transitions by priority (Schaul et al.,
      2016; `agents.prioritized_replay`) with importance weights, instead
      of uniformly.
    priority_exponent: α, how much priorities shape sampling (0: uniform).
    importance_exponent: β, how fully the importance weights correct for
      it (1: fully); constant, as in Dopamine's Rainbow.
  """
  batch_size: int = 32
  replay_capacity: int = 10_000
  min_replay_size: int = 100
  learning_rate: float = 1e-3
  discount: float = 0.99
  target_update_period: int = 1000
  target_update_rate: float = 1.0
  double_q: bool = True
  loss: str = 'huber'
  epsilon_start: float = 1.0
  epsilon_end: float = 0.05
  epsilon_decay_steps: int = 1_000
  max_grad_norm: Optional[float] = 10.0
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  adam_epsilon: Optional[float] = None
  n_step: int = 1
  prioritized_replay: bool = False
  priority_exponent: float = 0.5
  importance_exponent: float = 0.5

  def __post_init__(self):
    super().__post_init__()
    config_checks.check_positive(self, 'learning_rate')
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive(self, 'target_update_rate')
    config_checks.check_unit_interval(self, 'target_update_rate')
    config_checks.check_positive_integer(
        self, 'target_update_period', 'epsilon_decay_steps', 'n_step')
    self.check_loss()
    config_checks.check_unit_interval(self, 'epsilon_start', 'epsilon_end',
                                      'priority_exponent',
                                      'importance_exponent')
    config_checks.check_positive(self, 'max_grad_norm', 'adam_epsilon',
                                 allow_none=True)
    optimizers.check_gradient_clipping(self)
    if self.n_step > self.update_period:
      raise ValueError(
          f'{type(self).__name__}.n_step ({self.n_step}) must be <= '
          f'update_period ({self.update_period}): n-step targets are summed '
          f'within each unroll of update_period steps. Raise update_period '
          f'(and sgd_steps_per_update with it, to keep the SGD steps per '
          f'environment step), or lower n_step.')

  def check_loss(self) -> None:
    """`loss` must be one the agent's value head has."""
    config_checks.check_one_of(self, 'loss', LOSSES)

  def schedules(self) -> Dict[str, int]:
    """`{schedule: environment step it ends at}`
    (`agents.registry.schedule_ends`): ε reaches `epsilon_end` after
    `epsilon_decay_steps` steps."""
    return {'ε decay (epsilon_decay_steps)': self.epsilon_decay_steps}


class DQNState(NamedTuple):
  params: hk.Params
  target_params: hk.Params
  opt_state: optax.OptState
  replay: replay_lib.Replay
  key: jax.Array
  env_steps: jax.Array  # int32 [], real environment steps seen (for ε).
  learner_steps: jax.Array  # int32 [], SGD steps taken.


def legal_bootstrap(q_t_selector: jax.Array, discount_t: jax.Array,
                    legal_t: Optional[jax.Array]
                   ) -> Tuple[jax.Array, jax.Array]:
  """`(q_t_selector, discount_t)` for bootstrapping over legal actions only:
  illegal actions masked out of the `[N, A]` selector, and no bootstrap
  (discount 0) from an observation with no legal action left."""
  if legal_t is None:
    return q_t_selector, discount_t
  return (action_masking.mask_logits(q_t_selector, legal_t),
          discount_t * jnp.any(legal_t, axis=-1))


def loss(head: value_distributions.ValueHead, outputs_tm1: jax.Array,
         outputs_t: jax.Array, q_t_selector: jax.Array,
         batch: replay_lib.Transitions, weights: jax.Array,
         discount: float, legal_t: Optional[jax.Array]
        ) -> Tuple[jax.Array, Tuple[jax.Array, jax.Array]]:
  """DQN's loss over a minibatch of B transitions: `head`'s TD losses
  (`value_distributions`: Q-learning, C51 or QR) of the online outputs at
  o_t against the target outputs at o_{t+1}, bootstrapping from the best
  legal action of `q_t_selector` (`legal_bootstrap`), weighted by
  `weights` (prioritised replay's importance weights, else 1).

  Returns:
    `(loss, (mean Q of the actions taken, new priorities [B]))`.
  """
  q_t_selector, discount_t = legal_bootstrap(
      q_t_selector, discount * batch.discounts, legal_t)
  losses, priorities = head.losses(outputs_tm1, batch.actions, batch.rewards,
                                   discount_t, outputs_t, q_t_selector)
  q_taken = jnp.take_along_axis(head.q_values(outputs_tm1),
                                batch.actions[:, None], -1)
  return jnp.mean(weights * losses), (jnp.mean(q_taken), priorities)


def sgd_keys(key: jax.Array, num_steps: int) -> jax.Array:
  """The keys of one update's SGD steps: a single step takes `key` as it
  is, several take it split (`off_policy.split_keys`)."""
  return key[None] if num_steps == 1 else off_policy.split_keys(key,
                                                                num_steps)


def make_epsilon_schedule(config: DQNConfig) -> optax.Schedule:
  """ε as a function of environment steps: linear, then constant."""
  return epsilon_greedy.schedule(config.epsilon_start, config.epsilon_end,
                                 config.epsilon_decay_steps)


def value_head(config: DQNConfig) -> value_distributions.ValueHead:
  """DQN's: one value per action, under `config.loss`."""
  return value_distributions.expected(config.loss)


def make_agent(config: DQNConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed,
               head: Optional[value_distributions.ValueHead] = None
              ) -> agent_lib.Agent[DQNState]:
  """Builds DQN around a Q-`network` (observations `[N, ...]` → `[N, A]`,
  or `[N, A, K]` for a return distribution `head`; default `value_head`).

  Actor params are `{'online': params, 'epsilon': ε}`; `act` is ε-greedy
  over legal actions and `deployable_policy` is the masked softmax of the
  Q-values (argmax = greedy action; that is what the TFLite export converts).
  """
  head = value_head(config) if head is None else head
  num_actions = environment_spec.num_actions
  observation_spec = environment_spec.observations
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping, eps=config.adam_epsilon)
  epsilon_schedule = make_epsilon_schedule(config)
  output_shape = (num_actions,) + (
      () if head.num_atoms is None else (head.num_atoms,))

  def outputs(params: hk.Params, observations: jax.Array) -> jax.Array:
    values = network.apply(params, observations)
    chex.assert_shape(values, (observations.shape[0],) + output_shape)
    return values

  def q_values(params: hk.Params, observations: jax.Array) -> jax.Array:
    return head.q_values(outputs(params, observations))

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
                        environment_spec.actions,
                        prioritized=config.prioritized_replay),
                    key=state_key, env_steps=jnp.zeros((), jnp.int32),
                    learner_steps=jnp.zeros((), jnp.int32))

  def actor_params(state: DQNState) -> Dict[str, Any]:
    return {'online': state.params,
            'epsilon': epsilon_schedule(state.env_steps)}

  act, deployable_policy = epsilon_greedy.policy(environment_spec, q_values)

  def loss_fn(params: hk.Params, target_params: hk.Params,
              batch: replay_lib.Transitions, weights: jax.Array
             ) -> Tuple[jax.Array, Tuple[jax.Array, jax.Array]]:
    outputs_tm1 = outputs(params, batch.observations)
    outputs_t = outputs(target_params, batch.next_observations)
    q_t_selector = head.q_values(
        outputs(params, batch.next_observations) if config.double_q
        else outputs_t)
    return loss(head, outputs_tm1, outputs_t, q_t_selector, batch, weights,
                config.discount, legal(batch.next_observations))

  def sample(replay: replay_lib.Replay, key: jax.Array):
    """A minibatch, its replay slots and importance weights."""
    if not config.prioritized_replay:
      batch = replay_lib.replay_sample(replay, key, config.batch_size)
      return batch, None, jnp.ones((config.batch_size,), jnp.float32)
    batch, indices, probabilities = prioritized_replay.sample(
        replay, key, config.batch_size, config.priority_exponent)
    return batch, indices, prioritized_replay.importance_weights(
        probabilities, replay.size, config.importance_exponent)

  def sgd_step(state: DQNState, replay: replay_lib.Replay, key: jax.Array
              ) -> Tuple[DQNState, Dict[str, jax.Array]]:
    # Every device holds the same replay and draws the same sample; each
    # computes the loss of its equal share of it.
    batch, indices, weights = sample(replay, key)
    batch, weights = data_parallel.share((batch, weights), axis=0)
    (loss_value, (mean_q, priorities)), grads = jax.value_and_grad(
        loss_fn, has_aux=True)(state.params, state.target_params, batch,
                               weights)
    loss_value, mean_q, grads = data_parallel.mean((loss_value, mean_q,
                                                    grads))
    if indices is not None:  # Every device writes the whole batch's.
      replay = prioritized_replay.update_priorities(
          replay, indices, data_parallel.gather(priorities, axis=0))
    updates, opt_state = optimizer.update(grads, state.opt_state,
                                          state.params)
    params = optax.apply_updates(state.params, updates)
    learner_steps = state.learner_steps + 1
    target_params = optax.periodic_update(
        optax.incremental_update(params, state.target_params,
                                 config.target_update_rate),
        state.target_params, learner_steps, config.target_update_period)
    metrics = {'loss': loss_value, 'mean_q': mean_q,
               'grad_norm': optax.global_norm(grads)}
    return state._replace(
        params=params, target_params=target_params, opt_state=opt_state,
        learner_steps=learner_steps,
        replay=state.replay._replace(priorities=replay.priorities)), {
            k: jnp.asarray(v, jnp.float32) for k, v in metrics.items()}

  def no_step(state: DQNState, replay: replay_lib.Replay, key: jax.Array
             ) -> Tuple[DQNState, Dict[str, jax.Array]]:
    del replay, key
    return state, {k: jnp.zeros((), jnp.float32)
                   for k in ('loss', 'mean_q', 'grad_norm')}

  update = off_policy.make_update(
      config, environment_spec, sgd_step, no_step, n_step=config.n_step,
      discount=config.discount, sgd_keys=sgd_keys,
      state_metrics=lambda state: {
          'epsilon': epsilon_schedule(state.env_steps)})

  return agent_lib.Agent(
      init=init,
      actor_params=actor_params,
      act=act,
      update=update,
      deployable_policy=deployable_policy,
      data=off_policy.data_requirements(config))
