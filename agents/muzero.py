"""MuZero (Schrittwieser et al., 2020) with Gumbel search, on mctx.

MuZero plans with a model it learns (`networks.learned_model`): the
representation h embeds the observation, the dynamics g step an embedding
by an action (predicting the reward), the prediction f gives a policy and
a value. At every step it searches over that model from h's embedding of
what it sees (`agents.search.search`: Gumbel MuZero's search, or PUCT) and
plays the move the search picks, so it needs nothing of the game but its
observations: it acts in the Python loop and the compiled loop alike, on
games whose simulator the agent must not use (hidden information) or has
no JAX step.

It learns from each step t of its batch by unrolling the model K steps
(`unroll_steps`) along the actions played: the policy at each of the
K + 1 positions towards the search's policy there, the value towards the
n-step return bootstrapped from the search's root values (`n_step`), and
each predicted reward towards the reward received. Past the end of a game
the model learns an absorbing state (value and reward 0; no policy
target); positions past a time limit or the batch's end count for nothing
(`unroll_targets`). The loss (`loss`) is a pure function of arrays; the
update is the on-policy skeleton's epochs of shuffled minibatches
(`agents.on_policy`), as AlphaZero's. Reanalysis (re-searching old data
with newer parameters) is not done: every batch is fresh.

What it exports and evaluation plays greedily is the network's own policy,
f after h, without search (`deployable_policy`); the `search` evaluation
protocol plays its search instead, without exploration
(`play_with_search`).
"""

import dataclasses
from typing import Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import mctx

from agents import action_masking
from agents import agent as agent_lib
from agents import config_checks
from agents import on_policy
from agents import optimizers
from agents import returns as returns_lib
from agents import search as search_lib
from environments import specs
from networks import learned_model

# The share of the gradient that flows back into each embedding the
# dynamics step from, the root's included (MuZero's pseudocode halves it
# after each dynamics step, and weights each unrolled position's loss by
# 1/K; here every position counts alike, `loss`).
DYNAMICS_GRADIENT_SCALE = 0.5


@dataclasses.dataclass(frozen=True)
class MuZeroConfig(search_lib.PlanningSettings):
  """MuZero's settings: `agents.search.PlanningSettings` (its search's and
  its learner's), some defaults changed (small games on a CPU), and its
  model's.

  Attributes:
    unroll_steps: K, the steps the model is unrolled along the actions
      played when it learns (MuZero's 5).
    reward_cost: weight of the reward loss.
  """
  # The search's Q-values as they are, not min-max scaled over the tree,
  # and a gentle σ: early on the learned model's Q-values are noise,
  # which rescaling would stretch to [0, 1] and σ sharpen into targets
  # that fix the policy before the model knows anything (Catch: no seed
  # of 3 reaches the target in 200k steps with mctx's Q transform, 3 of 3
  # in 50k with these; docs/benchmarks/learning.md, "MuZero").
  value_scale: float = 0.02
  rescale_values: bool = False
  discount: float = 0.99
  n_step: Optional[int] = 10  # MuZero's on Atari.
  # Fresh data's targets are worth more than MuZero's 0.25 (which is for
  # data reanalysed).
  value_cost: float = 1.0
  batch_size: int = 16
  # Many epochs: the model must learn faster than the search's targets
  # sharpen the policy.
  num_epochs: int = 16
  num_minibatches: int = 2
  unroll_steps: int = 5
  reward_cost: float = 1.0

  def __post_init__(self):
    self.check_planning()
    config_checks.check_positive_integer(self, 'unroll_steps')
    config_checks.check_non_negative(self, 'reward_cost')


