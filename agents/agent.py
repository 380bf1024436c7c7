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
  """
  observations: jax.Array
  actions: jax.Array
  rewards: jax.Array
  discounts: jax.Array
  last: jax.Array
  mask: jax.Array
  final_observations: jax.Array
  extras: Extras


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
  """
  init: Callable[[jax.Array], LearnerState]
  actor_params: Callable[[LearnerState], Params]
  act: Callable[[Params, jax.Array, jax.Array], Tuple[jax.Array, Extras]]
  update: Callable[[LearnerState, Trajectory], Tuple[LearnerState, Metrics]]
  deployable_policy: Callable[[Params, jax.Array], jax.Array]
  data: DataRequirements


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
