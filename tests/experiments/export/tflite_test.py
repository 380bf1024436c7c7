"""Export round trip: JAX policy -> .tflite -> LiteRT interpreter."""

import functools
import json
import os

from absl.testing import absltest
from absl.testing import parameterized
import jax
import numpy as np
import pytest

from agents import registry
from environments import plane_strike
from environments import specs
from experiments.export import litert_policies
from experiments.export import tflite as export_tflite
from tests import commands
from tests.experiments.export import trained_workdir



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


def _check_app_contract(test, path):
  """The Android app's model: float32 [1, 8, 8] in, float32 [1, 64] out,
  probabilities over untried cells only."""
  policy = litert_policies.TFLitePolicy(path)
  test.assertEqual(tuple(policy.input_details['shape']), (1, 8, 8))
  test.assertEqual(tuple(policy.output_details['shape']), (1, 64))
  test.assertEqual(policy.input_details['dtype'], np.float32)
  test.assertEqual(policy.output_details['dtype'], np.float32)
  for board in _random_boards(50, seed=1):
    p = policy(board)
    np.testing.assert_array_equal(p[board.reshape(-1) != 0], 0.0)
    test.assertAlmostEqual(float(p.sum()), 1.0, places=5)
    test.assertTrue(np.all(p >= 0))


def _untrained_policy():
  """Spec, agent and initial params of a REINFORCE Plane Strike policy."""
  spec = specs.make_environment_spec(plane_strike.make_environment(seed=0))
  agent = registry.make_agent('reinforce', registry.make_config('reinforce'),
                              spec)
  return spec, agent, agent.actor_params(agent.init(jax.random.PRNGKey(0)))


class ExportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.spec, cls.agent, cls.params = _untrained_policy()
    cls.path = os.path.join(absltest.get_default_test_tmpdir(),
                            'planestrike.tflite')
    cls.report = export_tflite.export_and_verify(
        cls.agent, cls.params, cls.spec, cls.path,
        plane_strike.make_environment(seed=1), num_games=20)

  def test_app_contract(self):
    _check_app_contract(self, self.path)

  def test_matches_jax_on_1000_random_boards(self):
    policy = litert_policies.TFLitePolicy(self.path)
    boards = _random_boards(1000, seed=2)
    tflite = np.stack([policy(b) for b in boards])
    expected = np.asarray(self.agent.deployable_policy(self.params, boards))
    self.assertLessEqual(np.max(np.abs(tflite - expected)), 1e-5)

  def test_report(self):
    self.assertLessEqual(self.report['max_abs_diff'], 1e-5)
    self.assertEqual(self.report['greedy_agreement'], 1.0)
    self.assertGreaterEqual(self.report['observations_checked'], 1000)
    self.assertEqual(self.report['games'], 20)
    # Greedy play through the interpreter never repeats a cell.
    self.assertEqual(self.report['mean_return'], 8.0)
    self.assertBetween(self.report['mean_episode_length'], 8.0, 64.0)
    self.assertEqual(self.report['tolerance'], export_tflite.TOLERANCE)

  def test_greedy_play_stops_at_its_step_cap(self):
    report = export_tflite.verify(
        self.path, self.agent, self.params, self.spec,
        plane_strike.make_environment(seed=1), num_games=20,
        num_random_boards=10, max_steps=50)
    # 50 greedy observations (the game in progress at the cap is cut short
    # and not scored), plus the 10 random ones.
    self.assertEqual(report['observations_checked'], 60)
    self.assertBetween(report['games'], 0, 6)  # A game takes >= 8 strikes.
    self.assertLess(report['games'], 20)
    cut = export_tflite.verify(
        self.path, self.agent, self.params, self.spec,
        plane_strike.make_environment(seed=1), num_games=1,
        num_random_boards=1, max_steps=3)
    self.assertEqual(cut['games'], 0)
    self.assertIsNone(cut['mean_episode_length'])

  def test_wrong_model_is_refused(self):
    other_env = plane_strike.make_environment(board_size=6)
    other_spec = specs.make_environment_spec(other_env)
    with self.assertRaisesRegex(ValueError, 'signature'):
      export_tflite.verify(self.path, self.agent, self.params, other_spec,
                           other_env, num_games=1)