def unroll_targets(trajectory: agent_lib.Trajectory, values: jax.Array,
                   unroll_steps: int, legal: Optional[jax.Array] = None
                  ) -> Dict[str, jax.Array]:
  """The targets of a model unrolled K = `unroll_steps` steps from each
  step t of a `[T, B]` trajectory, each field `[T, B, ...]`:

  * `actions [.., K]`: the actions a_{t..t+K-1} it unrolls along;
  * `search_policy [.., K+1, A]`, `policy_mask [.., K+1]`: the search's
    policy at t+k, counted while t+k is in the batch and the episode of t;
  * `value_target`, `value_mask [.., K+1]`: `values` (the value targets,
    `[T, B]`) at t+k; past the end of a game, 0 (an absorbing state);
  * `reward_target`, `reward_mask [.., K]`: the reward of step t+k (that
    the k+1-th dynamics step predicts); past the end of a game, 0;
  * `legal [.., K+1, A]` (if `legal`, bool `[T, B, A]`, is given): the
    legal actions at t+k, which mask the policy's logits there.

  Padding (`mask` 0) counts for nothing. Values and rewards count while
  t+k is in the batch and not past a time limit (`returns.time_limits`:
  the episode would have gone on, so what follows is no absorbing state;
  unless the trajectory has no `next_observations`, which makes time
  limits ends, `returns.time_limits_as_ends`).
  """
  t_len = trajectory.rewards.shape[0]
  steps = jnp.arange(t_len)
  positions = steps[:, None] + jnp.arange(unroll_steps + 1)  # [T, K+1]
  index = jnp.minimum(positions, t_len - 1)
  last = jnp.asarray(trajectory.last, bool)
  # The first step at or after each step that ends its episode (T: none).
  first_end = jax.lax.cummin(
      jnp.where(last, steps[:, None], t_len), axis=0, reverse=True)
  ended = ((positions[:, None, :] > first_end[:, :, None]) &
           (first_end < t_len)[:, :, None])  # [T, B, K+1]
  cut = (returns_lib.time_limits(trajectory) if
         trajectory.next_observations is not None else jnp.zeros_like(last))
  cut_first = jnp.take_along_axis(
      cut, jnp.minimum(first_end, t_len - 1), axis=0)  # [T, B]
  in_batch = jnp.broadcast_to((positions < t_len)[:, None], ended.shape)
  real = jnp.moveaxis(jnp.asarray(trajectory.mask)[index] > 0, 2, 1)
  in_batch = in_batch & real  # Padding (mask 0) counts for nothing.
  counted = in_batch & ~(ended & cut_first[:, :, None])

  def at(x: jax.Array) -> jax.Array:
    """x `[T, B, ...]` at steps t+k: `[T, B, K+1, ...]`."""
    return jnp.moveaxis(x[index], 2, 1)

  targets = {
      'actions': at(trajectory.actions)[:, :, :unroll_steps],
      'search_policy': at(trajectory.extras[search_lib.SEARCH_POLICY]),
      'policy_mask': (in_batch & ~ended).astype(jnp.float32),
      'value_target': jnp.where(ended, 0.0, at(values)),
      'value_mask': counted.astype(jnp.float32),
      'reward_target': jnp.where(ended, 0.0, at(trajectory.rewards)
                                )[:, :, :unroll_steps],
      'reward_mask': counted[:, :, :unroll_steps].astype(jnp.float32)}
  if legal is not None:
    targets['legal'] = at(legal)
  return targets


