"""Both loops honour the `TrainingLoop` contract the driver relies on
(experiments/loops/python_training.py and compiled_training.py)."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import numpy as np
import pytest

from agents import registry as agent_registry
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _loop(loop, agent='reinforce', num_seeds=1, **agent_settings):
  config = config_lib.ExperimentConfig(
      agent=agent, env='catch', hidden_sizes=(8,), loop=loop,
      num_seeds=num_seeds,
      agent_config=agent_registry.make_config(agent, **agent_settings),
      num_episodes=100, log_every_episodes=250, export_tflite=False)
  return build_lib.make_loop(build_lib.build(config))


class TrainingLoopTest(parameterized.TestCase):

  @parameterized.parameters('python', 'compiled')
  def test_advance_stops_at_an_episode_target_and_counts(self, loop_name):
    loop = _loop(loop_name, batch_size=4)
    self.assertEqual({k: list(v) for k, v in loop.counters().items()},
                     {'episodes': [0], 'env_steps': [0], 'updates': [0]})
    loop.compile()
    rows = loop.advance(interface.Targets(episodes=8))
    counters = loop.counters()
    # Catch lasts 9 steps; 4 episodes per REINFORCE update.
    self.assertEqual((counters['episodes'][0], counters['env_steps'][0],
                      counters['updates'][0]), (8, 72, 2))
    self.assertLen(rows, 1)
    for key in ('episode_return', 'episode_length', 'policy_loss',
                'steps_per_second'):
      self.assertIn(key, rows[0])
    self.assertEqual(rows[0]['episode_length'], 9.0)

  @parameterized.parameters('python', 'compiled')
  def test_updates_target_and_progress(self, loop_name):
    loop = _loop(loop_name, batch_size=4)
    seen = []
    loop.advance(interface.Targets(updates=3), seen.append)
    self.assertEqual(int(loop.counters()['updates'][0]), 3)
    self.assertEqual(int(seen[-1]['episodes'][0]), 12)
    # The Python loop reports every episode, the compiled loop each chunk.
    self.assertLen(seen, 12 if loop_name == 'python' else 1)

  def test_python_loop_stops_at_each_logging_interval(self):
    loop = _loop('python', batch_size=4)  # log_every_episodes: 250.
    loop.advance(interface.Targets())
    self.assertEqual(int(loop.counters()['episodes'][0]), 250)

  @parameterized.parameters('python', 'compiled')
  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_step_targets_of_unroll_agents(self, loop_name):
    loop = _loop(loop_name, agent='a2c', batch_size=2, unroll_length=8)
    loop.advance(interface.Targets(env_steps=40))
    steps = int(loop.counters()['env_steps'][0])
    # The Python loop stops at the episode end after the target; the
    # compiled loop at the first update (16 steps) that reaches it.
    self.assertEqual(steps, 45 if loop_name == 'python' else 48)

  @parameterized.parameters('python', 'compiled')
  def test_state_restores_into_a_fresh_loop(self, loop_name):
    trained = _loop(loop_name, batch_size=4)
    trained.advance(interface.Targets(episodes=8))
    fresh = _loop(loop_name, batch_size=4)
    fresh.restore(trained.state, trained.host_state)
    chex.assert_trees_all_equal(fresh.counters(), trained.counters())
    chex.assert_trees_all_close(fresh.actor_params(0),
                                trained.actor_params(0))
    greedy = fresh.evaluate(10)
    self.assertEqual(set(greedy), {'mean_return', 'mean_episode_length',
                                   'identical_episodes'})
    self.assertEqual(greedy['mean_episode_length'].shape, (1,))

  @pytest.mark.slow
  def test_compiled_seeds_each_get_a_row_and_params(self):
    loop = _loop('compiled', num_seeds=3, batch_size=4)
    rows = loop.advance(interface.Targets(episodes=4))
    self.assertLen(rows, 3)
    self.assertEqual(loop.counters()['episodes'].tolist(), [4, 4, 4])
    first, second = loop.actor_params(0), loop.actor_params(1)
    self.assertFalse(np.array_equal(first['logits']['w'],
                                    second['logits']['w']))

  def test_python_loop_is_one_seed(self):
    with self.assertRaisesRegex(IndexError, 'one seed'):
      _loop('python').actor_params(1)


if __name__ == '__main__':
  absltest.main()
