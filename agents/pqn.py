"""PQN: parallelised Q-learning (Gallici et al., 2024), on RLax and Optax.

Q-learning without replay and without a target network: many environments
act ε-greedily at once, and each update learns from the `[T, B]` batch
they just collected, as PPO does. The targets are Q(λ) returns
(`rlax.lambda_returns`) that bootstrap from the best legal action's
Q-value of the next observation, computed once per batch with the
current params; several epochs of shuffled minibatches then regress
Q(o_t, a_t) on them (½·error²). A LayerNorm network
(`mlp_layer_norm_q_values`) keeps this stable, as the paper finds.

Time limits bootstrap: the target of a step a time limit cut is
r + γ·max_a Q(the observation it cut off), and no λ-trace crosses an
episode's end (`agents.returns`). `--config.bootstrap_time_limits=false`
treats time limits as terminations, as purejaxql and rejax do.

With a recurrent Q-network (`--network=gru_layer_norm_q_values`,
purejaxql's `pqn_rnn`) PQN acts ε-greedily step by step with its state
(`epsilon_greedy.recurrence`), computes the targets from each sequence
replayed from the state it began in, and its minibatches are whole
sequences, so `num_minibatches` must divide `batch_size`.

Split over devices (`agents.data_parallel`), every device computes the
targets of its environments, gathers the whole batch and takes its share
of each minibatch (`agents.minibatches`); gradients are averaged.
"""

import dataclasses
from typing import Any, Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import rlax

from agents import action_masking
from agents import agent as agent_lib
from agents import config_checks
from agents import epsilon_greedy
from agents import minibatches
from agents import on_policy
from agents import optimizers
from agents import returns as returns_lib
from environments import specs


@dataclasses.dataclass(frozen=True)
class PQNConfig(minibatches.MinibatchSettings):
  """PQN hyperparameters (defaults: rejax's CartPole-v1 setting).

  Attributes:
    learning_rate: Adam step size (the initial one when annealed).
    learning_rate_decay_updates: if set, anneal the step size linearly to 0
      over this many updates.
    anneal_learning_rate: anneal the step size linearly to 0 over the
      run's step budget (purejaxql's MinAtar and Atari settings): the
      framework sets `learning_rate_decay_updates` from `--num_steps`.
    discount: γ.
    td_lambda: λ of the Q(λ) targets (0: one-step Q-learning targets).
    unroll_length: steps per sequence (T).
    batch_size: sequences per update (B), one per environment.
    num_epochs: passes over each batch.
    num_minibatches: minibatches per epoch; must divide T·B (with a
      recurrent network, whose minibatches are whole sequences: B).
    epsilon_start: exploration rate at environment step 0.
    epsilon_end: exploration rate after `epsilon_decay_steps`.
    epsilon_decay_steps: environment steps of the linear ε decay.
    max_grad_norm: clip gradients to this size (`gradient_clipping`
      says how).
    bootstrap_time_limits: bootstrap through time limits from the
      observation they cut off; False stops the targets there as at
      terminations (as purejaxql and rejax do, to compare with them).
  """
  learning_rate: float = 3e-4
  learning_rate_decay_updates: Optional[int] = None
  anneal_learning_rate: bool = False
  discount: float = 0.99
  td_lambda: float = 0.9
  unroll_length: int = 128
  batch_size: int = 16
  num_epochs: int = 5
  num_minibatches: int = 16
  epsilon_start: float = 1.0
  epsilon_end: float = 0.05
  epsilon_decay_steps: int = 262_144
  max_grad_norm: float = 10.0
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def __post_init__(self):
    config_checks.check_positive(self, 'learning_rate', 'max_grad_norm')
    optimizers.check_gradient_clipping(self)
    config_checks.check_unit_interval(self, 'discount', 'td_lambda',
                                      'epsilon_start', 'epsilon_end')
    config_checks.check_positive_integer(
        self, 'unroll_length', 'batch_size', 'num_epochs', 'num_minibatches',
        'epsilon_decay_steps')
    self.check_minibatches()

  def schedules(self) -> Dict[str, int]:
    """`{schedule: environment step it ends at}`
    (`agents.registry.schedule_ends`): ε's decay and the learning rate's."""
    return {'ε decay (epsilon_decay_steps)': self.epsilon_decay_steps,
            **super().schedules()}


def q_lambda_targets(trajectory: agent_lib.Trajectory,
                     next_values: jax.Array, discount: float,
                     td_lambda: float) -> jax.Array:
  """`[T, B]` Q(λ) targets G_t = r_t + γ·[(1 − λ)·v_t + λ·G_{t+1}], where
  `next_values` v_t is max_a Q(o_{t+1}) of step t's own episode; the last
  step bootstraps from its v_t alone. An episode's end cuts the trace: a
  termination's target is r_t, a time limit's r_t + γ·v_t
  (`returns.with_time_limit_values`; without the loop's next observations,
  r_t too)."""
  rewards = returns_lib.with_time_limit_values(
      jnp.asarray(trajectory.rewards, jnp.float32), trajectory, next_values,
      discount)
  return jax.vmap(rlax.lambda_returns, in_axes=(1, 1, 1, None),
                  out_axes=1)(
                      rewards,
                      returns_lib.continuation_discounts(trajectory, discount),
                      next_values, td_lambda)