class QuantizedExportTest(parameterized.TestCase):
  """The untrained policy of `ExportTest`, exported in each quantisation."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.spec, cls.agent, cls.params = _untrained_policy()
    cls.games = functools.partial(plane_strike.make_environment, seed=1)
    cls.directory = absltest.get_default_test_tmpdir()
    cls.float_report = export_tflite.export_and_verify(
        cls.agent, cls.params, cls.spec,
        os.path.join(cls.directory, 'float.tflite'), cls.games(), num_games=20)
    cls.reports = {
        quantize: export_tflite.export_and_verify(
            cls.agent, cls.params, cls.spec, cls._path(quantize), cls.games,
            num_games=20, quantize=quantize)
        for quantize in export_tflite.QUANTIZATIONS}

  @classmethod
  def _path(cls, quantize):
    return os.path.join(cls.directory, f'planestrike_{quantize}.tflite')

  @parameterized.parameters(*export_tflite.QUANTIZATIONS)
  def test_app_contract(self, quantize):
    _check_app_contract(self, self._path(quantize))

  @parameterized.parameters(('dynamic', 0.3), ('float16', 0.6))
  def test_smaller_than_float(self, quantize, max_ratio):
    report = self.reports[quantize]
    self.assertEqual(report['size_bytes'],
                     os.path.getsize(self._path(quantize)))
    self.assertEqual(report['float_size_bytes'],
                     self.float_report['size_bytes'])
    self.assertLessEqual(report['size_ratio'], max_ratio)
    self.assertAlmostEqual(
        report['size_ratio'], report['size_bytes'] / report['float_size_bytes'])

  @parameterized.parameters(*export_tflite.QUANTIZATIONS)
  def test_within_its_bar_of_jax(self, quantize):
    report, bar = self.reports[quantize], export_tflite.QUANTIZED_BARS[quantize]
    self.assertEqual(report['quantize'], quantize)
    self.assertLessEqual(report['max_abs_diff'], bar.max_abs_diff)
    self.assertGreaterEqual(report['greedy_agreement'],
                            bar.min_greedy_agreement)
    policy = litert_policies.TFLitePolicy(self._path(quantize))
    boards = _random_boards(200, seed=2)
    tflite = np.stack([policy(b) for b in boards])
    expected = np.asarray(self.agent.deployable_policy(self.params, boards))
    self.assertLessEqual(np.max(np.abs(tflite - expected)), bar.max_abs_diff)

  @parameterized.parameters(*export_tflite.QUANTIZATIONS)
  def test_float_model_plays_the_same_games(self, quantize):
    report = self.reports[quantize]
    self.assertEqual(report['games'], 20)
    self.assertEqual(report['float_mean_episode_length'],
                     self.float_report['mean_episode_length'])
    self.assertAlmostEqual(
        report['mean_episode_length_change'],
        report['mean_episode_length'] - report['float_mean_episode_length'])
    self.assertEqual(report['float_mean_return'],
                     self.float_report['mean_return'])
    self.assertAlmostEqual(
        report['mean_return_change'],
        report['mean_return'] - report['float_mean_return'])

  def test_unknown_quantization_is_refused(self):
    path = os.path.join(self.create_tempdir().full_path, 'int4.tflite')
    with self.assertRaisesRegex(ValueError, "'dynamic', 'float16'"):
      export_tflite.to_tflite(self.agent, self.params, self.spec, 'int4')
    with self.assertRaisesRegex(ValueError, "'dynamic', 'float16'"):
      export_tflite.export_and_verify(self.agent, self.params, self.spec, path,
                                      self.games, quantize='int4')
    self.assertFalse(os.path.exists(path))

  def test_quantized_needs_an_environment_factory(self):
    path = os.path.join(self.create_tempdir().full_path, 'f16.tflite')
    with self.assertRaisesRegex(ValueError, 'factory'):
      export_tflite.export_and_verify(self.agent, self.params, self.spec, path,
                                      self.games(), quantize='float16')
    self.assertFalse(os.path.exists(path))

  def test_model_off_its_bar_is_refused(self):
    path = os.path.join(self.create_tempdir().full_path, 'f16.tflite')
    with self.assertRaisesRegex(ValueError, r'float16.*not a faithful export'):
      export_tflite.export_and_verify(self.agent, self.params, self.spec, path,
                                      self.games, num_games=2, tolerance=1e-9,
                                      quantize='float16')


@pytest.mark.slow
class ExportCommandTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('python_loop', ['--loop=python'], [], ''),
      ('compiled_second_of_two_seeds', ['--num_seeds=2'], ['--seed=1'],
       'seed_1'))
  def test_exports_a_training_workdir(self, train_flags, export_flags,
                                      subdirectory):
    workdir = self.create_tempdir().full_path
    train = _run('experiments.train', f'--workdir={workdir}',
                 '--num_episodes=32', '--eval_episodes=5',
                 '--noexport_tflite', '--noprogress', *train_flags)
    self.assertEqual(train.returncode, 0, train.stderr[-2000:])
    export = _run('experiments.export_tflite', f'--workdir={workdir}',
                  '--verify_games=10', *export_flags)
    self.assertEqual(export.returncode, 0, export.stderr[-2000:])
    report = json.loads(export.stdout[export.stdout.index('{'):])
    self.assertEqual(report['tflite_path'],
                     os.path.join(workdir, subdirectory, 'planestrike.tflite'))
    self.assertTrue(os.path.exists(report['tflite_path']))
    self.assertLessEqual(report['max_abs_diff'], 1e-5)
    # Plane Strike's registry entry names the input as the app's model does.
    policy = litert_policies.TFLitePolicy(report['tflite_path'])
    self.assertIn('board', policy.input_details['name'])


def _run(module, *args):
  return commands.run(module, *args)


def _report(process):
  return json.loads(process.stdout[process.stdout.index('{'):])


@pytest.mark.slow
class DerivedExportCommandTest(trained_workdir.CopyTest):
  """Quantised and trainable exports of one small training workdir."""
  LOOP = 'python'

  def test_quantized_export_is_written_next_to_the_float_one(self):
    export = _run('experiments.export_tflite', f'--workdir={self.workdir}',
                  '--verify_games=10', '--quantize=dynamic')
    self.assertEqual(export.returncode, 0, export.stderr[-2000:])
    report = _report(export)
    self.assertEqual(report['tflite_path'],
                     os.path.join(self.workdir, 'planestrike_dynamic.tflite'))
    self.assertTrue(os.path.exists(report['tflite_path']))
    self.assertFalse(os.path.exists(os.path.join(self.workdir,
                                                 'planestrike.tflite')))
    self.assertEqual(report['quantize'], 'dynamic')
    self.assertLessEqual(report['size_ratio'], 0.3)
    self.assertLess(report['size_bytes'], report['float_size_bytes'])
    for key in ('float_mean_episode_length', 'mean_episode_length_change',
                'greedy_agreement'):
      self.assertIn(key, report)

  def test_trainable_export_is_verified_and_fine_tuned(self):
    export = _run('experiments.export_tflite', f'--workdir={self.workdir}',
                  '--export=trainable', '--train_optimizer=sgd',
                  '--train_learning_rate=0.01', '--fine_tune_games=32')
    self.assertEqual(export.returncode, 0, export.stderr[-2000:])
    report = _report(export)
    self.assertEqual(report['tflite_path'], os.path.join(
        self.workdir, 'planestrike_trainable.tflite'))
    self.assertEqual((report['optimizer'], report['learning_rate']),
                     ('sgd', 0.01))
    self.assertLessEqual(report['weights_max_abs_diff'], 1e-5)
    self.assertEqual(report['weights_tolerance'], 1e-5)
    self.assertTrue(report['set_weights_reproduces_infer'])
    self.assertEqual(report['fine_tune']['games'], 32)

  def test_trainable_export_refuses_quantisation(self):
    export = _run('experiments.export_tflite', f'--workdir={self.workdir}',
                  '--export=trainable', '--quantize=dynamic')
    self.assertNotEqual(export.returncode, 0)
    self.assertIn('--quantize applies to --export=plain', export.stderr)


if __name__ == '__main__':
  absltest.main()
