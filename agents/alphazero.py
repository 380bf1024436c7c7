"""AlphaZero with Gumbel search (Danihelka et al., 2022) on mctx.

The agent plans with the environment's own JAX step as its model: at every
step it searches from the environment's state (`mctx.gumbel_muzero_policy`,
or PUCT search with Dirichlet noise, `mctx.muzero_policy`, as
`search='puct'`), guided by an actor-critic network's prior and values,
and plays the action the search picks. It learns, as AlphaZero does, to
predict the search: the policy towards the search's improved policy
(`action_weights`), the value towards the returns that followed (game
outcomes by default; `n_step` bootstraps from the search's root values
n steps on instead).

Two-player games (`environments.two_player`) need nothing more: the
network sees the board from the mover's side, the model's discount is -1
where the turn passes (mctx backs values up through it, negamax), and the
returns carry the same sign (`returns.continuation_discounts`). So the
agent learns by self-play, acting for whoever is to move.

What it exports and evaluation plays greedily is the network's own policy,
without search (`deployable_policy`); the `search` evaluation protocol
plays its search instead, without exploration (`play_with_search`). The
search runs where the loop holds the environments' states: the compiled
loop (`Agent.planning`) and evaluation on a JAX core.

The loss (`loss`) is a pure function of arrays; the update is the
on-policy skeleton's epochs of shuffled minibatches (`agents.on_policy`).
"""

import dataclasses
from typing import Any, Callable, Dict, Optional, Tuple

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
from environments import functional
from environments import specs

@dataclasses.dataclass(frozen=True)
class AlphaZeroConfig(search_lib.PlanningSettings):
  """AlphaZero's settings: `agents.search.PlanningSettings` (its search's
  and its learner's), with their defaults (small board games on a CPU),
  and one of its own.

  Attributes:
    sampled_states: in a game that hides part of its state (Plane Strike),
      the states drawn from what the player knows at each move, one search
      over each: the policy target is their searches' mean, and play by
      search (the `search` evaluation protocol) picks the move that mean
      favours (self-play plays the first search's move). 1: one search
      over one drawn state. Games that hide nothing ignore it.
  """
  sampled_states: int = 1

  def __post_init__(self):
    self.check_planning()
    config_checks.check_positive_integer(self, 'sampled_states')


