"""The on-policy family's skeleton: acting, recurrence and the update's shell.

REINFORCE, A2C, PPO, IMPALA and PQN learn from the batch their actors have
just collected. What they share is written here once; what each adds is
its loss, a pure function of arrays in its own module (`reinforce.loss`,
`a2c.loss`, `ppo.loss`, `impala.loss`, `pqn.loss`), tested alone.

* `PolicyNetwork`: a policy or actor-critic network as the losses see it,
  feed-forward and recurrent alike. It samples actions, gives the outputs
  and values of a `[T, B]` trajectory's steps (a recurrent network replays
  each sequence from the state it began in) and the values v(o_{t+1}) that
  bootstrapping needs, so no agent branches on recurrence.
* `QValueNetwork`: PQN's Q-network as its update sees it, feed-forward and
  recurrent alike: the Q-values of each next observation and of a
  minibatch's steps (a recurrent network's sequences replayed).
* `agent`, `epsilon_greedy_agent`: the `Agent` around a learner: its
  `init`, acting with the network (sampling from a policy, or ε-greedily
  by Q-values; step by step with its state when recurrent) and the
  deployable policy.
* The update's shell, in two kinds: `gradient_step`, one step on the whole
  batch (REINFORCE, A2C, IMPALA), and `minibatch_epochs`, epochs of
  shuffled minibatches over targets computed first (PPO, PQN).

Split over devices (`agents.data_parallel`), `gradient_step` sums each
device's share of the batch's mean loss, and `minibatch_epochs` gathers the
whole batch on every device, which then takes its share of each minibatch.
"""

from typing import Any, Callable, Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import data_parallel
from agents import epsilon_greedy
from agents import minibatches
from agents import policy_heads
from agents import recurrent_policy
from agents import returns as returns_lib
from environments import specs
from networks import recurrent as recurrent_lib

Loss = Callable[..., Tuple[jax.Array, agent_lib.Metrics]]
# `(outputs, values, actions) -> extras` the actor records for the learner.
Record = Callable[[Any, Optional[jax.Array], jax.Array], agent_lib.Extras]


