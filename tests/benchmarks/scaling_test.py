"""Tests for benchmarks/scaling.py: run order, ratios and
medians, the child's output and failures, and one real child run."""

import os
import sys
from unittest import mock

from absl.testing import absltest
import pytest

from agents import registry as agent_registry
from benchmarks import scaling as sb


def _fake_run(calls):
  """A `run_child` stand-in: records (name, measurement, seed) and returns
  figures that depend on the configuration and the seed."""

  def run(root, name, measurement, seed):
    del root
    calls.append((name, measurement, seed))
    rate = 100.0 * (measurement.devices or 1) + seed
    rate += 1000.0 if measurement.settings.get('loop') == 'compiled' else 0
    rate *= measurement.settings.get('num_seeds', 1)
    return {'steps_per_second': rate, 'compile_seconds': 2.0 + seed,
            'peak_memory_mib': 500.0, 'devices': measurement.devices or 1}

  return run


class AlternationTest(absltest.TestCase):

  def test_every_configuration_once_per_repetition_in_turn(self):
    self.assertEqual(sb.alternation(['a', 'b', 'c'], 2),
                     [(0, 'a'), (0, 'b'), (0, 'c'),
                      (1, 'a'), (1, 'b'), (1, 'c')])

  def test_measure_runs_in_that_order_with_the_repetition_as_seed(self):
    calls = []
    runs = sb.measure('/root', {
        'x': sb.Measurement({'program': 'fake', 'k': 1}),
        'y': sb.Measurement({'program': 'fake', 'k': 2}, devices=2)},
                      3, _fake_run(calls))
    self.assertEqual([(name, seed) for name, _, seed in calls],
                     [('x_seed0', 0), ('y_seed0', 0), ('x_seed1', 1),
                      ('y_seed1', 1), ('x_seed2', 2), ('y_seed2', 2)])
    self.assertEqual([r['seed'] for r in runs['y']], [0, 1, 2])
    self.assertEqual(runs['y'][1]['steps_per_second'], 201.0)


class SuitesTest(absltest.TestCase):

  def test_loop_speed_reports_speedups_per_repetition_and_medians(self):
    calls = []
    report = sb.loop_speed('/root', 3, 500, 64, run=_fake_run(calls))
    self.assertEqual([c[0] for c in calls[:3]],
                     ['python_seed0', 'compiled_seed0',
                      'compiled_64_envs_seed0'])
    wide = calls[2][1].settings
    self.assertEqual((wide['num_envs'], wide['agent_config']),
                     (64, {'batch_size': 64}))
    self.assertEqual(calls[0][1].settings['loop'], 'python')
    self.assertFalse(calls[0][1].settings['export_tflite'])
    runs = report['runs']
    self.assertNotIn('speedup_over_python', runs['python'][0])
    self.assertEqual([r['speedup_over_python'] for r in runs['compiled']],
                     [1100 / 100, 1101 / 101, 1102 / 102])
    self.assertEqual(report['median']['compiled']['speedup_over_python'],
                     1101 / 101)
    self.assertEqual(report['median']['python'],
                     {'steps_per_second': 101.0, 'compile_seconds': 3.0,
                      'peak_memory_mib': 500.0, 'devices': 1.0})
    self.assertEqual((report['episodes_per_run'], report['speedup_target']),
                     (500, 50.0))

  def test_seeds_names_each_count_and_compares_with_one_seed(self):
    calls = []
    report = sb.seeds_in_one_program('/root', 2, (1, 8), 100,
                                     run=_fake_run(calls))
    self.assertEqual([c[0] for c in calls],
                     ['seeds_1_seed0', 'seeds_8_seed0', 'seeds_1_seed1',
                      'seeds_8_seed1'])
    self.assertEqual(calls[1][1].settings['num_seeds'], 8)
    self.assertEqual(calls[1][1].settings['num_episodes'], 100)
    self.assertEqual(report['median']['seeds_8']['total_speed_vs_1_seed'],
                     8.0)
    self.assertEqual(report['episodes_per_seed'], 100)

  def test_devices_forces_device_counts_and_compares_with_one(self):
    calls = []
    report = sb.devices('/root', 1, (1, 2, 4), 320, 1000,
                        run=_fake_run(calls))
    self.assertEqual([c[0] for c in calls],
                     ['reinforce_devices_1_seed0', 'reinforce_devices_2_seed0',
                      'reinforce_devices_4_seed0', 'ppo_devices_1_seed0',
                      'ppo_devices_2_seed0', 'ppo_devices_4_seed0'])
    self.assertEqual([c[1].devices for c in calls], [1, 2, 4] * 2)
    # One device is the default, left unset as a user leaves it.
    self.assertNotIn('devices_per_seed', calls[0][1].settings)
    self.assertEqual(calls[2][1].settings['devices_per_seed'], 4)
    self.assertEqual(calls[4][1].settings['preset'], 'ppo_plane_strike')
    self.assertEqual(calls[4][1].settings['num_steps'], 1000)
    self.assertEqual(
        report['reinforce']['median']['devices_4']['speed_vs_1_device'], 4.0)
    self.assertEqual(sorted(report['ppo']['runs']),
                     ['devices_1', 'devices_2', 'devices_4'])
    self.assertLen(sb.devices('/root', 1, (1,), 320, 0,
                              run=_fake_run([]))['reinforce']['runs'], 1)


