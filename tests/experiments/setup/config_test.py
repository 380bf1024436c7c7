"""Tests for experiments/setup/config.py."""

import json

from absl.testing import absltest
from absl.testing import parameterized

from agents import ppo
from agents import reinforce
from experiments.setup import config as config_lib


class ExperimentConfigTest(parameterized.TestCase):

  def test_defaults_fill_agent_config(self):
    config = config_lib.ExperimentConfig()
    self.assertEqual(config.agent_config, ppo.PPOConfig())

  def test_unknown_agent_and_env_list_valid_names(self):
    with self.assertRaisesRegex(ValueError, 'Unknown agent.*reinforce'):
      config_lib.ExperimentConfig(agent='sarsa')
    with self.assertRaisesRegex(ValueError, 'Unknown environment.*plane_strike'):
      config_lib.ExperimentConfig(env='go')

  def test_evaluation_and_export_check_sizes_follow_the_environment(self):
    catch = config_lib.ExperimentConfig(env='catch')
    self.assertEqual((catch.eval_episodes, catch.export_check_episodes),
                     (100, 10))
    # Plane Strike's model is judged on 1000 games (the app's contract).
    game = config_lib.ExperimentConfig(env='plane_strike')
    self.assertEqual((game.eval_episodes, game.export_check_episodes),
                     (1000, 1000))
    set_here = config_lib.ExperimentConfig(env='plane_strike',
                                           eval_episodes=7,
                                           export_check_episodes=3)
    self.assertEqual((set_here.eval_episodes, set_here.export_check_episodes),
                     (7, 3))
    with self.assertRaisesRegex(ValueError, 'export_check_episodes'):
      config_lib.ExperimentConfig(env='catch', export_check_episodes=0)

  def test_actor_thread_needs_the_python_loop_and_a_correcting_agent(self):
    config_lib.ExperimentConfig(agent='impala', env='catch', loop='python',
                                actor_thread=True)
    with self.assertRaisesRegex(ValueError,
                                'actor_thread needs loop=python.*Use '):
      config_lib.ExperimentConfig(agent='impala', env='catch',
                                  actor_thread=True)
    with self.assertRaisesRegex(
        ValueError, r"actor_thread: agent 'ppo' does not correct .*agents "
        r'that do: impala\. Use one of them, or leave actor_thread unset'):
      config_lib.ExperimentConfig(agent='ppo', env='catch', loop='python',
                                  actor_thread=True)

  def test_needs_a_budget(self):
    with self.assertRaisesRegex(ValueError, 'budget'):
      config_lib.ExperimentConfig(num_episodes=None, num_steps=None)
    config_lib.ExperimentConfig(num_episodes=None, num_steps=10)

  @parameterized.parameters('num_episodes', 'num_steps', 'eval_episodes',
                            'checkpoint_every_updates')
  def test_non_positive_counts_are_named(self, name):
    with self.assertRaisesRegex(ValueError, name):
      config_lib.ExperimentConfig(**{name: 0})

  def test_keep_checkpoints_is_a_count_or_zero_for_every_one(self):
    config_lib.ExperimentConfig(keep_checkpoints=0)
    config_lib.ExperimentConfig(keep_checkpoints=None)
    for bad in (-1, 1.5, True):
      with self.assertRaisesRegex(ValueError,
                                  'keep_checkpoints must be an integer >= 0'):
        config_lib.ExperimentConfig(keep_checkpoints=bad)

  @parameterized.parameters(*config_lib.INTERVAL_KEYS)
  def test_negative_intervals_are_named(self, name):
    with self.assertRaisesRegex(ValueError, f'{name} must be >= 0'):
      config_lib.ExperimentConfig(**{name: -1})

  def test_intervals_default_to_the_step_budget(self):
    config = config_lib.ExperimentConfig(num_episodes=None,
                                         num_steps=300_000)
    self.assertEqual(
        {k: getattr(config, k) for k in config_lib.INTERVAL_KEYS},
        {'log_every_steps': 10_000, 'eval_every_steps': 30_000,
         'log_every_episodes': 0, 'eval_every_episodes': 0})

  def test_intervals_default_to_the_episode_budget(self):
    config = config_lib.ExperimentConfig(num_episodes=30_000)
    self.assertEqual(
        {k: getattr(config, k) for k in config_lib.INTERVAL_KEYS},
        {'log_every_steps': 0, 'eval_every_steps': 0,
         'log_every_episodes': 1000, 'eval_every_episodes': 3000})

  def test_one_interval_of_a_pair_turns_the_other_off(self):
    config = config_lib.ExperimentConfig(num_steps=100_000,
                                         log_every_episodes=7,
                                         eval_every_steps=0)
    self.assertEqual(
        {k: getattr(config, k) for k in config_lib.INTERVAL_KEYS},
        {'log_every_steps': 0, 'eval_every_steps': 0,
         'log_every_episodes': 7, 'eval_every_episodes': 0})
    # Resolved values survive a rebuild (e.g. dataclasses.replace).
    again = config_lib.ExperimentConfig(
        **{k: getattr(config, k) for k in config_lib.INTERVAL_KEYS},
        num_steps=100_000)
    self.assertEqual(again, config)

  def test_wrong_agent_config_type(self):
    with self.assertRaisesRegex(ValueError, 'needs a PPOConfig'):
      config_lib.ExperimentConfig(agent_config={'learning_rate': 1.0})

  def test_identity_mismatch_ignores_budget(self):
    config = config_lib.ExperimentConfig(seed=1)
    saved = json.loads(json.dumps(config.to_dict()))
    more = config_lib.ExperimentConfig(seed=1, num_episodes=10**6,
                                       export_tflite=False)
    self.assertEqual(config_lib.identity_mismatch(saved, more), {})
    other = config_lib.ExperimentConfig(
        seed=2, agent_config=ppo.PPOConfig(learning_rate=1.0))
    self.assertCountEqual(config_lib.identity_mismatch(saved, other),
                          ['seed', 'agent_config'])

  def test_agent_config_keys_added_since_count_as_their_defaults(self):
    # A run saved before PPO had reward_scale and squash_actions resumes.
    config = config_lib.ExperimentConfig(agent='ppo', env='catch')
    saved = json.loads(json.dumps(config.to_dict()))
    for key in ('reward_scale', 'squash_actions'):
      del saved['agent_config'][key]
    self.assertEqual(config_lib.identity_mismatch(saved, config), {})
    scaled = config_lib.ExperimentConfig(
        agent='ppo', env='catch',
        agent_config=ppo.PPOConfig(reward_scale=0.1))
    self.assertEqual(list(config_lib.identity_mismatch(saved, scaled)),
                     ['agent_config'])


if __name__ == '__main__':
  absltest.main()
