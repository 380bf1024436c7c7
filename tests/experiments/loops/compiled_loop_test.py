"""Tests for experiments/loops/compiled_loop.py: agreement with the Python loop."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import environment_batch
from environments import registry as env_registry
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import compiled_loop
from experiments.loops import environment_loop
from experiments.loops import wide_counters
from experiments.loops import seeding

_SEED = 7


def _agent(name, env, **overrides):
  spec = specs.make_environment_spec(env_registry.make_environment(env))
  return agent_registry.make_agent(
      name, agent_registry.make_config(name, **overrides), spec,
      hidden_sizes=(32,))


class _FirstBatch:
  """A learner that keeps the first batch it is given and learns nothing."""

  def __init__(self, params):
    self.params = params
    self.batch = None

  def step(self, batch):
    if self.batch is None:
      self.batch = batch
    return {}


def _python_first_batch(agent, env):
  """The first batch the Python loop builds for seed `_SEED`."""
  stream = seeding.environment_seed(_SEED, seeding.TRAIN, 0)
  environment = env_registry.make_environment(env, seed=stream)
  learner_key, actor_key = jax.random.split(jax.random.PRNGKey(_SEED))
  state = agent.init(learner_key)
  learner = _FirstBatch(agent.actor_params(state))
  loop = environment_loop.EnvironmentLoop(
      environment_batch.EnvironmentList([environment], stream),
      actor_lib.BatchedActor(agent, learner.params, actor_key), learner,
      batchers.make_batcher(agent.data, 1), np.zeros(1, np.int64))
  while learner.batch is None:
    loop.step()
  return state, learner.batch


def _one_row(loop):
  """`(states, num_updates) -> (states, stats)`: `run_rows` with one row."""
  run_rows = jax.jit(loop.run_rows)

  def run(states, num_updates):
    states, stats = run_rows(states, jnp.asarray([num_updates], jnp.int32),
                             loop.carried_stats(states))
    return states, jax.tree.map(lambda x: x[:, 0], stats)

  return run


def _compiled_states(loop):
  """States of one seed, `_SEED`, with a leading seed axis of 1."""
  env_key = jax.random.PRNGKey(
      seeding.environment_seed(_SEED, seeding.TRAIN, 0))
  return jax.vmap(loop.init)(jax.random.PRNGKey(_SEED)[None], env_key[None])


@pytest.mark.slow
class AgreementTest(parameterized.TestCase):
  """Same seed: same first rollout and same first update as the Python loop."""

  @parameterized.named_parameters(
      ('reinforce_one_env', 'reinforce', 'plane_strike', 1, {}),
      ('reinforce_all_envs', 'reinforce', 'plane_strike', 4, {}),
      ('a2c', 'a2c', 'catch', 1, {}),
      ('ppo', 'ppo', 'catch', 1, {'unroll_length': 8}),
      ('dqn', 'dqn', 'catch', 1, {'min_replay_size': 1}),
  )
  def test_first_rollout_and_update_match(self, name, env, num_envs,
                                          overrides):
    if name == 'reinforce':
      overrides = dict(overrides, batch_size=4)
    agent = _agent(name, env, **overrides)
    state, expected = _python_first_batch(agent, env)
    loop = compiled_loop.CompiledLoop(
        agent, env_registry.make_functional(env), num_envs)
    states = _compiled_states(loop)
    chex.assert_trees_all_equal(
        jax.tree.map(lambda x: x[0], states.learner), state)

    _, trajectories, _ = jax.jit(jax.vmap(loop.collect))(states)
    got = jax.tree.map(lambda x: np.asarray(x[0]), trajectories)
    length = expected.actions.shape[0]
    # Episodes are padded to the longest possible game; beyond the Python
    # batch's padding there is nothing but more padding.
    np.testing.assert_array_equal(got.mask[length:], 0.0)
    trimmed = got._replace(
        **{k: getattr(got, k)[:length] for k in
           ('observations', 'actions', 'rewards', 'discounts', 'last',
            'mask')},
        extras=jax.tree.map(lambda x: x[:length], got.extras))
    chex.assert_trees_all_close(trimmed, jax.tree.map(np.asarray, expected),
                                rtol=1e-6, atol=1e-6)

    updated, stats = jax.jit(loop.update)(states)
    expected_state, _ = jax.jit(agent.update)(state, expected)
    chex.assert_trees_all_close(
        jax.tree.map(lambda x: x[0], updated.learner), expected_state,
        rtol=1e-5, atol=1e-6)
    # Steps taken: the batch's, and those of the next batch begun early.
    begun = (int(updated.pending.steps['mask'].sum()) if loop.episodic
             else 0)
    self.assertEqual(int(stats['env_steps'][0]),
                     int(expected.mask.sum()) + begun)
    if num_envs == 1:  # The batch's last episode ends the collection.
      self.assertEqual(begun, 0)
    self.assertEqual(int(wide_counters.value(updated.counters.updates[0])), 1)


class CompiledLoopTest(parameterized.TestCase):

  def test_num_envs_must_divide_the_batch(self):
    agent = _agent('reinforce', 'plane_strike', batch_size=4)
    with self.assertRaisesRegex(ValueError, r'num_envs \(3\) must divide.*4'):
      compiled_loop.CompiledLoop(agent, env_registry.make_functional(
          'plane_strike'), 3)

  def test_buckets_are_powers_of_two_up_to_the_padded_longest_game(self):
    agent = _agent('reinforce', 'catch')
    self.assertEqual(compiled_loop.CompiledLoop(
        agent, env_registry.make_functional('catch'), 1).buckets, (8, 16))
    self.assertEqual(compiled_loop.CompiledLoop(
        agent, env_registry.make_functional('plane_strike'), 1).buckets,
                     (8, 16, 32, 64, 128))

  @parameterized.parameters('reinforce', 'ppo')
  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_chunks_split_anywhere_give_identical_states(self, name):
    overrides = {'batch_size': 4} if name == 'reinforce' else {
        'unroll_length': 8}
    agent = _agent(name, 'catch', **overrides)
    loop = compiled_loop.CompiledLoop(agent,
                                      env_registry.make_functional('catch'),
                                      agent.data.batch_size)
    chunk = _one_row(loop)
    whole, whole_stats = chunk(_compiled_states(loop), 5)
    # Any number of updates runs in the same program.
    split, first = chunk(_compiled_states(loop), 2)
    split, second = chunk(split, 3)
    chex.assert_trees_all_equal(whole, split)
    self.assertEqual(int(whole_stats['episodes'][0]),
                     int(first['episodes'][0] + second['episodes'][0]))
    self.assertEqual(int(wide_counters.value(whole.counters.updates[0])), 5)
    # Rows of one call hold what calls of one row each would have. A
    # program of four rows is another program: equal up to float rounding
    # (bit for bit with XLA's default emitters; tests/conftest.py compiles
    # with others).
    start = _compiled_states(loop)
    rows_states, rows = jax.jit(loop.run_rows)(
        start, jnp.asarray([2, 2, 5, 5], jnp.int32),
        loop.carried_stats(start))
    chex.assert_trees_all_close(whole, rows_states, rtol=1e-6, atol=1e-8)
    for name in first:
      np.testing.assert_array_equal(rows[name][:, 0], first[name])
      np.testing.assert_array_equal(rows[name][:, 2], second[name])
      self.assertTrue(np.all(rows[name][:, 1] == 0))  # Empty rows.
      self.assertTrue(np.all(rows[name][:, 3] == 0))

  @pytest.mark.slow
  def test_seeds_side_by_side_match_seeds_alone(self):
    agent = _agent('ppo', 'catch', unroll_length=8)
    loop = compiled_loop.CompiledLoop(agent,
                                      env_registry.make_functional('catch'), 4)
    keys = np.stack([np.asarray(jax.random.PRNGKey(s)) for s in (0, 1)])
    env_keys = np.stack([np.asarray(jax.random.PRNGKey(s)) for s in (10, 11)])
    together, _ = _one_row(loop)(jax.vmap(loop.init)(keys, env_keys), 3)
    for s in range(2):
      alone, _ = _one_row(loop)(
          jax.vmap(loop.init)(keys[s:s + 1], env_keys[s:s + 1]), 3)
      chex.assert_trees_all_close(
          jax.tree.map(lambda x, s=s: x[s:s + 1], together), alone,
          rtol=1e-5, atol=1e-6)

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_unroll_stats_count_finished_episodes(self):
    agent = _agent('a2c', 'catch')
    loop = compiled_loop.CompiledLoop(agent,
                                      env_registry.make_functional('catch'), 2)
    states, stats = _one_row(loop)(_compiled_states(loop), 9)
    # 9 updates x 2 envs x 16 steps = 288 steps; Catch
    # episodes last 9 steps, so each environment finished 16 of them.
    self.assertEqual(int(stats['env_steps'][0]), 9 * 2 * 16)
    self.assertEqual(int(stats['episodes'][0]), 32)
    self.assertEqual(int(stats['length_sum'][0]), 32 * 9)
    self.assertEqual(int(wide_counters.value(states.counters.episodes[0])), 32)
    self.assertTrue(np.all(np.abs(stats['return_sum']) <= 32))


if __name__ == '__main__':
  absltest.main()
