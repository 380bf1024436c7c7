"""Tests for agents/off_policy.py: the update shell of the replay agents."""

import dataclasses
from typing import NamedTuple

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import off_policy
from agents import replay as replay_lib
from environments import specs


@dataclasses.dataclass(frozen=True)
class _Config:
  num_actors: int = 2
  update_period: int = 3
  min_replay_size: int = 12
  sgd_steps_per_update: int = 4
  bootstrap_time_limits: bool = True


class _State(NamedTuple):
  replay: replay_lib.Replay
  key: jax.Array
  steps: jax.Array  # SGD steps taken.


class _CountingState(NamedTuple):
  replay: replay_lib.Replay
  key: jax.Array
  env_steps: jax.Array  # Transitions seen.


def _spec() -> specs.EnvironmentSpec:
  return specs.make_spec(
      dm_specs.Array((2,), np.float32),
      dm_specs.BoundedArray((1,), np.float32, -1.0, 1.0))


def _trajectory(config: _Config) -> agent_lib.Trajectory:
  shape = (config.update_period, config.num_actors)
  return agent_lib.Trajectory(
      observations=jnp.ones(shape + (2,)),
      actions=jnp.zeros(shape + (1,)),
      rewards=jnp.ones(shape), discounts=jnp.ones(shape),
      last=jnp.zeros(shape, bool), mask=jnp.ones(shape),
      final_observations=jnp.ones(shape[1:] + (2,)), extras={})


def _sgd_step(state, replay, key):
  del key
  return state._replace(steps=state.steps + 1), {
      'size_seen': replay.size.astype(jnp.float32)}


def _no_step(state, replay, key):
  del replay, key
  return state, {'size_seen': jnp.zeros((), jnp.float32)}


class MakeUpdateTest(absltest.TestCase):

  def test_learns_only_once_the_replay_holds_its_minimum(self):
    config = _Config()
    spec = _spec()
    update = jax.jit(off_policy.make_update(config, spec, _sgd_step, _no_step))
    state = _State(replay_lib.init_replay(100, spec.observations,
                                          spec.actions),
                   jax.random.PRNGKey(0), jnp.zeros((), jnp.int32))
    learned, steps, keys = [], [], [state.key]
    for _ in range(3):  # 6 transitions each: 6, 12, 18 in the replay.
      state, metrics = update(state, _trajectory(config))
      learned.append(float(metrics['learned']))
      steps.append(int(state.steps))
      keys.append(state.key)
    self.assertEqual(learned, [0.0, 1.0, 1.0])
    self.assertEqual(steps, [0, 4, 8])
    self.assertEqual(int(state.replay.size), 18)
    # The SGD steps read the replay as the update left it.
    self.assertEqual(float(metrics['size_seen']), 18.0)
    self.assertEqual(float(metrics['replay_size']), 18.0)
    # A fresh key every update.
    self.assertLen({tuple(np.asarray(k).ravel()) for k in keys}, 4)

  def test_counts_env_steps_keeps_priorities_and_takes_its_settings(self):
    config = _Config(min_replay_size=1)
    spec = _spec()

    def sgd_step(state, replay, key):
      del replay  # A prioritised step writes the state's priorities.
      priorities = state.replay.priorities + 1.0
      return state._replace(replay=state.replay._replace(
          priorities=priorities)), {'key_sum': (key[0] % 1000).astype(
              jnp.float32)}

    def no_step(state, replay, key):
      del replay, key
      return state, {'key_sum': jnp.zeros((), jnp.float32)}

    same_key = lambda key, n: jnp.stack([key] * n)
    update = jax.jit(off_policy.make_update(
        config, spec, sgd_step, no_step, sgd_keys=same_key,
        state_metrics=lambda state: {
            'seen': state.env_steps.astype(jnp.float32)}))
    state = _CountingState(
        replay_lib.init_replay(100, spec.observations, spec.actions,
                               prioritized=True),
        jax.random.PRNGKey(0), jnp.zeros((), jnp.int32))
    _, steps_key = jax.random.split(state.key)
    state, metrics = update(state, _trajectory(config))
    self.assertEqual(int(state.env_steps), 6)  # 3 steps of 2 actors.
    self.assertEqual(float(metrics['seen']), 6.0)
    # Inserted at priority 1, then four SGD steps each adding 1, kept.
    self.assertEqual(float(state.replay.priorities[0]), 5.0)
    self.assertEqual(float(metrics['key_sum']),
                     float(steps_key[0] % 1000))  # Each step's: same_key.

  def test_data_requirements_are_the_actors_and_the_update_period(self):
    data = off_policy.data_requirements(_Config())
    self.assertEqual((data.batch_size, data.unroll_length), (2, 3))


class TwinCriticLossTest(absltest.TestCase):

  def test_half_squared_errors_summed_over_critics_no_target_gradient(self):
    q, targets = jnp.array([[1.0, 2.0], [0.0, 0.0]]), jnp.zeros(2)
    loss, mean_q = off_policy.twin_critic_loss(q, targets)
    np.testing.assert_allclose(loss, (0.5 * (1 + 4) + 0.0) / 2)
    np.testing.assert_allclose(mean_q, 0.75)
    target_grad = jax.grad(
        lambda t: off_policy.twin_critic_loss(q, t)[0])(targets)
    np.testing.assert_array_equal(target_grad, 0.0)


if __name__ == '__main__':
  absltest.main()