def _masked_mean(x: jax.Array, mask: jax.Array) -> jax.Array:
  return jnp.sum(x * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def loss(logits: jax.Array, values: jax.Array, rewards: jax.Array,
         batch: Dict[str, jax.Array], config: MuZeroConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """MuZero's loss over M positions each unrolled K steps: the
  cross-entropy of the policy against the search's, plus `value_cost`
  times ½ the squared value error, plus `reward_cost` times ½ the squared
  reward error, each the mean over the positions its mask counts
  (`unroll_targets`).

  Args:
    logits: `[M, K+1, A]` the policy logits at the root and after each
      dynamics step.
    values: `[M, K+1]` the values there.
    rewards: `[M, K]` the rewards the dynamics predicted.
    batch: `unroll_targets`' fields, each `[M, ...]`.
    config: the losses' weights.
  """
  chex.assert_equal_shape([values, batch['value_target']])
  chex.assert_equal_shape([rewards, batch['reward_target']])
  cross_entropy, entropy = search_lib.policy_loss(
      logits, batch.get('legal'), batch['search_policy'])
  policy_loss = _masked_mean(cross_entropy, batch['policy_mask'])
  value_loss = _masked_mean(0.5 * (values - batch['value_target'])**2,
                            batch['value_mask'])
  reward_loss = _masked_mean(0.5 * (rewards - batch['reward_target'])**2,
                             batch['reward_mask'])
  total = (policy_loss + config.value_cost * value_loss +
           config.reward_cost * reward_loss)
  return total, {
      'loss': total, 'policy_loss': policy_loss, 'value_loss': value_loss,
      'reward_loss': reward_loss, 'search_policy_entropy': _masked_mean(
          entropy[:, 0], batch['policy_mask'][:, 0])}


def scale_gradient(x: jax.Array, scale: float) -> jax.Array:
  """`x`, with the gradient flowing through it scaled by `scale`."""
  return x * scale + jax.lax.stop_gradient(x) * (1.0 - scale)


def unroll(model: learned_model.LearnedModel, params: hk.Params,
           observations: jax.Array, actions: jax.Array
          ) -> Tuple[jax.Array, jax.Array, jax.Array]:
  """`(logits [M, K+1, A], values [M, K+1], rewards [M, K])` of the model
  unrolled from `observations [M, ...]` along `actions [M, K]`."""
  embeddings = model.represent(params, observations)
  root_logits, root_values = model.predict(params, embeddings)

  def step(embeddings, actions):
    embeddings, rewards = model.dynamics(
        params, scale_gradient(embeddings, DYNAMICS_GRADIENT_SCALE), actions)
    logits, values = model.predict(params, embeddings)
    return embeddings, (logits, values, rewards)

  _, (logits, values, rewards) = jax.lax.scan(step, embeddings,
                                              jnp.swapaxes(actions, 0, 1))
  logits = jnp.concatenate([root_logits[None], logits])
  values = jnp.concatenate([root_values[None], values])
  return (jnp.swapaxes(logits, 0, 1), jnp.swapaxes(values, 0, 1),
          jnp.swapaxes(rewards, 0, 1))


def make_agent(config: MuZeroConfig,
               environment_spec: specs.EnvironmentSpec,
               network: learned_model.LearnedModel
              ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """MuZero with its learned model `network`
  (`networks.learned_model.LearnedModel`)."""
  if not isinstance(network, learned_model.LearnedModel):
    raise ValueError(f'MuZero needs a learned model (representation, '
                     f'dynamics and prediction: a network of kind '
                     f'learned_model, e.g. mlp_learned_model); got '
                     f'{type(network).__name__}.')
  model = network
  policy = on_policy.PolicyNetwork(model, environment_spec, 'MuZero',
                                   recurrent_ok=False)
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping,
      decay_steps=optimizers.decay_optimizer_steps(config))

  def recurrent_fn(params, key, actions, embeddings):
    del key  # Deterministic: `search_each` shares one key across roots.
    embeddings, rewards = model.dynamics(params, embeddings, actions)
    logits, values = model.predict(params, embeddings)
    return mctx.RecurrentFnOutput(
        reward=rewards, discount=jnp.full_like(rewards, config.discount),
        prior_logits=logits, value=values), embeddings

  def root_of(params, observations):
    legal = action_masking.legal_actions(environment_spec, observations)
    embeddings = model.represent(params, observations)
    logits, values = model.predict(params, embeddings)
    return mctx.RootFnOutput(
        prior_logits=action_masking.mask_logits(logits, legal),
        value=values, embedding=embeddings), legal

  def act(params, key, observations):
    root, legal = root_of(params, observations)
    return search_lib.search(config, params, key, root, recurrent_fn, legal)

  def play_with_search(params, keys, observations, model_states):
    del model_states  # It searches the model it learned.
    root, legal = root_of(params, observations)
    return search_lib.search_each(config, params, keys, root, recurrent_fn,
                                  legal, deterministic=True)[0]

  def minibatch_loss(params, batch):
    logits, values, rewards = unroll(model, params, batch['observations'],
                                     batch['actions'])
    return loss(logits, values, rewards, batch, config)

  def update(state: agent_lib.TrainingState,
             trajectory: agent_lib.Trajectory
            ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.rewards, trajectory.mask], 2)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    values = search_lib.value_targets(
        trajectory, policy.next_values(state.params, trajectory),
        config.discount, config.n_step)
    legal = action_masking.legal_actions(environment_spec,
                                         trajectory.observations)
    data = dict(unroll_targets(trajectory, values, config.unroll_steps,
                               legal),
                observations=trajectory.observations)
    state, metrics = on_policy.minibatch_epochs(
        minibatch_loss, optimizer, state, data, config.num_epochs,
        config.num_minibatches)
    return state, dict(metrics, search_value=jnp.mean(
        trajectory.extras[search_lib.SEARCH_VALUE]))

  return agent_lib.Agent(
      init=on_policy.init_state(model, environment_spec, optimizer),
      actor_params=lambda state: state.params, act=act, update=update,
      deployable_policy=policy.head.deployable_policy,
      data=agent_lib.DataRequirements(batch_size=config.batch_size,
                                      unroll_length=config.unroll_length),
      play_with_search=play_with_search)
