"""Tests for experiments/actor.py."""

from absl.testing import absltest
import jax
import numpy as np

from agents import registry
from environments import plane_strike
from environments import specs
from experiments import actor as actor_lib


def _agent():
  spec = specs.make_environment_spec(plane_strike.make_environment())
  return registry.make_agent('reinforce', registry.make_config('reinforce'),
                             spec, hidden_sizes=(16,))


class ActorTest(absltest.TestCase):

  def test_actions_are_legal_ints_and_key_advances(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(1))
    board = np.ones((8, 8), np.float32)
    board[2, 5] = 0.0  # The only untried cell.
    keys = []
    for _ in range(5):
      action, extras = actor.select_action(board)
      self.assertIsInstance(action, int)
      self.assertEqual(action, 2 * 8 + 5)
      self.assertEqual(extras, {})
      keys.append(np.asarray(actor.key).tobytes())
    self.assertLen(set(keys), 5)

  def test_same_key_same_actions(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    board = np.zeros((8, 8), np.float32)
    runs = []
    for _ in range(2):
      actor = actor_lib.Actor(agent, params, jax.random.PRNGKey(3))
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
    self.assertEqual(actor.select_action(np.zeros((8, 8), np.float32))[0], 7)


if __name__ == '__main__':
  absltest.main()