def loss(q_values: jax.Array, batch: Dict[str, jax.Array]
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """PQN's loss over a minibatch of M steps: ½ the squared error of
  Q(o_t, a_t) against its Q(λ) target (`q_lambda_targets`), a mean over
  the M steps with padding's error zeroed.

  Args:
    q_values: `[M, A]` Q(o_t, ·) under the current params.
    batch: `actions` int `[M]`, `targets` `[M]` (no gradient), `mask`
      `[M]` 1 for real steps.
  """
  q_taken = jnp.take_along_axis(q_values, batch['actions'][:, None], -1)[:, 0]
  errors = (q_taken - batch['targets']) * batch['mask']
  loss_value = jnp.mean(rlax.l2_loss(errors))
  return loss_value, {'loss': loss_value, 'mean_q': jnp.mean(q_taken)}


def make_agent(config: PQNConfig, environment_spec: specs.EnvironmentSpec,
               network: Any) -> agent_lib.Agent[agent_lib.TrainingState]:
  """PQN around a Q-`network` (observations `[N, ...]` → `[N, A]`), or a
  recurrent one (`networks.recurrent.RecurrentNetwork`), seen through
  `on_policy.QValueNetwork`.

  Actor params are `{'online': params, 'epsilon': ε}`; `deployable_policy`
  is the masked softmax of the Q-values (argmax: the greedy action, what
  the TFLite export converts).
  """
  q_network = on_policy.QValueNetwork(network, environment_spec, 'PQN')
  if q_network.recurrent and config.batch_size % config.num_minibatches:
    raise ValueError(
        f'PQNConfig.num_minibatches ({config.num_minibatches}) must divide '
        f'batch_size ({config.batch_size}) with a recurrent network: its '
        f'minibatches are whole sequences.')
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping,
      decay_steps=optimizers.decay_optimizer_steps(config))
  epsilon = epsilon_greedy.schedule(config.epsilon_start, config.epsilon_end,
                                    config.epsilon_decay_steps)
  steps_per_update = config.unroll_length * config.batch_size

  def init(key: jax.Array) -> agent_lib.TrainingState:
    return agent_lib.init_training_state(
        network, environment_spec.observations, optimizer, key)

  def actor_params(state: agent_lib.TrainingState) -> Dict[str, Any]:
    # Every update consumes one whole batch of environment steps.
    return {'online': state.params,
            'epsilon': epsilon(state.updates * steps_per_update)}

  def best_next_values(params: hk.Params,
                       trajectory: agent_lib.Trajectory) -> jax.Array:
    """`[T, B]` max over legal actions of Q(o_{t+1}) (0 with none legal)."""
    next_observations = returns_lib.next_observations(trajectory)
    flat = agent_lib.flatten_steps(next_observations)
    legal = action_masking.legal_actions(environment_spec, flat)
    values = action_masking.mask_logits(
        agent_lib.flatten_steps(q_network.next_q_values(params, trajectory)),
        legal)
    best = jnp.max(values, axis=-1)
    if legal is not None:
      best = jnp.where(jnp.any(legal, axis=-1), best, 0.0)
    return best.reshape(trajectory.rewards.shape)

  def minibatch_loss(params: hk.Params, batch: Dict[str, Any]):
    q_values, batch = q_network.minibatch_q_values(params, batch)
    return loss(q_values, batch)

  def update(state: agent_lib.TrainingState,
             trajectory: agent_lib.Trajectory
            ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.rewards, trajectory.mask], 2)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    targets = jax.lax.stop_gradient(q_lambda_targets(
        trajectory, best_next_values(state.params, trajectory),
        config.discount, config.td_lambda))
    new_state, metrics = on_policy.minibatch_epochs(
        minibatch_loss, optimizer, state,
        {'observations': trajectory.observations,
         'actions': trajectory.actions, 'targets': targets,
         'mask': jnp.asarray(trajectory.mask, jnp.float32),
         **q_network.sequence_fields(trajectory)},
        config.num_epochs, config.num_minibatches,
        whole_sequences=q_network.recurrent)
    return new_state, dict(metrics,
                           epsilon=epsilon(state.updates * steps_per_update))

  return on_policy.epsilon_greedy_agent(
      q_network, init, update,
      agent_lib.DataRequirements(batch_size=config.batch_size,
                                 unroll_length=config.unroll_length),
      actor_params)
