"""Tests for experiments/cli/env_config_flags.py (`--env_config.<key>`)."""

import os
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver

from experiments import train
from experiments.cli import env_config_flags
from experiments.setup import env_settings
from experiments.setup import build as build_lib
from experiments.sweeps import sweep_plan
from tests import commands



def _parsed(argv):
  """Fresh flags with `--env` and `--env_config`, parsed from `argv`."""
  values = flags.FlagValues()
  flags.DEFINE_string('env', 'plane_strike', 'Environment.',
                      flag_values=values)
  env_config_flags.define_flag(argv, flag_values=values)
  values(argv)
  return values


class DefineTest(absltest.TestCase):

  def test_define_flag_exits_on_an_unknown_key_before_parsing(self):
    with self.assertRaises(SystemExit) as e:
      env_config_flags.define_flag(['prog', '--env=catch', '--env_config.r=1'],
                                   flag_values=flags.FlagValues())
    self.assertIn("--env_config.r: catch has no setting 'r'. Valid: rows, "
                  'columns', str(e.exception.code))


class ParseTest(absltest.TestCase):

  def test_values_get_their_settings_types(self):
    values = _parsed(['prog', '--env_config.board_size=6',
                      '--env_config.max_steps=40'])
    self.assertEqual(env_config_flags.overrides(values),
                     {'board_size': 6, 'max_steps': 40})
    self.assertIsInstance(env_config_flags.overrides(values)['board_size'],
                          int)
    values = _parsed(['prog', '--env=gymnax:CartPole-v1',
                      '--env_config.gravity=5'])
    self.assertEqual(env_config_flags.overrides(values), {'gravity': 5.0})
    self.assertEqual(env_config_flags.overrides(_parsed(['prog'])), {})

  def test_a_value_of_the_wrong_type_is_named(self):
    with self.assertRaisesRegex(flags.IllegalFlagValueError,
                                r'--env_config.board_size=big'):
      _parsed(['prog', '--env_config.board_size=big'])
    with self.assertRaisesRegex(flags.IllegalFlagValueError,
                                r'--env_config.gravity=heavy'):
      _parsed(['prog', '--env=gymnax:CartPole-v1',
               '--env_config.gravity=heavy'])

  def test_gym_takes_literals_and_its_refusals_are_named(self):
    values = _parsed(['prog', '--env=gym:CartPole-v1',
                      '--env_config.max_episode_steps=50'])
    self.assertEqual(env_config_flags.overrides(values),
                     {'max_episode_steps': 50})
    with self.assertRaisesRegex(
        ValueError, r'^--env_config.bogus=3: gym:CartPole-v1 refuses these '
        r'settings: .*bogus.*cannot be listed'):
      env_settings.check_values('gym:CartPole-v1', {'bogus': 3})

  def test_commands_of_several_environments_refuse_the_flag(self):
    env_config_flags.refuse(['prog', '--envs=catch'], 'compare', 'fix.')
    with self.assertRaises(SystemExit) as e:
      env_config_flags.refuse(['prog', '--env_config.rows=5'], 'compare',
                              'use train.')
    self.assertEqual(e.exception.code, 'FATAL Flags parsing error: '
                     '--env_config: compare takes no environment settings; '
                     'use train.')


class WiringTest(absltest.TestCase):

  def test_train_passes_settings_and_wandb_project_to_the_config(self):
    with mock.patch.object(env_config_flags, 'overrides',
                           return_value={'board_size': 6}), \
        flagsaver.flagsaver(agent='ppo', env='plane_strike',
                            wandb_project='my-project'):
      config = train.make_config()
    self.assertEqual(dict(config.env_kwargs), {'board_size': 6})
    self.assertEqual(config.wandb_project, 'my-project')
    with mock.patch.dict(os.environ, {'WANDB_MODE': 'offline'}):
      built = build_lib.build(config)
    self.assertEqual(built.environment_spec.observations.shape, (6, 6))
    self.assertEqual(built.environment_spec.actions.num_values, 36)
    self.assertEqual(config.resolved_hidden_sizes(), (72, 36))

  def test_train_refuses_a_bad_value_naming_the_flag(self):
    with mock.patch.object(env_config_flags, 'overrides',
                           return_value={'board_size': 2}):
      with self.assertRaisesRegex(Exception, r'--env_config.board_size=2'):
        train.make_config()

  def test_sweep_configs_get_the_settings(self):
    sweep = sweep_plan.Sweep(
        agent='ppo', env='plane_strike', env_kwargs={'board_size': 6},
        configurations=({'discount': 0.5},), base={}, preset=None,
        num_seeds=1, num_steps=1000)
    config = sweep_plan._config(sweep, sweep.configurations[0])
    self.assertEqual(dict(config.env_kwargs), {'board_size': 6})
    self.assertEqual(sweep.to_dict()['env_kwargs'], {'board_size': 6})

  def test_an_unknown_key_stops_train_before_anything_runs(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'run')
    result = commands.run('experiments.train', '--env=plane_strike',
                          '--env_config.board_siz=6', f'--workdir={workdir}')
    self.assertEqual(result.returncode, 1)
    self.assertIn("--env_config.board_siz: plane_strike has no setting "
                  "'board_siz'. Valid: board_size, max_steps", result.stderr)
    self.assertFalse(os.path.exists(workdir))


if __name__ == '__main__':
  absltest.main()
