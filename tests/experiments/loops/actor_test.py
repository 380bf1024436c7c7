"""Tests for experiments/loops/actor.py."""

import types

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np

from agents import registry
from environments import plane_strike
from environments import specs
from experiments.loops import actor as actor_lib


def _agent():
  spec = specs.make_environment_spec(plane_strike.make_environment())
  return registry.make_agent('reinforce', registry.make_config('reinforce'),
                             spec, hidden_sizes=(16,))


def _act(actor, episode, step, board):
  """The action for one environment's `board` at (episode, step)."""
  actions, extras = actor.select_actions(
      np.array([episode], np.int32), np.array([step], np.int32), board[None])
  return int(actions[0]), extras


class ActingTest(absltest.TestCase):

  def test_actions_are_legal(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.BatchedActor(agent, params, jax.random.PRNGKey(1))
    board = np.ones((8, 8), np.float32)
    board[2, 5] = 0.0  # The only untried cell.
    for step in range(5):
      action, extras = _act(actor, 0, step, board)
      self.assertEqual(action, 2 * 8 + 5)
      self.assertEqual(extras, {})

  def test_step_keys_are_distinct_per_episode_and_step(self):
    key = jax.random.PRNGKey(0)
    keys = {np.asarray(actor_lib.step_key(key, np.int32(e), np.int32(t))
                      ).tobytes() for e in range(4) for t in range(4)}
    self.assertLen(keys, 16)

  def test_actions_follow_episode_and_step_not_call_order(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    board = np.zeros((8, 8), np.float32)
    # Episode 2 played straight away equals episode 2 played after 0 and 1,
    # and one environment acts as it does beside others.
    fresh = actor_lib.BatchedActor(agent, params, jax.random.PRNGKey(3))
    played = actor_lib.BatchedActor(agent, params, jax.random.PRNGKey(3))
    for episode in range(2):
      _act(played, episode, 0, board)
    alone = [_act(fresh, 2, t, board)[0] for t in range(6)]
    self.assertEqual(alone, [_act(played, 2, t, board)[0] for t in range(6)])
    beside = [played.select_actions(np.array([5, 2], np.int32),
                                    np.array([t, t], np.int32),
                                    np.stack([board, board]))[0][1]
              for t in range(6)]
    self.assertEqual(alone, beside)

  def test_same_key_same_actions(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    board = np.zeros((8, 8), np.float32)
    runs = []
    for _ in range(2):
      actor = actor_lib.BatchedActor(agent, params, jax.random.PRNGKey(3))
      runs.append([_act(actor, 0, t, board)[0] for t in range(10)])
    self.assertEqual(runs[0], runs[1])

  def test_update_swaps_params(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.BatchedActor(agent, params, jax.random.PRNGKey(1))
    # Params that make cell 7 overwhelmingly likely.
    biased = jax.tree.map(np.zeros_like, params)
    biased['logits']['b'] = np.where(np.arange(64) == 7, 100.0, 0.0)
    actor.update(biased)
    self.assertEqual(_act(actor, 0, 0, np.zeros((8, 8), np.float32))[0], 7)


class BatchedActorTest(parameterized.TestCase):

  # float64 and int64: what many dm_env environments emit; JAX holds them
  # as float32 and int32 (x64 off), as with one environment.
  @parameterized.parameters(np.float32, np.uint8, np.bool_, np.int16,
                            np.float64, np.int64)
  def test_packed_transfers_give_what_the_batched_act_gives(self, dtype):
    # Inputs and outputs travel as bytes; every dtype comes back intact.

    def act(params, key, observations):
      noise = jax.random.uniform(key, (1,))
      total = observations.astype(jnp.float32).sum(-1) * params + noise
      return (total > 1.0).astype(jnp.int32), {
          'total': total, 'flags': observations > 0,
          'small': observations.astype(jnp.int8),
          'pair': jnp.stack([total, -total], -1)}

    agent = types.SimpleNamespace(act=act, recurrence=None)
    key = jax.random.PRNGKey(4)
    actor = actor_lib.BatchedActor(agent, jnp.float32(0.5), key)
    observations = (np.arange(15).reshape(5, 3) % 3).astype(dtype)
    episodes = np.array([0, 7, 9, 2, 1000], np.int32)
    steps = np.array([3, 0, 1, 2, 5], np.int32)
    got = actor.select_actions(episodes, steps, observations)
    keys = jax.vmap(actor_lib.step_key, (None, 0, 0))(key, episodes, steps)
    want = jax.vmap(lambda k, o: jax.tree.map(
        lambda x: x[0], act(jnp.float32(0.5), k, o[None])))(keys,
                                                            observations)
    chex.assert_trees_all_equal(got, jax.device_get(want))
    self.assertEqual(got[1]['flags'].dtype, np.bool_)
    self.assertEqual(got[1]['pair'].shape, (5, 2))


if __name__ == '__main__':
  absltest.main()