def loss(logits: jax.Array, values: jax.Array, legal: Optional[jax.Array],
         batch: Dict[str, jax.Array], config: AlphaZeroConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """AlphaZero's loss over a minibatch of M steps: the cross-entropy of
  the network's policy (illegal actions masked) against the search's
  policy, plus `value_cost` times ½ the squared value error.

  Args:
    logits: `[M, A]` the network's policy logits.
    values: `[M]` its values.
    legal: bool `[M, A]` legal actions, or None if all are.
    batch: `search_policy` `[M, A]` (the targets, zero on illegal
      actions) and `value_target` `[M]`.
    config: the value loss's weight.
  """
  cross_entropy, entropy = search_lib.policy_loss(
      logits, legal, batch['search_policy'])
  policy_loss = cross_entropy.mean()
  value_loss = 0.5 * jnp.mean((values - batch['value_target'])**2)
  total = policy_loss + config.value_cost * value_loss
  return total, {'loss': total, 'policy_loss': policy_loss,
                 'value_loss': value_loss,
                 'search_policy_entropy': entropy.mean()}


def draws_states(model: functional.FunctionalEnvironment) -> bool:
  """Whether the game's state hides what the player may not see and the
  game draws states from the player's knowledge instead (its
  `sample_state`): AlphaZero searches over those, not the state it has."""
  return bool(getattr(model, 'hidden_state', False) and
              hasattr(model, 'sample_state'))


def search_policy(config: AlphaZeroConfig,
                  environment_spec: specs.EnvironmentSpec,
                  network: hk.Transformed,
                  model: functional.FunctionalEnvironment,
                  deterministic: bool = False
                 ) -> Callable[..., Tuple[jax.Array, agent_lib.Extras]]:
  """`(params, keys [N], observations [N, ...], states [N]) -> (actions
  [N], extras)`: one search per environment from its state, stepping
  `model` (`agents.search.search_each`, whose extras keep the search's
  policy and root value), each environment drawing from its own key what
  it would draw acting alone; `deterministic`: the search played at
  evaluation, without exploration. In a game that hides part of its
  state, `sampled_states` searches per environment, each over a state
  drawn from what the player knows."""

  sampled = draws_states(model)
  if sampled and config.n_step is not None:
    raise ValueError(
        'AlphaZero searches this game over states drawn from what the '
        'player knows, whose root values know the drawn state: n-step '
        'targets would bootstrap from them. Use n_step=None (returns to '
        'the episode\'s end).')

  def legal_of(observations, states):
    if hasattr(model, 'legal_action_mask'):
      return jax.vmap(model.legal_action_mask)(states)
    return action_masking.legal_actions(environment_spec, observations)

  def evaluate(params, observations, states):
    logits, values = network.apply(params, observations)
    return action_masking.mask_logits(logits, legal_of(observations,
                                                       states)), values

  def recurrent_fn(params, key, actions, states):
    del key  # The game draws from its own state: `search_each` shares
    # one key across roots.
    states, timesteps = jax.vmap(model.step)(states, actions)
    logits, values = evaluate(params, timesteps.observation, states)
    ended = timesteps.discount == 0
    return mctx.RecurrentFnOutput(
        reward=timesteps.reward,
        discount=config.discount * timesteps.discount,
        prior_logits=logits,
        value=jnp.where(ended, 0.0, values)), states

  def search_from(params, keys, observations, states):
    legal = legal_of(observations, states)
    logits, values = network.apply(params, observations)
    root = mctx.RootFnOutput(
        prior_logits=action_masking.mask_logits(logits, legal),
        value=values, embedding=states)
    return search_lib.search_each(config, params, keys, root, recurrent_fn,
                                  legal, deterministic)

  def split_each(keys, num):  # [N] keys -> num rows of [N] keys.
    return jnp.moveaxis(jax.vmap(lambda k: jax.random.split(k, num))(keys),
                        1, 0)

  def draw_states(keys, observations):
    # Each environment's draw as its batch of one draws it.
    return jax.vmap(lambda key, observation: model.sample_state(
        observation, jax.random.split(key, 1)[0]))(keys, observations)

  def act(params, keys, observations, states):
    if not sampled:
      return search_from(params, keys, observations, states)
    keys, sample_keys = split_each(keys, 2)
    if config.sampled_states == 1:
      return search_from(params, keys, observations,
                         draw_states(sample_keys, observations))
    # One search per drawn state; their policies and values averaged.
    draws = config.sampled_states
    actions, extras = jax.vmap(
        lambda search_keys, draw_keys: search_from(
            params, search_keys, observations,
            draw_states(draw_keys, observations)))(
                split_each(keys, draws), split_each(sample_keys, draws))
    extras = jax.tree.map(lambda x: jnp.mean(x, axis=0), extras)
    if deterministic:  # The searches' mean is zero on illegal moves.
      actions = jnp.argmax(extras[search_lib.SEARCH_POLICY],
                           axis=-1).astype(jnp.int32)
    else:
      actions = actions[0]
    return actions, extras

  return act


def _refuse_without_states(*args: Any) -> Any:
  del args
  raise ValueError('AlphaZero acts by searching from the environments\' '
                   'states: act through agent.planning (the compiled loop '
                   'does).')


def make_agent(config: AlphaZeroConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed,
               model: Optional[functional.FunctionalEnvironment] = None
              ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """AlphaZero around an actor-critic `network` (obs -> (logits, values)),
  planning with `model`, the environment's JAX core (None: an agent that
  trains and exports, but cannot act: export and evaluation need only its
  network)."""
  policy = on_policy.PolicyNetwork(network, environment_spec, 'AlphaZero',
                                   recurrent_ok=False)
  optimizer = optimizers.make_optimizer(
      config.learning_rate, max_grad_norm=config.max_grad_norm,
      gradient_clipping=config.gradient_clipping,
      decay_steps=optimizers.decay_optimizer_steps(config))

  def minibatch_loss(params, batch):
    logits, values = network.apply(params, batch['observations'])
    legal = action_masking.legal_actions(environment_spec,
                                         batch['observations'])
    return loss(logits, values, legal, batch, config)

  def update(state: agent_lib.TrainingState,
             trajectory: agent_lib.Trajectory
            ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank([trajectory.rewards, trajectory.mask], 2)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    targets = search_lib.value_targets(
        trajectory, policy.next_values(state.params, trajectory),
        config.discount, config.n_step)
    data = {'observations': trajectory.observations,
            'search_policy': trajectory.extras[search_lib.SEARCH_POLICY],
            'value_target': targets}
    state, metrics = on_policy.minibatch_epochs(
        minibatch_loss, optimizer, state, data, config.num_epochs,
        config.num_minibatches)
    return state, dict(metrics, search_value=jnp.mean(
        trajectory.extras[search_lib.SEARCH_VALUE]))

  planning = None if model is None else agent_lib.Planning(
      search_policy(config, environment_spec, network, model))
  searched = None if model is None else search_policy(
      config, environment_spec, network, model, deterministic=True)

  def play_with_search(params, keys, observations, states):
    if states is None and not draws_states(model):
      raise ValueError('AlphaZero plays by searching from the game\'s '
                       'states, and this evaluation has none (a game '
                       'without a JAX core): evaluate on one with a core, '
                       'or greedily (--eval_policy=greedy).')
    return searched(params, keys, observations, states)[0]
  return agent_lib.Agent(
      init=on_policy.init_state(network, environment_spec, optimizer),
      actor_params=lambda state: state.params, act=_refuse_without_states,
      update=update, deployable_policy=policy.head.deployable_policy,
      data=agent_lib.DataRequirements(batch_size=config.batch_size,
                                      unroll_length=config.unroll_length),
      planning=planning,
      play_with_search=None if model is None else play_with_search)
