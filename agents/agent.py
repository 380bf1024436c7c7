"""The agent interface every agent implements, and the data it learns from.

An agent is a bundle of pure functions plus static data requirements. Params,
optimizer state and PRNG keys travel as arguments, never as hidden state, so
one agent definition serves both the Python `dm_env` loop (which jits `act`
and `update` separately) and a compiled loop (which calls them inside one
jitted `lax.scan`).

    learner_state = agent.init(key)
    params = agent.actor_params(learner_state)
    actions, extras = agent.act(params, key, observations)   # [N, ...] -> [N(, D)]
    learner_state, metrics = agent.update(learner_state, trajectory)
    outputs = agent.deployable_policy(params, observations)

A recurrent agent (a policy with memory) carries a state per environment
from step to step (`Recurrence`): loops keep it, flag each episode's first
step (which resets it) and act through `act_with_state`, which serves
feed-forward agents too (their state is empty).

A planning agent (AlphaZero) searches with the environment's own JAX
step as its model: it acts through `Planning.act`, which also takes the
environments' core states, so only a loop that holds them (the compiled
loop) can run it; its `act` refuses to run without them.

`deployable_policy` is what the TFLite export converts and greedy
evaluation plays (`agents.greedy`): over discrete actions, `[N, A]` action
probabilities, of which greedy play takes the most probable legal action;
over continuous actions (`[action_dim]` floats), `[N, action_dim]`
deterministic actions (the policy's mean, squashed and rescaled into the
action spec's bounds as when acting), which greedy play takes as they are.
"""

import dataclasses
from typing import Any, Callable, Dict, Generic, Mapping, NamedTuple, Optional, Tuple, TypeVar

import haiku as hk
import optax
import jax
import jax.numpy as jnp

Params = Any  # A pytree of arrays the actor needs (network params, epsilon…).
LearnerState = TypeVar('LearnerState')  # Params, optimizer state, PRNG key…
Extras = Dict[str, jax.Array]  # Per-step actor outputs (log-probs, values…).
Metrics = Mapping[str, jax.Array]


class Trajectory(NamedTuple):
  """A batch of experience, time-major: leading dims `[T, B]`.

  Step `t` of sequence `b` is: observe `observations[t]`, take `actions[t]`,
  receive `rewards[t]` and `discounts[t]` (0 at termination, else 1).
  An episode that ends (`last[t]`) with a discount above 0 was cut by a
  time limit, not ended by the game (`returns.time_limits`): its value
  goes on past the cut, so agents bootstrap there from the value of
  `next_observations[t]`, the observation the limit cut off.

  Attributes:
    observations: `[T, B, *obs_shape]`, o_t.
    actions: `[T, B]` int32 discrete actions, or `[T, B, action_dim]`
      float32 continuous ones as the agent drew them (before the
      environment clips them to its bounds), a_t.
    rewards: float32 `[T, B]`, r_{t+1}.
    discounts: float32 `[T, B]`, environment discount d_{t+1}.
    last: bool `[T, B]`, step t ended its episode (termination or truncation);
      returns must not flow across it.
    mask: float32 `[T, B]`, 1 for real steps and 0 for padding.
    final_observations: `[B, *obs_shape]`, the observation after the last
      step, for agents that bootstrap from a value.
    extras: per-step actor outputs, `[T, B, ...]` each.
    next_observations: `[T, B, *obs_shape]`, o_{t+1} of step t's own
      episode: `observations[t + 1]` inside an episode, the last
      observation of an episode where it ends (the one a time limit cut
      off), `final_observations` at t = T - 1. The loops fill it for
      fixed-length unrolls; None in whole-episode batches, where no agent
      bootstraps, and in trajectories made without it, where time limits
      then count as terminations (`returns.next_observations`).
  """
  observations: jax.Array
  actions: jax.Array
  rewards: jax.Array
  discounts: jax.Array
  last: jax.Array
  mask: jax.Array
  final_observations: jax.Array
  extras: Extras
  next_observations: Optional[jax.Array] = None


def flatten_steps(x: jax.Array) -> jax.Array:
  """`[T, B, ...] -> [T·B, ...]`: a trajectory field as a flat batch of
  steps (time-major, so step t of sequence b lands at t·B + b), as a JAX
  array even for NumPy input (so that traced indices can index it)."""
  x = jnp.asarray(x)
  return x.reshape((-1,) + x.shape[2:])


@dataclasses.dataclass(frozen=True)
class DataRequirements:
  """How loops must cut experience into `Trajectory` batches for `update`.

  Attributes:
    batch_size: sequences per update (B).
    unroll_length: steps per sequence (T); None means whole episodes, padded
      with `mask` 0 to a common length.
  """
  batch_size: int
  unroll_length: Optional[int] = None


RecurrentState = Any  # A pytree with a leading environment axis; () if none.


class Recurrence(NamedTuple):
  """How a recurrent agent acts step by step (`Agent.recurrence`).

  Attributes:
    initial_state: `n -> state` of n environments (each episode's first
      step resets to it).
    act: `(params, key, observations [N, ...], first [N], state) ->
      (actions, extras, state)`; `first` flags observations that begin an
      episode. The extras keep what the update replays sequences from:
      each step's `first` and the state it started from (`core_state`).
    deployable_policy: `(params, observations, first, state) -> (outputs,
      state)`, `Agent.deployable_policy` with the state threaded.
  """
  initial_state: Callable[[int], RecurrentState]
  act: Callable[..., Tuple[jax.Array, Extras, RecurrentState]]
  deployable_policy: Callable[..., Tuple[jax.Array, RecurrentState]]


