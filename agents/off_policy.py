"""The off-policy skeleton the replay agents share (the DQN family, SAC, TD3).

An off-policy agent acts in `num_actors` environments for `update_period`
steps, writes what it saw into a replay on the device and, once the replay
holds `min_replay_size` transitions, takes `sgd_steps_per_update` SGD
steps on minibatches drawn from it. What differs between agents is the SGD
step (their losses and target updates); this module owns the rest:

- `data_requirements`: the batches the loops cut for `update`;
- `init_actor_critic`: actor and critic params of an actor-twin-Q network;
- `make_update`: `update(state, trajectory)` around an agent's `sgd_step`
  (its n-step transitions, SGD keys and extra metrics as settings);
- `twin_critic_loss`: the twin critics' regression on their targets, the
  loss SAC's and TD3's critics share (their targets differ).

The replay settings are declared here, once (`ReplaySettings`, the base of
the DQN family's, SAC's and TD3's configs); a state here is any NamedTuple
with `replay` and `key` fields, and `make_update` counts the transitions
it inserts into its `env_steps` where it has that field (so an agent's
SGD step must not count them again).
"""

import dataclasses
from typing import Any, Callable, Dict, Optional, Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import rlax

from agents import agent as agent_lib
from agents import config_checks
from agents import replay as replay_lib
from agents import returns as returns_lib
from environments import specs
from networks import actor_twin_q


@dataclasses.dataclass(frozen=True)
class ReplaySettings:
  """The settings the skeleton reads from a replay agent's config: how
  its actors feed the replay, and when and how often SGD reads it (an
  agent's config subclasses this, redeclaring a field to change its
  default, as DQN's does).

  Attributes:
    batch_size: transitions per SGD minibatch, sampled uniformly.
    replay_capacity: transitions the circular replay buffer holds.
    min_replay_size: transitions stored before SGD starts.
    update_period: environment steps per `update` call and environment
      (the loop's `unroll_length`).
    num_actors: environments acting side by side.
    sgd_steps_per_update: SGD steps per `update` call.
  """
  batch_size: int = 256
  replay_capacity: int = 100_000
  min_replay_size: int = 1_000
  update_period: int = 1
  num_actors: int = 1
  sgd_steps_per_update: int = 1
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def __post_init__(self):
    config_checks.check_positive_integer(
        self, 'batch_size', 'replay_capacity', 'min_replay_size',
        'update_period', 'num_actors', 'sgd_steps_per_update')
    config_checks.check_replay_sizes(self)

  def batch_splits(self) -> Dict[str, int]:
    """What a device count splitting one seed must divide
    (`agents.registry.batch_splits`): each minibatch is split."""
    return {'batch_size (transitions per SGD step)': self.batch_size}


# `(state, replay, key) -> (state, metrics)`: the replay is read only (a
# prioritised one's new priorities go into `state.replay.priorities`).
SGDStep = Callable[[Any, replay_lib.Replay, jax.Array], Tuple[Any, Dict]]


def data_requirements(config: Any) -> agent_lib.DataRequirements:
  """`num_actors` environments, `update_period` steps per `update`."""
  return agent_lib.DataRequirements(batch_size=config.num_actors,
                                    unroll_length=config.update_period)


def init_actor_critic(network: hk.MultiTransformed, key: jax.Array,
                      environment_spec: specs.EnvironmentSpec
                     ) -> Tuple[hk.Params, hk.Params]:
  """The actor's and the critics' params of an actor-twin-Q `network`
  (`networks.actor_twin_q`), initialised on one dummy observation and
  action."""
  observation_spec = environment_spec.observations
  observations = jnp.zeros((1,) + tuple(observation_spec.shape),
                           observation_spec.dtype)
  actions = jnp.zeros((1, environment_spec.action_dim), jnp.float32)
  return actor_twin_q.split_params(network.init(key, observations, actions))


def split_keys(key: jax.Array, num_steps: int) -> jax.Array:
  """The keys of one update's `num_steps` SGD steps: `key` split."""
  return jax.random.split(key, num_steps)


def make_update(config: Any, environment_spec: specs.EnvironmentSpec,
                sgd_step: SGDStep, no_step: SGDStep, *, n_step: int = 1,
                discount: float = 1.0,
                sgd_keys: Callable[[jax.Array, int], jax.Array] = split_keys,
                state_metrics: Optional[Callable[[Any], Dict]] = None
               ) -> Callable[[Any, agent_lib.Trajectory],
                             Tuple[Any, agent_lib.Metrics]]:
  """`update(state, trajectory)` of a replay agent.

  The trajectory's transitions (`n_step`-step ones, discounted by
  `discount`; time limits ended there unless
  `config.bootstrap_time_limits`) go into `state.replay` (and into
  `state.env_steps`, where the state counts them); then
  `config.sgd_steps_per_update` of `sgd_step`, each with its key of
  `sgd_keys(key, steps)`, once the replay holds `config.min_replay_size`
  transitions, else as many of `no_step` (same shapes and metrics: under
  vmap both run). The replay rides through the SGD steps without its
  transitions, which each step reads beside it: a step returns the state
  it was given with its own fields updated, and a prioritised replay's
  `state.replay.priorities`. The metrics are the steps' means, with
  `learned`, `replay_size` and `state_metrics(state)` of the new state.
  """
  action_shape = tuple(environment_spec.actions.shape)
  observation_shape = tuple(environment_spec.observations.shape)

  def update(state: Any, trajectory: agent_lib.Trajectory
            ) -> Tuple[Any, agent_lib.Metrics]:
    chex.assert_rank([trajectory.rewards, trajectory.discounts,
                      trajectory.last, trajectory.mask], 2)
    steps = trajectory.rewards.shape
    chex.assert_shape(trajectory.actions, steps + action_shape)
    chex.assert_shape(trajectory.observations, steps + observation_shape)
    chex.assert_shape(trajectory.final_observations,
                      steps[1:] + observation_shape)
    trajectory = returns_lib.time_limits_as_ends(
        trajectory, config.bootstrap_time_limits)
    replay, valid = replay_lib.insert_trajectory(state.replay, trajectory,
                                                 n_step, discount)
    if hasattr(state, 'env_steps'):
      state = state._replace(
          env_steps=state.env_steps + jnp.sum(valid, dtype=jnp.int32))
    key, steps_key = jax.random.split(state.key)
    learns = replay.size >= config.min_replay_size

    def step(current, step_key):
      whole = replay._replace(priorities=current.replay.priorities)
      return jax.lax.cond(learns, sgd_step, no_step, current, whole,
                          step_key)

    state, metrics = jax.lax.scan(
        step, state._replace(replay=replay._replace(transitions=None)),
        sgd_keys(steps_key, config.sgd_steps_per_update))
    state = state._replace(
        replay=replay._replace(priorities=state.replay.priorities), key=key)
    metrics = dict(jax.tree.map(jnp.mean, metrics),
                   learned=learns.astype(jnp.float32),
                   replay_size=replay.size.astype(jnp.float32),
                   **(state_metrics(state) if state_metrics else {}))
    return state, metrics

  return update


def twin_critic_loss(q: jax.Array, targets: jax.Array
                    ) -> Tuple[jax.Array, jax.Array]:
  """`(loss, mean Q)` of twin critics `q [B, 2]` regressed on `targets
  [B]` (no gradient): ½ each critic's squared error, summed over the two,
  averaged over the batch."""
  targets = jax.lax.stop_gradient(targets)
  return jnp.mean(jnp.sum(rlax.l2_loss(q - targets[:, None]), -1)), jnp.mean(q)