class PolicyNetwork:
  """A policy (obs -> logits) or actor-critic network (obs -> (logits,
  values), or (means, log_stds, values) over continuous actions), or a
  recurrent one (`networks.recurrent.RecurrentNetwork`), seen through its
  action distribution (`policy_heads`), illegal actions masked."""

  def __init__(self, network: hk.Transformed,
               environment_spec: specs.EnvironmentSpec, agent: str,
               has_values: bool = True, squash_actions: bool = False,
               recurrent_ok: bool = True):
    """`agent` names the agent in the refusals of a recurrent network
    (on continuous actions, or by an agent that is not `recurrent_ok`);
    `has_values`: the network also outputs values; `squash_actions`: tanh a
    Gaussian's actions into their bounds."""
    self.network = network
    self.environment_spec = environment_spec
    self.recurrent = recurrent_lib.is_recurrent(network)
    if self.recurrent and not recurrent_ok:
      raise ValueError(f'{agent} acts with a feed-forward network; this '
                       f'one is recurrent. Use a feed-forward actor-critic '
                       f'(e.g. mlp_actor_critic).')
    if self.recurrent:
      recurrent_policy.check_environment(environment_spec, agent)
      self.head = policy_heads.categorical_head(None, environment_spec)
    elif has_values:
      self.head = policy_heads.policy_head(network, environment_spec,
                                           squash_actions)
    else:
      self.head = policy_heads.categorical_head(network, environment_spec,
                                                has_values=False)

  def act(self, params: hk.Params, key: jax.Array, observations: jax.Array
         ) -> Tuple[jax.Array, Any, Optional[jax.Array]]:
    """`(actions [N], outputs, values [N] or None)` of a feed-forward
    network (a recurrent one acts through `agent`'s `Recurrence`)."""
    outputs, values = self.head.forward(params, observations)
    return self.head.sample(key, outputs), outputs, values

  def outputs(self, params: hk.Params, observations: jax.Array,
              extras: agent_lib.Extras
             ) -> Tuple[Any, Optional[jax.Array], Any]:
    """`(outputs of the T·B steps, values [T, B] or None, the recurrent
    state after the last step (None when feed-forward))` of sequences
    `observations [T, B, ...]` acted with `extras`."""
    t, b = observations.shape[:2]
    if self.recurrent:
      logits, values, final = recurrent_policy.replay(
          self.network, self.environment_spec, params, observations, extras)
      return agent_lib.flatten_steps(logits), values, final
    outputs, values = self.head.forward(params,
                                        agent_lib.flatten_steps(observations))
    return outputs, None if values is None else values.reshape(t, b), None

  def sequence_fields(self, trajectory: agent_lib.Trajectory
                     ) -> Dict[str, Any]:
    """What a minibatch of a recurrent network's sequences must carry to be
    replayed (`sequence_fields`); nothing for a feed-forward network."""
    return sequence_fields(trajectory) if self.recurrent else {}

  def minibatch_outputs(self, params: hk.Params, batch: Dict[str, Any]
                       ) -> Tuple[Tuple[Any, jax.Array], Dict[str, Any]]:
    """`((outputs, values) of a minibatch's M steps, the minibatch with
    each field [M, ...])`: `minibatch_epochs` gives a feed-forward network
    steps `[M, ...]`, a recurrent one sequences `[T, b, ...]`, replayed from
    their first state (`sequence_fields`), then flattened."""
    if not self.recurrent:
      return self.head.forward(params, batch['observations']), batch
    logits, values, _ = recurrent_policy.replay(
        self.network, self.environment_spec, params, batch['observations'],
        batch['extras'])
    flat = agent_lib.flatten_steps
    return (flat(logits), flat(values)), jax.tree.map(flat, batch)

  def next_values(self, params: hk.Params,
                  trajectory: agent_lib.Trajectory,
                  final_state: Any = None) -> jax.Array:
    """`[T, B]` v(o_{t+1}) of each step's own episode, without gradient:
    the last row is the unroll's bootstrap, the others count at time limits
    only (`returns.with_time_limit_values`), so only the last is computed
    unless a time limit fell before it (`returns.next_values`; the others
    are 0).

    A recurrent network steps from the state after each step (`final_state`
    is the one after the last, from `outputs`; None: found by taking the
    last step again)."""
    if not self.recurrent:
      return returns_lib.next_values(
          lambda observations: self.head.forward(params, observations)[1],
          trajectory)
    if final_state is None:
      final_state = recurrent_policy.final_state(
          self.network, params, trajectory.observations, trajectory.extras)
    if trajectory.next_observations is None:
      (_, final_values), _ = self.network.step(
          params, trajectory.final_observations,
          jnp.zeros(trajectory.rewards.shape[1], bool), final_state)
      values = jnp.zeros(trajectory.rewards.shape).at[-1].set(final_values)
    else:
      values = recurrent_policy.next_values(
          self.network, params, trajectory.next_observations,
          trajectory.extras, final_state)
    return jax.lax.stop_gradient(values)


