"""Tests for the experiments/train.py entry point: flags and bad input."""

import json
import os

from absl import app
from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
import pytest

from experiments import train
from tests import commands


def _run(*args):
  return commands.run('experiments.train', '--noprogress', *args)


class MakeConfigTest(absltest.TestCase):

  def test_flags_reach_the_agent_config(self):
    with flagsaver.flagsaver(learning_rate=0.01, batch_size=4, seed=3,
                             num_episodes=10):
      config = train.make_config()
    self.assertEqual(config.agent_config.learning_rate, 0.01)
    self.assertEqual(config.agent_config.batch_size, 4)
    self.assertEqual(config.seed, 3)
    self.assertEqual(config.num_episodes, 10)

  def test_unset_flags_keep_agent_defaults(self):
    with flagsaver.flagsaver(learning_rate=None, batch_size=None,
                             preset='none'):
      config = train.make_config()
    self.assertEqual(config.agent_config, train.agent_registry.make_config(
        'ppo'))


  def test_loop_flags_reach_the_config(self):
    with flagsaver.flagsaver(loop='compiled', num_envs=4, num_seeds=3,
                             updates_per_chunk=7):
      config = train.make_config()
    self.assertEqual((config.loop, config.num_envs, config.num_seeds,
                      config.updates_per_chunk), ('compiled', 4, 3, 7))
    with flagsaver.flagsaver(env='bsuite:catch/0'):
      self.assertEqual(train.make_config().loop, 'python')

  def test_interval_flags_reach_the_config(self):
    with flagsaver.flagsaver(num_steps=50_000, num_episodes=None,
                             log_every_steps=500, eval_every_episodes=40,
                             periodic_eval_episodes=7):
      config = train.make_config()
    self.assertEqual(
        (config.log_every_steps, config.log_every_episodes,
         config.eval_every_steps, config.eval_every_episodes,
         config.periodic_eval_episodes), (500, 0, 0, 40, 7))
    with flagsaver.flagsaver(num_steps=50_000, num_episodes=None,
                             preset='none'):
      config = train.make_config()  # Defaults: from the step budget.
    self.assertEqual((config.log_every_steps, config.eval_every_steps),
                     (1666, 5000))

  def test_impossible_loop_settings_name_the_flag(self):
    with flagsaver.flagsaver(loop='python', num_seeds=2):
      with self.assertRaisesRegex(app.UsageError, 'num_seeds needs loop'):
        train.make_config()
    with flagsaver.flagsaver(loop='compiled', env='gym:CartPole-v1'):
      with self.assertRaisesRegex(app.UsageError, 'loop=compiled needs'):
        train.make_config()


class PresetTest(absltest.TestCase):

  def test_the_pairs_preset_is_the_default_with_its_budget(self):
    with flagsaver.flagsaver(agent='ppo'):
      config = train.make_config()
    self.assertEqual(config.preset, 'ppo_plane_strike')
    self.assertEqual(config.agent_config.discount, 0.5)
    self.assertEqual((config.num_steps, config.num_episodes),
                     (1_000_000, None))

  def test_none_gives_plain_defaults_and_budget_flags_win(self):
    with flagsaver.flagsaver(agent='ppo', preset='none', num_steps=5000):
      config = train.make_config()
    self.assertIsNone(config.preset)
    self.assertEqual(config.agent_config,
                     train.agent_registry.make_config('ppo'))
    self.assertEqual((config.num_steps, config.num_episodes), (5000, None))
    with flagsaver.flagsaver(agent='ppo', num_episodes=7):
      config = train.make_config()
    self.assertEqual((config.num_steps, config.num_episodes), (None, 7))
    self.assertEqual(config.preset, 'ppo_plane_strike')

  def test_unknown_preset_lists_the_valid_ones(self):
    with flagsaver.flagsaver(agent='ppo', preset='fast'):
      with self.assertRaisesRegex(app.UsageError,
                                  '--preset: Unknown preset.*ppo_catch'):
        train.make_config()

  def test_annealing_is_computed_from_the_budget(self):
    with flagsaver.flagsaver(agent='ppo', env='cartpole', num_steps=500_000):
      config = train.make_config()
    self.assertEqual(config.preset, 'ppo_cartpole')
    self.assertEqual(config.agent_config.learning_rate_decay_updates, 977)
    with flagsaver.flagsaver(agent='ppo', env='cartpole', num_episodes=10):
      with self.assertRaisesRegex(app.UsageError, 'anneal_learning_rate '
                                  'needs a budget in environment steps'):
        train.make_config()


