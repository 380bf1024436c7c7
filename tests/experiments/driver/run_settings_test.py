"""Tests for experiments/driver/run_settings.py."""

import os

from absl.testing import absltest

from agents import registry as agent_registry
from experiments.driver import run_settings
from experiments.setup import config as config_lib


def _config(**overrides):
  settings = dict(agent='ppo', env='plane_strike', num_steps=20_000,
                  num_episodes=None, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


class LaneSettingsTest(absltest.TestCase):

  def test_run_and_agent_settings_flat(self):
    config = _config(agent_config=agent_registry.make_config(
        'ppo', learning_rate=1e-3, learning_rate_decay_updates=None),
                     num_envs=64)
    settings = run_settings.lane_settings(config, 0,
                                          network='mlp_actor_critic')
    self.assertEqual(
        {k: settings[k] for k in (
            'agent', 'env', 'loop', 'seed', 'preset', 'network',
            'hidden_sizes', 'num_envs', 'num_seeds', 'num_steps',
            'num_episodes', 'learning_rate', 'learning_rate_decay_updates',
            'normalize_advantages', 'clip_epsilon')},
        {'agent': 'ppo', 'env': 'plane_strike', 'loop': 'compiled',
         'seed': 0, 'preset': 'None', 'network': 'mlp_actor_critic',
         'hidden_sizes': '(128, 64)', 'num_envs': 64, 'num_seeds': 1,
         'num_steps': 20_000, 'num_episodes': 'None', 'learning_rate': 1e-3,
         'learning_rate_decay_updates': 'None',
         'normalize_advantages': True, 'clip_epsilon': 0.2})
    self.assertNotIn('trial', settings)
    # Every agent setting, by its own name.
    self.assertContainsSubset(
        agent_registry.make_config('ppo').__dataclass_fields__, settings)
    for value in settings.values():
      self.assertIsInstance(value, (str, int, float, bool))

  def test_unresolved_settings_are_the_configs(self):
    settings = run_settings.lane_settings(_config(env='catch'), 0)
    self.assertEqual((settings['network'], settings['hidden_sizes']),
                     ('None', 'None'))
    self.assertEqual(settings['num_envs'], 4)  # Resolved: PPO's batch.

  def test_env_kwargs_and_each_lanes_seed(self):
    config = _config(seed=3, num_seeds=2, env_kwargs={'board_size': 6})
    first, second = (run_settings.lane_settings(config, lane)
                     for lane in (0, 1))
    self.assertEqual((first['seed'], second['seed']), (3, 4))
    self.assertEqual(first['env_kwargs.board_size'], 6)
    self.assertEqual(first['hidden_sizes'], '(72, 36)')  # 2·6², 6².

  def test_a_sweeps_lanes_carry_their_trials_values(self):
    config = _config(num_seeds=2, trials=({'learning_rate': 1e-3},
                                          {'learning_rate': 3e-3}))
    lanes = [run_settings.lane_settings(config, lane) for lane in range(4)]
    self.assertEqual([(s['trial'], s['seed'], s['learning_rate'])
                      for s in lanes],
                     [(0, 0, 1e-3), (0, 1, 1e-3), (1, 0, 3e-3),
                      (1, 1, 3e-3)])

  def test_flat_value(self):
    self.assertEqual([run_settings.flat_value(v) for v in
                      (None, (64, 64), [1], 'x', 2, 0.5, False)],
                     ['None', '(64, 64)', '(1,)', 'x', 2, 0.5, False])


class WandbNamesTest(absltest.TestCase):

  def test_a_comparisons_seeds_share_a_group(self):
    for seed in (0, 1):
      self.assertEqual(
          run_settings.wandb_names(_config(seed=seed),
                                   f'runs/plane_strike/ppo/seed_{seed}', 0),
          (f'runs/plane_strike/ppo/seed_{seed}', 'runs/plane_strike/ppo'))

  def test_one_runs_seeds_and_a_sweeps_trials(self):
    config = _config(seed=3, num_seeds=2)
    self.assertEqual(run_settings.wandb_names(config, 'runs/x/', 1),
                     ('runs/x/seed_4', 'runs/x'))
    sweep = _config(num_seeds=2, trials=({'learning_rate': 1e-3},
                                         {'learning_rate': 3e-3}))
    self.assertEqual(run_settings.wandb_names(sweep, 'sweep', 3),
                     ('sweep/trial_1/seed_1', 'sweep/trial_1'))

  def test_workdirs_outside_the_working_directory_are_absolute(self):
    workdir = os.path.join(os.path.dirname(os.path.abspath(os.curdir)),
                           'elsewhere')
    self.assertEqual(run_settings.wandb_names(_config(), workdir, 0),
                     (f'{workdir}/seed_0', workdir))


if __name__ == '__main__':
  absltest.main()