class Planning(NamedTuple):
  """How a planning agent acts (`Agent.planning`).

  Attributes:
    act: `(params, keys [N], observations [N, ...], model_states) ->
      (actions, extras)`, where `model_states` are the N environments'
      core states (leading dim N), from which the agent searches with the
      core's step; environment i draws from `keys[i]` what it would draw
      acting alone, so its games do not depend on the others.
  """
  act: Callable[..., Tuple[jax.Array, Extras]]


@dataclasses.dataclass(frozen=True)
class Agent(Generic[LearnerState]):
  """Pure functions of one agent; see the module docstring.

  Attributes:
    init: `key -> learner_state`.
    actor_params: `learner_state -> params` the actor acts with.
    act: `(params, key, observations [N, ...]) -> (actions, extras)`,
      sampling an exploratory action (among legal ones): actions `[N]`
      int32, or `[N, action_dim]` float32 for continuous control.
    update: `(learner_state, trajectory) -> (learner_state, metrics)`; the
      learner state carries its own PRNG key.
    deployable_policy: `(params, observations [N, ...]) -> outputs`, the
      deployable policy: `[N, A]` probabilities, zero on illegal actions,
      or `[N, action_dim]` deterministic continuous actions (see the
      module docstring).
    data: how experience must be batched for `update`.
    recurrence: a recurrent agent's stepwise acting (its `act` and
      `deployable_policy` then refuse to run without a state); None for a
      feed-forward agent.
    planning: a planning agent's acting with the environments' states (its
      `act` then refuses to run without them); None for the others.
    play_with_search: `(params, keys [N], observations [N, ...],
      model_states) -> actions [N]`, the moves an agent that searches
      plays at evaluation (the `search` protocol): its search without
      exploration (no root noise, no random moves), one key per
      observation as `Planning.act` takes them. `model_states` are the
      environments' core states for an agent searching with the core's
      step (`planning`; it refuses None), ignored by one searching a model
      it learned. None for agents that do not search.
  """
  init: Callable[[jax.Array], LearnerState]
  actor_params: Callable[[LearnerState], Params]
  act: Callable[[Params, jax.Array, jax.Array], Tuple[jax.Array, Extras]]
  update: Callable[[LearnerState, Trajectory], Tuple[LearnerState, Metrics]]
  deployable_policy: Callable[[Params, jax.Array], jax.Array]
  data: DataRequirements
  recurrence: Optional[Recurrence] = None
  planning: Optional[Planning] = None
  play_with_search: Optional[Callable[..., jax.Array]] = None


def initial_state(agent: Agent, n: int) -> RecurrentState:
  """The state n environments start with: the recurrent agent's, else ()."""
  return () if agent.recurrence is None else agent.recurrence.initial_state(n)


def act_with_state(agent: Agent, params: Params, key: jax.Array,
                   observations: jax.Array, first: jax.Array,
                   state: RecurrentState
                  ) -> Tuple[jax.Array, Extras, RecurrentState]:
  """`(actions, extras, state)` of any agent: a recurrent one threads its
  state (reset where `first`), a feed-forward one acts as `act` does."""
  if agent.recurrence is None:
    actions, extras = agent.act(params, key, observations)
    return actions, extras, state
  return agent.recurrence.act(params, key, observations, first, state)


def deployable_with_state(agent: Agent, params: Params,
                          observations: jax.Array, first: jax.Array,
                          state: RecurrentState
                         ) -> Tuple[jax.Array, RecurrentState]:
  """`(deployable outputs, state)` of any agent (`act_with_state`'s
  counterpart for `deployable_policy`)."""
  if agent.recurrence is None:
    return agent.deployable_policy(params, observations), state
  return agent.recurrence.deployable_policy(params, observations, first,
                                            state)


def init_params(network: hk.Transformed, observation_spec: Any,
                key: jax.Array) -> hk.Params:
  """Initialises `network` on a dummy batch of one observation."""
  dummy = jnp.zeros((1,) + tuple(observation_spec.shape),
                    observation_spec.dtype)
  return network.init(key, dummy)


class TrainingState(NamedTuple):
  """Learner state of the gradient agents (REINFORCE, A2C, PPO)."""
  params: hk.Params
  opt_state: optax.OptState
  key: jax.Array
  updates: jax.Array  # int32 [], learner steps taken.


def init_training_state(network: hk.Transformed, observation_spec: Any,
                        optimizer: optax.GradientTransformation,
                        key: jax.Array) -> TrainingState:
  """Fresh params, optimizer state, PRNG key and a zero update count."""
  init_key, state_key = jax.random.split(key)
  params = init_params(network, observation_spec, init_key)
  return TrainingState(params, optimizer.init(params), state_key,
                       jnp.zeros((), jnp.int32))


def apply_gradients(optimizer: optax.GradientTransformation,
                    state: TrainingState, grads: hk.Params) -> TrainingState:
  """One `optimizer` step on `state.params` with `grads`, counted in
  `state.updates`; the PRNG key is kept."""
  updates, opt_state = optimizer.update(grads, state.opt_state, state.params)
  params = optax.apply_updates(state.params, updates)
  return TrainingState(params, opt_state, state.key, state.updates + 1)