class QValueNetwork:
  """A Q-network as PQN's update sees it, feed-forward (observations
  `[N, ...]` → `[N, A]`) or recurrent (`networks.recurrent`, Q-values as
  its outputs), so the agent does not branch on recurrence."""

  def __init__(self, network: Any, environment_spec: specs.EnvironmentSpec,
               agent: str):
    """`agent` names the agent in the refusal of continuous actions by a
    recurrent network."""
    self.network = network
    self.environment_spec = environment_spec
    self.recurrent = recurrent_lib.is_recurrent(network)
    if self.recurrent:
      recurrent_policy.check_environment(environment_spec, agent)

  def __call__(self, params: hk.Params, observations: jax.Array
              ) -> jax.Array:
    """`[N, A]` Q-values of a feed-forward network."""
    values = self.network.apply(params, observations)
    chex.assert_shape(values, (observations.shape[0],
                               self.environment_spec.num_actions))
    return values

  def next_q_values(self, params: hk.Params,
                    trajectory: agent_lib.Trajectory) -> jax.Array:
    """`[T, B, A]` Q(o_{t+1}, ·) of each step's own episode
    (`returns.next_observations`); a recurrent network steps from the state
    after step t (after the last: its final step taken again)."""
    next_observations = returns_lib.next_observations(trajectory)
    t, b = trajectory.rewards.shape
    if not self.recurrent:
      flat = agent_lib.flatten_steps(next_observations)
      return self(params, flat).reshape(t, b, -1)
    extras = trajectory.extras
    final_state = recurrent_policy.final_state(
        self.network, params, trajectory.observations, extras)
    if trajectory.next_observations is not None:
      return recurrent_policy.next_outputs(
          self.network, params, next_observations, extras, final_state)
    # o_{t+1} is the next step's observation, replayed in sequence.
    replayed, _ = self._unroll(params, trajectory.observations, extras)
    last, _ = self.network.step(params, trajectory.final_observations,
                                jnp.zeros(b, bool), final_state)
    return jnp.concatenate([replayed[1:], last[None]])

  def sequence_fields(self, trajectory: agent_lib.Trajectory
                     ) -> Dict[str, Any]:
    """What a minibatch of a recurrent network's sequences must carry to be
    replayed (`sequence_fields`); nothing for a feed-forward network."""
    return sequence_fields(trajectory) if self.recurrent else {}

  def minibatch_q_values(self, params: hk.Params, batch: Dict[str, Any]
                        ) -> Tuple[jax.Array, Dict[str, Any]]:
    """`(Q-values [M, A], the minibatch with each field [M, ...])`: steps
    `[M, ...]` of a feed-forward network; sequences `[T, b, ...]` of a
    recurrent one, replayed from their first state, then flattened."""
    if not self.recurrent:
      return self(params, batch['observations']), batch
    q_values, _ = self._unroll(params, batch['observations'],
                               batch['extras'])
    flat = agent_lib.flatten_steps
    return flat(q_values), jax.tree.map(flat, batch)

  def _unroll(self, params: hk.Params, observations: jax.Array,
              extras: agent_lib.Extras) -> Tuple[jax.Array, Any]:
    start = jax.tree.map(lambda x: x[0], extras[recurrent_policy.CORE_STATE])
    return self.network.unroll(params, observations,
                               extras[recurrent_policy.FIRST], start)


def sequence_fields(trajectory: agent_lib.Trajectory) -> Dict[str, Any]:
  """What a minibatch of a recurrent network's sequences must carry to be
  replayed: each step's `first` flag and the state it began in."""
  return {'extras': {k: trajectory.extras[k] for k in (
      recurrent_policy.FIRST, recurrent_policy.CORE_STATE)}}


def _no_extras(outputs, values, actions) -> agent_lib.Extras:
  del outputs, values, actions
  return {}


def agent(policy: PolicyNetwork, init: Callable[[jax.Array], Any],
          update: Callable[..., Tuple[Any, agent_lib.Metrics]],
          data: agent_lib.DataRequirements,
          actor_params: Callable[[Any], hk.Params] = (
              lambda state: state.params),
          record: Record = _no_extras) -> agent_lib.Agent:
  """The `Agent` of a learner (`init`, `update`, `actor_params`) acting
  with `policy`: sampled actions and the extras `record` keeps of each
  step. A recurrent network acts with its state (`recurrent_policy`),
  which records its own extras: `log_prob`, `value` (an actor-critic's),
  `first` and `core_state`; an agent whose `record` keeps anything else
  refuses recurrent networks (`PolicyNetwork`'s `recurrent_ok`)."""
  if policy.recurrent:
    return recurrent_policy.agent(init, actor_params, update, data,
                                  policy.network, policy.environment_spec)

  def act(params, key, observations):
    actions, outputs, values = policy.act(params, key, observations)
    return actions, record(outputs, values, actions)

  return agent_lib.Agent(init=init, actor_params=actor_params, act=act,
                         update=update,
                         deployable_policy=policy.head.deployable_policy,
                         data=data)


