"""Tests for experiments/cli/config_flags.py."""

import os

from absl.testing import absltest
import ml_collections
import pytest

from agents import ppo
from agents import reinforce
from experiments.cli import config_flags
from tests import commands



class ConfigFlagsTest(absltest.TestCase):

  def test_config_dict_has_typed_slots_for_none_defaults(self):
    config_dict = config_flags.to_config_dict(reinforce.ReinforceConfig())
    self.assertEqual(config_dict.learning_rate, 3e-3)
    self.assertIsNone(config_dict.max_grad_norm)
    config_dict.max_grad_norm = 1.5  # A float slot, not a frozen None.
    with self.assertRaises(TypeError):
      config_dict.max_grad_norm = 'big'
    ppo_dict = config_flags.to_config_dict(ppo.PPOConfig())
    ppo_dict.learning_rate_decay_updates = 10
    self.assertIsInstance(ppo_dict, ml_collections.ConfigDict)

  def test_agent_name_from_argv(self):
    self.assertEqual(config_flags.agent_name_from_argv(
        ['train', '--agent=ppo', '--seed=1'], 'reinforce'), 'ppo')
    self.assertEqual(config_flags.agent_name_from_argv(
        ['train', '--agent', 'a2c'], 'reinforce'), 'a2c')
    self.assertEqual(config_flags.agent_name_from_argv(['train'], 'reinforce'),
                     'reinforce')

  def test_unknown_keys_list_valid_ones(self):
    config_flags.check_override_keys(['--config.clip_epsilon=0.1'], 'ppo')
    with self.assertRaisesRegex(ValueError, r"\['lr'\].*clip_epsilon"):
      config_flags.check_override_keys(['x', '--config.lr=1'], 'ppo')

  @pytest.mark.slow
  def test_command_line_overrides_reach_the_saved_config(self):
    workdir = self.create_tempdir().full_path
    result = commands.run(
        'experiments.train', '--agent=a2c', '--config.td_lambda=0.5',
        '--config.unroll_length=4', '--learning_rate=0.002',
        f'--workdir={workdir}', '--num_episodes=2', '--eval_episodes=1',
        '--noexport_tflite', '--noprogress')
    self.assertEqual(result.returncode, 0, result.stderr[-2000:])
    with open(os.path.join(workdir, 'config.json')) as f:
      saved = f.read()
    for expected in ('"td_lambda": 0.5', '"unroll_length": 4',
                     '"learning_rate": 0.002'):
      self.assertIn(expected, saved)
    bad = commands.run('experiments.train', '--agent=a2c',
                       '--config.clip_epsilon=0.1')
    self.assertNotEqual(bad.returncode, 0)
    self.assertIn("Unknown config key(s) ['clip_epsilon'] for agent 'a2c'",
                  bad.stderr)
    self.assertIn('td_lambda', bad.stderr)


if __name__ == '__main__':
  absltest.main()
