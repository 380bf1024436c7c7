"""Tests for experiments/loops/actor.py."""

from absl.testing import absltest
import jax
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


if __name__ == '__main__':
  absltest.main()
