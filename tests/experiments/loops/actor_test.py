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


class ActorTest(absltest.TestCase):

  def test_actions_are_legal_ints(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(1))
    actor.start_episode()
    board = np.ones((8, 8), np.float32)
    board[2, 5] = 0.0  # The only untried cell.
    for _ in range(5):
      action, extras = actor.select_action(board)
      self.assertIsInstance(action, int)
      self.assertEqual(action, 2 * 8 + 5)
      self.assertEqual(extras, {})

  def test_acting_before_an_episode_starts_is_refused(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(1))
    with self.assertRaisesRegex(RuntimeError, 'start_episode'):
      actor.select_action(np.zeros((8, 8), np.float32))

  def test_step_keys_are_distinct_per_episode_and_step(self):
    key = jax.random.PRNGKey(0)
    keys = {np.asarray(actor_lib.step_key(key, np.int32(e), np.int32(t))
                      ).tobytes() for e in range(4) for t in range(4)}
    self.assertLen(keys, 16)

  def test_actions_follow_episode_and_step_not_call_order(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    board = np.zeros((8, 8), np.float32)
    # Episode 2 played straight away equals episode 2 played after 0 and 1.
    fresh = actor_lib.Actor(agent, params, jax.random.PRNGKey(3),
                            next_episode=2)
    fresh.start_episode()
    played = actor_lib.Actor(agent, params, jax.random.PRNGKey(3))
    for _ in range(2):
      played.start_episode()
      played.select_action(board)
    played.start_episode()
    self.assertEqual([fresh.select_action(board)[0] for _ in range(6)],
                     [played.select_action(board)[0] for _ in range(6)])

  def test_same_key_same_actions(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    board = np.zeros((8, 8), np.float32)
    runs = []
    for _ in range(2):
      actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(3))
      actor.start_episode()
      runs.append([actor.select_action(board)[0] for _ in range(10)])
    self.assertEqual(runs[0], runs[1])

  def test_update_swaps_params(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(1))
    # Params that make cell 7 overwhelmingly likely.
    biased = jax.tree.map(np.zeros_like, params)
    biased['logits']['b'] = np.where(np.arange(64) == 7, 100.0, 0.0)
    actor.update(biased)
    actor.start_episode()
    self.assertEqual(actor.select_action(np.zeros((8, 8), np.float32))[0], 7)



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
