"""The DQN presets of gymnax's classic-control games: each is its pair's
default, is measured by the learning benchmark, and ends its schedules
inside its budget."""

from absl.testing import absltest
from absl.testing import parameterized

from agents import registry as agent_registry
from benchmarks import learning
from experiments.presets import library
from experiments.presets import registry

_PAIRS = (('gymnax:CartPole-v1', 'dqn_gymnax_cartpole', 475.0),
          ('gymnax:Acrobot-v1', 'dqn_gymnax_acrobot', -91.5),
          ('gymnax:MountainCar-v0', 'dqn_gymnax_mountaincar', -195.0))


class DQNClassicControlPresetsTest(parameterized.TestCase):

  @parameterized.parameters(*_PAIRS)
  def test_is_the_default_of_its_pair(self, env, name, unused_target):
    preset = registry.resolve(None, 'dqn', env)
    self.assertEqual(preset.name, name)
    self.assertTrue(preset.default)
    self.assertIn(name, registry.names('dqn', env))

  @parameterized.parameters(*_PAIRS)
  def test_learning_benchmark_measures_it_against_its_target(
      self, env, name, target):
    setting = learning.find(env, 'dqn')
    self.assertEqual(setting.preset.name, name)
    self.assertEqual(setting.min_return, target)
    self.assertIn('--only=', setting.preset.source)
    self.assertIn(f'{env}/dqn', setting.preset.source)

  @parameterized.parameters(*_PAIRS)
  def test_budget_is_at_most_500k_steps(self, env, name, unused_target):
    del env
    preset = registry.get(name)
    self.assertIsNotNone(preset.num_steps)
    self.assertLessEqual(preset.num_steps, 500_000)

  def test_every_dqn_preset_ends_its_schedules_inside_its_budget(self):
    dqn_presets = [p for p in library.PRESETS if p.agent == 'dqn']
    self.assertGreaterEqual(len(dqn_presets), 6)
    for preset in dqn_presets:
      config = agent_registry.make_config('dqn', **preset.config)
      # ε decays linearly over environment steps; learning starts once the
      # replay holds min_replay_size transitions (one per environment step).
      self.assertIsNotNone(preset.num_steps, preset.name)
      self.assertLessEqual(config.epsilon_decay_steps, preset.num_steps,
                           preset.name)
      self.assertLess(config.min_replay_size, preset.num_steps, preset.name)
      self.assertLessEqual(config.min_replay_size, config.replay_capacity,
                           preset.name)
      # No learning-rate schedule to finish: DQN's step size is constant.
      self.assertNotIn('anneal_learning_rate', preset.config, preset.name)


if __name__ == '__main__':
  absltest.main()