class CommandLineTest(absltest.TestCase):

  @pytest.mark.slow
  def test_config_flags_override_the_preset_and_are_recorded(self):
    workdir = self.create_tempdir().full_path
    result = _run(f'--workdir={workdir}', '--agent=ppo', '--num_steps=1024',
                  '--config.discount=0.9', '--eval_episodes=2',
                  '--noexport_tflite')
    self.assertEqual(result.returncode, 0, result.stderr[-2000:])
    for name in ('config.json', 'result.json'):
      with open(os.path.join(workdir, name)) as f:
        saved = json.load(f)
      self.assertEqual(saved['preset'], 'ppo_plane_strike', name)
      self.assertEqual(saved['agent_config']['discount'], 0.9, name)
      self.assertEqual(saved['agent_config']['batch_size'], 64, name)

  def test_unknown_agent_lists_valid_ones(self):
    result = _run('--agent=sarsa')
    self.assertNotEqual(result.returncode, 0)
    self.assertIn('--agent', result.stderr)
    self.assertIn('reinforce', result.stderr)

  def test_unknown_env_lists_valid_ones(self):
    result = _run('--env=chess')
    self.assertNotEqual(result.returncode, 0)
    self.assertIn('--env', result.stderr)
    self.assertIn('plane_strike', result.stderr)

  def test_bad_values_name_the_flag(self):
    # --learning_rate: its agent config's check (api_test).
    for flag in ('--num_episodes=0', '--batch_size=0',
                 '--seed=-2', '--env=chess', '--agent=dqn2', '--loop=anakin',
                 '--num_envs=0', '--num_seeds=0', '--process_id=-1'):
      with flagsaver.flagsaver():
        with self.assertRaisesRegex(flags.IllegalFlagValueError,
                                    flag.split('=')[0]):
          flags.FLAGS(['train', flag])

  def test_an_unusable_compilation_cache_is_refused_before_any_work(self):
    blocker = self.create_tempfile().full_path  # A file, not a folder.
    with flagsaver.flagsaver(compilation_cache_dir=f'{blocker}/cache'):
      with self.assertRaisesRegex(app.UsageError, '--compilation_cache_dir'):
        train.main(['train'])

  @pytest.mark.slow
  def test_tiny_run_prints_its_settings_and_a_summary(self):
    workdir = self.create_tempdir().full_path
    cache = os.path.join(self.create_tempdir().full_path, 'cache')
    # PPO, the default agent, with a step budget (it checks an episode
    # budget only at the end of each log row: docs/loops.md).
    result = _run(f'--workdir={workdir}', '--num_steps=1024',
                  '--batch_size=8', '--eval_episodes=3', '--noexport_tflite',
                  f'--compilation_cache_dir={cache}')
    self.assertEqual(result.returncode, 0, result.stderr[-2000:])
    self.assertNotEmpty(os.listdir(cache))  # The programs it compiled.
    self.assertIn('PPO on Plane Strike: 1,024 environment steps, seed 0',
                  result.stderr)
    self.assertIn('batch_size=8', result.stderr)
    (line,) = result.stdout.strip().splitlines()
    self.assertRegex(line, r'^Done: PPO on Plane Strike, seed 0: '
                     r'strikes per game [\d.]+ over 3 greedy episodes; [\d,]+ '
                     r'steps in [\d.]+ s of training \(and [\d.]+ s '
                     r'compiling\); no model exported\.$')
    with open(os.path.join(workdir, 'result.json')) as f:
      self.assertEqual(json.load(f)['env_steps'], 1024)
    again = _run(f'--workdir={workdir}', '--num_steps=1024',
                 '--batch_size=8', '--eval_episodes=3', '--noexport_tflite')
    self.assertEqual(again.returncode, 0, again.stderr[-2000:])
    self.assertIn('already finished its budget', again.stderr)
    self.assertEqual(again.stdout, result.stdout)
    mismatch = _run(f'--workdir={workdir}', '--seed=9', '--num_steps=1024',
                    '--noexport_tflite')
    self.assertNotEqual(mismatch.returncode, 0)
    self.assertIn('different experiment', mismatch.stderr)


if __name__ == '__main__':
  absltest.main()