class ChildPartsTest(absltest.TestCase):

  def test_device_environment(self):
    self.assertEqual(sb.device_environment(None), {})
    self.assertEqual(
        sb.device_environment(2, '--xla_cpu_enable_fast_math=false'),
        {'XLA_FLAGS': '--xla_cpu_enable_fast_math=false '
                      '--xla_force_host_platform_device_count=2',
         'JAX_PLATFORMS': 'cpu'})

  def test_parse_takes_the_last_json_line(self):
    self.assertEqual(sb.parse_child_output('note\n{"a": 1}\n{"a": 2}\n\n'),
                     {'a': 2})
    with self.assertRaisesRegex(ValueError, 'no JSON line'):
      sb.parse_child_output('only words\n')

  def test_settings_apply_agent_overrides_and_presets(self):
    wide = sb.config_settings({'agent': 'reinforce', 'num_envs': 64,
                               'agent_config': {'batch_size': 64}})
    self.assertEqual(wide['agent_config'],
                     agent_registry.make_config('reinforce', batch_size=64))
    with self.assertRaisesRegex(ValueError, 'names its agent or a preset'):
      sb.config_settings({'num_envs': 64})
    ppo = sb.config_settings({'preset': 'ppo_plane_strike',
                              'num_steps': 1000,
                              'agent_config': {'learning_rate': 3e-4}})
    self.assertEqual((ppo['agent'], ppo['num_steps'], ppo['preset']),
                     ('ppo', 1000, 'ppo_plane_strike'))
    self.assertEqual((ppo['agent_config'].batch_size,
                      ppo['agent_config'].learning_rate), (64, 3e-4))
    # Every setting the preset holds reaches the run, as `train` applies
    # it: its network and widths too.
    recurrent = sb.config_settings({'preset': 'pqn_rnn_memory_chain'})
    self.assertEqual((recurrent['network'], recurrent['hidden_sizes']),
                     ('gru_layer_norm_q_values', (256, 256, 256)))

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_a_failing_child_names_its_command_and_stderr(self):
    root = self.create_tempdir().full_path
    measurement = sb.Measurement({'agent': 'no_such_agent'}, devices=2)
    # No XLA_FLAGS of the caller's to pass on (the tests set some).
    with mock.patch.dict(os.environ), self.assertRaises(sb.ChildFailed) as e:
      os.environ.pop('XLA_FLAGS', None)
      sb.run_child(root, 'broken', measurement, seed=0)
    message = str(e.exception)
    self.assertIn("benchmark child 'broken' failed", message)
    self.assertIn('XLA_FLAGS=--xla_force_host_platform_device_count=2 '
                  'JAX_PLATFORMS=cpu ' + sys.executable +
                  ' -m benchmarks.scaling', message)
    self.assertIn('no_such_agent', message.split('stderr ends:')[1])


@pytest.mark.slow
class RealChildTest(absltest.TestCase):

  def test_one_seed_on_one_forced_device(self):
    root = self.create_tempdir().full_path
    result = sb.run_child(root, 'tiny', sb.Measurement(dict(
        agent='reinforce', num_episodes=320, eval_episodes=10,
        **sb._TRAINING_ONLY), 1), 0)
    self.assertEqual((result['devices'], result['num_seeds']), (1, 1))
    self.assertGreater(result['env_steps'], 320 * 8)  # >= 8 strikes a game.
    self.assertGreater(result['steps_per_second'], 0)
    self.assertGreater(result['compile_seconds'], 0)
    self.assertGreater(result['peak_memory_mib'], 100)
    self.assertGreater(result['process_seconds'], result['train_seconds'])
    self.assertLen(os.listdir(root), 1)  # Its own fresh workdir.


if __name__ == '__main__':
  absltest.main()
