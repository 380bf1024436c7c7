"""Tests for experiments/driver/console.py: what a run says in words."""

from absl.testing import absltest

from agents import registry as agent_registry
from experiments.driver import console
from experiments.setup import config as config_lib


def _result(**overrides):
  result = {'agent': 'ppo', 'env': 'plane_strike', 'seed': 3,
            'status': 'finished', 'env_steps': 1_234_567,
            'wall_seconds': 61.25, 'eval_episodes': 1000,
            'eval_mean_return': 8.0, 'eval_mean_episode_length': 12.345,
            'tflite_path': '/runs/x/planestrike.tflite',
            'tflite': {'max_abs_diff': 4.2e-7, 'tolerance': 5e-5,
                       'observations_checked': 13_000}}
  result.update(overrides)
  return result


class ConsoleTest(absltest.TestCase):

  def test_start_names_the_resolved_settings_and_what_differs(self):
    config = config_lib.ExperimentConfig(
        agent='ppo', env='catch', num_episodes=None, num_steps=50_000,
        agent_config=agent_registry.make_config('ppo', learning_rate=0.01),
        env_kwargs={'rows': 8}, export_tflite=False)
    text = console.describe_start(config, '/tmp/w')
    self.assertIn('PPO on Catch: 50,000 environment steps, seed 0', text)
    self.assertIn('preset: none', text)
    self.assertIn('discount=0.99', text)  # Every key, not only overrides.
    differs = text[text.index('differs from the agent defaults'):]
    self.assertIn('learning_rate=0.01', differs)
    self.assertNotIn('discount', differs)
    self.assertIn('environment settings: rows=8', text)
    self.assertIn('100 greedy episodes', text)  # Catch: the default.
    self.assertIn('no export', text)
    self.assertIn('workdir: /tmp/w', text)
    self.assertTrue(all(len(line) <= 79 for line in text.splitlines()))

  def test_summary_line_has_score_steps_time_and_model(self):
    line = console.summary_line(_result())
    self.assertNotIn('\n', line)
    for part in ('PPO on Plane Strike, seed 3', 'strikes per game 12.35',
                 '1000 greedy episodes', '1,234,567 steps', '61.2 s',
                 '/runs/x/planestrike.tflite', '4.2e-07', '5e-05',
                 '13,000 observations'):
      self.assertIn(part, line)
    self.assertIn('no model exported',
                  console.summary_line(_result(tflite_path=None)))

  def test_a_finished_workdir_names_settings_it_was_not_made_with(self):
    config = config_lib.ExperimentConfig(env='plane_strike',
                                         eval_episodes=200,
                                         export_tflite=False)
    text = console.already_finished('/w', config, _result())
    self.assertIn('/w has already finished its budget', text)
    self.assertIn('evaluated on 1000 greedy episodes, not '
                  '--eval_episodes=200', text)
    self.assertIn('its model was exported', text)
    self.assertIn('--reevaluate', text)
    same = config_lib.ExperimentConfig(env='plane_strike')
    self.assertNotIn('Note', console.already_finished('/w', same, _result()))

  def test_seeds_summary_gives_each_seed_and_the_interval(self):
    results = [_result(seed=0), _result(seed=1, eval_mean_episode_length=13.0),
               _result(seed=2, status='diverged')]
    text = console.seeds_summary(
        results, {'point': 12.5, 'low': 12.3, 'high': 13.0})
    self.assertIn('seed 1: strikes per game 13.00', text)
    self.assertIn('seed 2: diverged', text)
    self.assertIn('over 2 seeds: 12.50, 95% CI [12.30, 13.00]', text)
    self.assertIn('fewer than 10 seeds', text)
    self.assertNotIn('Mean', console.seeds_summary(results[2:], None))


if __name__ == '__main__':
  absltest.main()
