"""Export round trip: JAX policy -> .tflite -> LiteRT interpreter."""

import json
import os
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized
import jax
import numpy as np
import pytest

from agents import registry
from environments import plane_strike
from environments import specs
from experiments import export_tflite

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _random_boards(count, seed=0):
  """Boards as reached in play: a hidden plane, some cells struck."""
  rng = np.random.default_rng(seed)
  planes, probabilities = plane_strike.placements(8)
  boards = np.zeros((count, 8, 8), np.float32)
  for i in range(count):
    plane = planes[rng.choice(len(planes), p=probabilities)]
    struck = rng.random((8, 8)) < rng.random()
    boards[i] = np.where(struck, np.where(plane, 1.0, -1.0), 0.0)
  return boards


class ExportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    env = plane_strike.make_environment(seed=0)
    cls.spec = specs.make_environment_spec(env)
    cls.agent = registry.make_agent(
        'reinforce', registry.make_config('reinforce'), cls.spec)
    cls.params = cls.agent.actor_params(cls.agent.init(jax.random.PRNGKey(0)))
    cls.path = os.path.join(absltest.get_default_test_tmpdir(),
                            'planestrike.tflite')
    cls.report = export_tflite.export_and_verify(
        cls.agent, cls.params, cls.spec, cls.path,
        plane_strike.make_environment(seed=1), num_games=20)

  def test_app_contract(self):
    # The Android app's model: float32 [1, 8, 8] in, float32 [1, 64] out.
    policy = export_tflite.TFLitePolicy(self.path)
    self.assertEqual(tuple(policy.input_details['shape']), (1, 8, 8))
    self.assertEqual(tuple(policy.output_details['shape']), (1, 64))
    self.assertEqual(policy.input_details['dtype'], np.float32)
    self.assertEqual(policy.output_details['dtype'], np.float32)
    for board in _random_boards(50, seed=1):
      p = policy(board)
      np.testing.assert_array_equal(p[board.reshape(-1) != 0], 0.0)
      self.assertAlmostEqual(float(p.sum()), 1.0, places=5)
      self.assertTrue(np.all(p >= 0))

  def test_matches_jax_on_1000_random_boards(self):
    policy = export_tflite.TFLitePolicy(self.path)
    boards = _random_boards(1000, seed=2)
    tflite = np.stack([policy(b) for b in boards])
    expected = np.asarray(self.agent.action_probabilities(self.params, boards))
    self.assertLessEqual(np.max(np.abs(tflite - expected)), 1e-5)

  def test_report(self):
    self.assertLessEqual(self.report['max_abs_diff'], 1e-5)
    self.assertEqual(self.report['greedy_agreement'], 1.0)
    self.assertGreaterEqual(self.report['observations_checked'], 1000)
    self.assertEqual(self.report['games'], 20)
    # Greedy play through the interpreter never repeats a cell.
    self.assertEqual(self.report['mean_return'], 8.0)
    self.assertBetween(self.report['mean_episode_length'], 8.0, 64.0)

  def test_wrong_model_is_refused(self):
    other_env = plane_strike.make_environment(board_size=6)
    other_spec = specs.make_environment_spec(other_env)
    with self.assertRaisesRegex(ValueError, 'signature'):
      export_tflite.verify(self.path, self.agent, self.params, other_spec,
                           other_env, num_games=1)


@pytest.mark.slow
class ExportCommandTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('python_loop', ['--loop=python'], [], ''),
      ('compiled_second_of_two_seeds', ['--num_seeds=2'], ['--seed=1'],
       'seed_1'))
  def test_exports_a_training_workdir(self, train_flags, export_flags,
                                      subdirectory):
    workdir = self.create_tempdir().full_path
    env = dict(os.environ, PYTHONPATH=_REPO)
    train = subprocess.run(
        [sys.executable, '-m', 'experiments.train', f'--workdir={workdir}',
         '--num_episodes=32', '--eval_episodes=5', '--noexport_tflite',
         '--noprogress', *train_flags], capture_output=True, text=True,
        env=env, cwd=_REPO, check=False)
    self.assertEqual(train.returncode, 0, train.stderr[-2000:])
    export = subprocess.run(
        [sys.executable, '-m', 'experiments.export_tflite',
         f'--workdir={workdir}', '--verify_games=10', *export_flags],
        capture_output=True, text=True, env=env, cwd=_REPO, check=False)
    self.assertEqual(export.returncode, 0, export.stderr[-2000:])
    report = json.loads(export.stdout[export.stdout.index('{'):])
    self.assertEqual(report['tflite_path'],
                     os.path.join(workdir, subdirectory, 'planestrike.tflite'))
    self.assertTrue(os.path.exists(report['tflite_path']))
    self.assertLessEqual(report['max_abs_diff'], 1e-5)


if __name__ == '__main__':
  absltest.main()