def epsilon_greedy_agent(q_network: QValueNetwork,
                         init: Callable[[jax.Array], Any],
                         update: Callable[..., Tuple[Any, agent_lib.Metrics]],
                         data: agent_lib.DataRequirements,
                         actor_params: Callable[[Any], Dict[str, Any]]
                        ) -> agent_lib.Agent:
  """The `Agent` of a learner acting ε-greedily by `q_network`'s values
  (`epsilon_greedy`; `actor_params` give `{'online': params, 'epsilon':
  ε}`), with its state when the network is recurrent."""
  spec = q_network.environment_spec
  if q_network.recurrent:
    return agent_lib.Agent(
        init=init, actor_params=actor_params,
        act=recurrent_policy.refuse_stateless, update=update,
        deployable_policy=recurrent_policy.refuse_stateless, data=data,
        recurrence=epsilon_greedy.recurrence(spec, q_network.network))
  act, deployable_policy = epsilon_greedy.policy(spec, q_network)
  return agent_lib.Agent(init=init, actor_params=actor_params, act=act,
                         update=update, deployable_policy=deployable_policy,
                         data=data)


def init_state(network: hk.Transformed,
               environment_spec: specs.EnvironmentSpec,
               optimizer: optax.GradientTransformation
              ) -> Callable[[jax.Array], agent_lib.TrainingState]:
  """`key -> TrainingState`: fresh params, optimizer state and key."""
  return lambda key: agent_lib.init_training_state(
      network, environment_spec.observations, optimizer, key)


def gradient_step(loss: Loss, optimizer: optax.GradientTransformation,
                  state: agent_lib.TrainingState, *batch: Any
                 ) -> Tuple[agent_lib.TrainingState, Dict[str, jax.Array]]:
  """One `optimizer` step on `loss(params, *batch) -> (loss, metrics)` over
  the whole batch, with `grad_norm` added to its metrics. Split over
  devices, each device's loss is its share of the batch's mean, so
  gradients and metrics are summed."""
  grads, metrics = jax.grad(loss, has_aux=True)(state.params, *batch)
  grads, metrics = data_parallel.total((grads, metrics))
  metrics = dict(metrics, grad_norm=optax.global_norm(grads))
  return agent_lib.apply_gradients(optimizer, state, grads), metrics


def minibatch_epochs(loss: Loss, optimizer: optax.GradientTransformation,
                     state: agent_lib.TrainingState, data: Dict[str, Any],
                     num_epochs: int, num_minibatches: int,
                     whole_sequences: bool = False
                    ) -> Tuple[agent_lib.TrainingState, Dict[str, jax.Array]]:
  """`num_epochs` passes of shuffled minibatches (`agents.minibatches`)
  over `data` (`[T, B, ...]` fields: every device's share gathered first),
  one `optimizer` step on `loss(params, minibatch)` each; the metrics are
  means over every step. `whole_sequences`: minibatches of sequences (a
  recurrent network's), else of steps."""
  data = data_parallel.gather(data, axis=1)
  key, epochs_key = jax.random.split(state.key)
  (params, opt_state), metrics = minibatches.epochs(
      minibatches.sgd_step(loss, optimizer), (state.params, state.opt_state),
      data, epochs_key, num_epochs, num_minibatches,
      whole_sequences=whole_sequences)
  return (agent_lib.TrainingState(params, opt_state, key, state.updates + 1),
          jax.tree.map(jnp.mean, metrics))
