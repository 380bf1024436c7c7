"""Tests for experiments/loops/episode_collection.py, through the compiled
loop: whole episodes per row, each environment's next episodes in order,
and the next batch begun early."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import dm_env_wrapper
from environments import functional
from environments import registry as env_registry
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import compiled_loop

_ENV = 'plane_strike'
_BATCH = 8
_FIELDS = ('observations', 'actions', 'rewards', 'discounts', 'last', 'mask')


@functools.lru_cache(maxsize=None)
def _agent():
  """REINFORCE on Plane Strike, one object for every loop here."""
  spec = specs.make_environment_spec(env_registry.make_environment(_ENV))
  return agent_registry.make_agent(
      'reinforce', agent_registry.make_config('reinforce',
                                              batch_size=_BATCH),
      spec, hidden_sizes=(16,))


@functools.lru_cache(maxsize=None)
def _programs(num_envs):
  """The loop with `num_envs` environments per seed, and its jitted
  `init`, `collect` and `run_rows` of one row."""
  loop = compiled_loop.CompiledLoop(_agent(),
                                    env_registry.make_functional(_ENV),
                                    num_envs)
  run_rows = jax.jit(loop.run_rows)

  def chunk(states, count):
    states, stats = run_rows(states, jnp.asarray([count], jnp.int32),
                             loop.carried_stats(states))
    return states, jax.tree.map(lambda x: x[:, 0], stats)

  return (loop, jax.jit(jax.vmap(loop.init)), jax.jit(jax.vmap(loop.collect)),
          chunk)


class _Dawdle:
  """A game whose episodes last 1 step (mostly) or 24: some environments
  finish a batch's episode, and the next one's, long before the others.
  The observation is `[length, steps taken]`."""

  max_episode_steps = 24

  def reset(self, key):
    length = jnp.where(jax.random.bernoulli(key, 0.7), 1, 24)
    state = (length, jnp.zeros((), jnp.int32))
    return state, functional.restart(self._observe(state))

  def step(self, state, action):
    length, steps = state[0], state[1] + 1
    state = (length, steps)
    return state, functional.transition(
        action.astype(jnp.float32), self._observe(state), steps >= length,
        jnp.zeros((), bool))

  def _observe(self, state):
    return jnp.stack(state).astype(jnp.float32)

  def observation_spec(self):
    return dm_specs.Array((2,), np.float32)

  def action_spec(self):
    return dm_specs.DiscreteArray(2, dtype=np.int32)

  def reward_spec(self):
    return dm_specs.Array((), np.float32)

  def discount_spec(self):
    return dm_specs.BoundedArray((), np.float32, 0.0, 1.0)


@functools.lru_cache(maxsize=None)
def _dawdle_programs(num_envs):
  """`(core, jitted init, jitted collect)` of REINFORCE on `_Dawdle`."""
  core = _Dawdle()
  spec = specs.make_environment_spec(dm_env_wrapper.DmEnvironment(core))
  agent = agent_registry.make_agent(
      'reinforce', agent_registry.make_config('reinforce',
                                              batch_size=_BATCH),
      spec, hidden_sizes=(4,))
  loop = compiled_loop.CompiledLoop(agent, core, num_envs)
  return core, jax.jit(jax.vmap(loop.init)), jax.jit(jax.vmap(loop.collect))


def _seed_keys(*seeds):
  """`(keys, env_keys)` of `seeds`, with a leading seed axis."""
  keys = np.stack([np.asarray(jax.random.PRNGKey(s)) for s in seeds])
  env_keys = np.stack([np.asarray(jax.random.PRNGKey(100 + s))
                       for s in seeds])
  return keys, env_keys


def _first(tree):
  """Seed 0 of a tree with a leading seed axis, as NumPy."""
  return jax.tree.map(lambda x: np.asarray(x[0]), tree)


@functools.lru_cache(maxsize=None)
def _replay_program():
  """Plays episodes on their own, as the framework defines them: episode
  `id` resets with `fold_in(env_key, id)` and acts at step `t` with
  `step_key(actor_key, id, t)`; steps before `switch` act with
  `params_before`, the others with `params_after`. Returns the batch-major
  `[rows, L]` fields of `_FIELDS` and the final observations."""
  loop = _programs(1)[0]
  core, agent = loop.core, loop.agent
  length = loop.buckets[-1]  # The rows' padded length, whatever num_envs.

  def play(params_before, params_after, actor_key, env_key, episode, switch):
    state, timestep = core.reset(jax.random.fold_in(env_key, episode))

    def step(carry, t):
      state, observation, done, final = carry
      params = jax.tree.map(lambda a, b: jnp.where(t < switch, a, b),
                            params_before, params_after)
      actions, _ = agent.act(params, actor_lib.step_key(actor_key, episode, t),
                             observation[None])
      state, timestep = core.step(state, actions[0])
      last = (timestep.step_type == functional.LAST) & ~done
      final = jnp.where(last, timestep.observation, final)
      record = dict(observations=observation, actions=actions[0],
                    rewards=timestep.reward, discounts=timestep.discount,
                    last=last, mask=(~done).astype(jnp.float32))
      done = done | last
      return (state, timestep.observation, done, final), record

    start = (state, timestep.observation, jnp.zeros((), bool),
             jnp.zeros_like(timestep.observation))
    (_, _, _, final), steps = jax.lax.scan(
        step, start, jnp.arange(length, dtype=jnp.int32))
    return steps, final

  return jax.jit(jax.vmap(play, in_axes=(None, None, None, None, 0, 0)))


def _batch_major(trajectory):
  """`{field: [rows, L, ...]}` of a (seed 0, time-major) trajectory."""
  return {k: np.swapaxes(getattr(trajectory, k), 0, 1) for k in _FIELDS}


def _real_steps(pending):
  """Steps of each row of a (seed 0) pending batch already played."""
  return pending.steps['mask'].sum(axis=1).astype(int)


class EpisodeCollectionTest(parameterized.TestCase):

  def _assert_whole_episodes(self, rows):
    """Each row: one episode, real steps then padding, `last` at its end."""
    lengths = rows['mask'].sum(axis=1).astype(int)
    self.assertTrue(np.all(lengths >= 1))
    steps = np.arange(rows['mask'].shape[1])
    np.testing.assert_array_equal(rows['mask'],
                                  steps[None] < lengths[:, None])
    np.testing.assert_array_equal(rows['last'],
                                  steps[None] == lengths[:, None] - 1)
    return lengths

  def _assert_replayed(self, num_envs, update, trajectory, params_before,
                       params_after, switch, actor_key, env_key):
    """The batch of `update`: row i·k + j is environment i's episode of
    ordinal update·k + j, played as `_replay_program` plays it."""
    k = _BATCH // num_envs
    rows = np.arange(_BATCH)
    ids = (update * k + rows % k) * num_envs + rows // k
    want, final = _replay_program()(
        params_before, params_after, actor_key, env_key,
        jnp.asarray(ids, jnp.int32), jnp.asarray(switch, jnp.int32))
    want = jax.tree.map(np.asarray, want)
    got = _batch_major(trajectory)
    np.testing.assert_array_equal(got['mask'], want['mask'])
    real = got['mask'] > 0
    for name in _FIELDS:
      where = real.reshape(real.shape + (1,) * (got[name].ndim - 2))
      np.testing.assert_allclose(np.where(where, got[name], 0),
                                 np.where(where, want[name], 0),
                                 err_msg=f'{name}, update {update}')
    np.testing.assert_array_equal(trajectory.final_observations, final)

  def _assert_stats(self, stats, trajectory, begun_before, begun_after):
    """One collection's stats; its steps are the batch's not begun before,
    and the next batch's begun now."""
    stats = _first(stats)
    lengths = trajectory.mask.sum(axis=0)
    self.assertEqual(int(stats['episodes']), _BATCH)
    self.assertEqual(int(stats['length_sum']), int(lengths.sum()))
    self.assertEqual(int(stats['longest']), int(lengths.max()))
    np.testing.assert_allclose(
        stats['return_sum'], (trajectory.rewards * trajectory.mask).sum(),
        rtol=1e-6)
    self.assertEqual(int(stats['env_steps']),
                     int(lengths.sum()) - begun_before + begun_after)

  @parameterized.named_parameters(('one_episode_per_env', 8),
                                  ('four_episodes_per_env', 2),
                                  ('one_env', 1))
  @pytest.mark.slow
  def test_rows_are_each_environments_next_whole_episodes(self, num_envs):
    _, init, collect, chunk = _programs(num_envs)
    states = init(*_seed_keys(7))
    actor_key, env_key = _first((states.actor_key, states.env_key))
    params0 = _first(states.learner.params)

    # Batch 0: every step played with the initial params.
    collected, trajectory, stats = collect(states)
    trajectory = _first(trajectory)
    self._assert_whole_episodes(_batch_major(trajectory))
    begun = _real_steps(_first(collected.pending))
    self._assert_stats(stats, trajectory, 0, int(begun.sum()))
    self._assert_replayed(num_envs, 0, trajectory, params0, params0,
                          np.zeros(_BATCH), actor_key, env_key)

    # The update collects the same batch and learns from it.
    states, _ = chunk(states, 1)
    chex.assert_trees_all_equal(states.envs, collected.envs)
    chex.assert_trees_all_equal(states.pending, collected.pending)
    params1 = _first(states.learner.params)
    flat = lambda p: np.concatenate([np.ravel(x) for x in jax.tree.leaves(p)])
    self.assertFalse(np.allclose(flat(params0), flat(params1)))

    # Batch 1: an episode begun during collection 0 played its first
    # `begun` steps with the initial params, the rest with the new ones.
    collected, trajectory, stats = collect(states)
    trajectory = _first(trajectory)
    lengths = self._assert_whole_episodes(_batch_major(trajectory))
    self.assertTrue(np.all(begun <= lengths))
    begun_next = _real_steps(_first(collected.pending))
    self._assert_stats(stats, trajectory, int(begun.sum()),
                       int(begun_next.sum()))
    self._assert_replayed(num_envs, 1, trajectory, params0, params1, begun,
                          actor_key, env_key)
    if num_envs == 1:  # Its last episode of a batch ends the collection.
      self.assertEqual(int(begun.sum() + begun_next.sum()), 0)
    else:
      self.assertGreater(int(begun.sum()), 0)

  @pytest.mark.slow
  def test_one_environment_begins_nothing_early(self):
    _, init, _, chunk = _programs(1)
    states = init(*_seed_keys(3))
    for _ in range(4):
      states, stats = chunk(states, 1)
      pending = _first(states.pending)
      np.testing.assert_array_equal(pending.steps['mask'], 0.0)
      self.assertEqual(int(stats['env_steps'][0]),
                       int(stats['length_sum'][0]))
      self.assertEqual(int(stats['episodes'][0]), _BATCH)

  @pytest.mark.slow
  def test_seeds_side_by_side_match_seeds_alone(self):
    # A while_loop under vmap runs until every seed is done; a seed done
    # early must not step on (its state and stats are its own).
    _, init, _, chunk = _programs(2)
    keys, env_keys = _seed_keys(0, 1)
    together, together_stats = chunk(init(keys, env_keys), 4)
    for s in range(2):
      alone, alone_stats = chunk(init(keys[s:s + 1], env_keys[s:s + 1]), 4)
      pick = lambda x, s=s: x[s:s + 1]
      chex.assert_trees_all_close(jax.tree.map(pick, together), alone,
                                  rtol=1e-5, atol=1e-6)
      chex.assert_trees_all_close(jax.tree.map(pick, together_stats),
                                  alone_stats, rtol=1e-5, atol=1e-6)
    # The seeds' episodes differ, so each seed waited for its own.
    self.assertNotEqual(int(together_stats['env_steps'][0]),
                        int(together_stats['env_steps'][1]))

  @parameterized.named_parameters(('one_episode_per_env', 8),
                                  ('two_episodes_per_env', 4))
  def test_no_environment_plays_more_than_one_batch_ahead(self, num_envs):
    # Collections with the same params: the episodes' lengths (fixed at
    # reset) tell which episodes each batch holds.
    core, init, collect = _dawdle_programs(num_envs)
    k = _BATCH // num_envs
    states = init(*_seed_keys(2))
    env_key = _first(states.env_key)
    length_of = lambda ids: np.asarray(jax.vmap(
        lambda i: core.reset(jax.random.fold_in(env_key, i))[0][0])(
            jnp.asarray(ids, jnp.int32)))
    rows = np.arange(_BATCH)
    idle = 0
    for u in range(6):
      states, trajectory, stats = collect(states)
      trajectory, pending = _first(trajectory), _first(states.pending)
      lengths = self._assert_whole_episodes(_batch_major(trajectory))
      ids = (u * k + rows % k) * num_envs + rows // k
      np.testing.assert_array_equal(lengths, length_of(ids))
      # What is begun of the next batch is a prefix of its episodes.
      begun = _real_steps(pending)
      next_lengths = length_of(ids + k * num_envs)
      self.assertTrue(np.all(begun <= next_lengths))
      ended = pending.steps['last'].any(axis=1)
      np.testing.assert_array_equal(ended, begun == next_lengths)
      # An environment done with the next batch too waits (idles).
      done_ahead = ended.reshape(num_envs, k).all(axis=1)
      idle += int(done_ahead.sum())
      self.assertEqual(int(stats['episodes'][0]), _BATCH)
    self.assertGreater(idle, 0)  # The cap was reached.

  @pytest.mark.slow
  def test_environments_keep_playing_while_waiting(self):
    # k = 1: collection u runs until the environment with the most steps
    # left in its batch-u episode ends it; meanwhile every other one plays
    # on into its batch-(u + 1) episode, until that ends too.
    num_updates = 10
    _, init, collect, chunk = _programs(_BATCH)
    start = init(*_seed_keys(5))
    states = start
    begun = np.zeros(_BATCH, int)
    early = 0
    for _ in range(num_updates):
      collected, trajectory, stats = collect(states)
      trajectory = _first(trajectory)
      lengths = self._assert_whole_episodes(_batch_major(trajectory))
      pending = _first(collected.pending)
      begun_next = _real_steps(pending)
      left = lengths - begun  # Steps each environment had left to play.
      iterations = left.max()
      ended = pending.steps['last'].any(axis=1)
      np.testing.assert_array_equal(
          begun_next[~ended], iterations - left[~ended])
      self.assertTrue(np.all(begun_next[ended] <= iterations - left[ended]))
      self.assertEqual(int(stats['env_steps'][0]),
                       int(left.sum() + begun_next.sum()))
      early += int(begun_next.sum())
      begun = begun_next
      states, _ = chunk(states, 1)
    self.assertGreater(early, 0)

    # One chunk of the same updates: its env_steps exceed the batches' real
    # steps by the steps of the next batch begun early.
    whole, stats = chunk(start, num_updates)
    chex.assert_trees_all_equal(whole, states)
    self.assertEqual(int(stats['env_steps'][0] - stats['length_sum'][0]),
                     int(begun.sum()))
    self.assertGreater(int(stats['env_steps'][0]),
                       int(stats['length_sum'][0]))


if __name__ == '__main__':
  absltest.main()
