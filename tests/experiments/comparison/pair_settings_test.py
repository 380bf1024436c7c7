"""Tests for each comparison pair's settings: presets and overrides."""

from absl.testing import absltest

from experiments.comparison import pair_settings

_COMMON = dict(num_steps=1000, eval_points=5, eval_episodes=10,
               periodic_eval_episodes=5, checkpoint_every_seconds=60.0,
               imports=())


class PairSettingsTest(absltest.TestCase):

  def test_split_overrides(self):
    common, per_agent = pair_settings.split_overrides(
        {'learning_rate': 1e-3, 'ppo.discount': 0.9}, ['ppo', 'dqn'])
    self.assertEqual(common, {'learning_rate': 1e-3})
    self.assertEqual(per_agent, {'ppo': {'discount': 0.9}})

  def test_preset_then_common_then_per_agent(self):
    config = pair_settings.experiment_config(
        'ppo', 'plane_strike', presets=(), common={'learning_rate': 5e-4,
                                                   'discount': 0.7},
        per_agent={'ppo': {'discount': 0.6}}, **_COMMON)
    self.assertEqual(config.preset, 'ppo_plane_strike')
    self.assertEqual(config.agent_config.batch_size, 64)  # The preset's.
    self.assertEqual(config.agent_config.learning_rate, 5e-4)
    self.assertEqual(config.agent_config.discount, 0.6)
    plain = pair_settings.experiment_config(
        'ppo', 'plane_strike', presets=('none',), common={}, per_agent={},
        **_COMMON)
    self.assertIsNone(plain.preset)
    self.assertEqual(plain.agent_config.discount, 0.99)

  def test_named_presets_replace_their_pairs_default(self):
    self.assertEqual(pair_settings.choose_preset(
        ['ppo_catch'], 'ppo', 'catch').name, 'ppo_catch')
    self.assertEqual(pair_settings.choose_preset(
        ['ppo_catch'], 'dqn', 'catch').name, 'dqn_catch')

  def test_bad_overrides_and_presets_are_named(self):
    with self.assertRaisesRegex(ValueError, r'--config.nope: no agent'):
      pair_settings.check_overrides(['ppo'], {'nope': 1}, {})
    with self.assertRaisesRegex(ValueError,
                                r"--config.dqn.clip_epsilon: agent 'dqn'"):
      pair_settings.check_overrides(['ppo', 'dqn'], {},
                                    {'dqn': {'clip_epsilon': 0.1}})
    with self.assertRaisesRegex(ValueError, 'not a pair'):
      pair_settings.check_presets(['ppo_cartpole'], ['ppo'], ['catch'])
    with self.assertRaisesRegex(ValueError, 'Unknown preset'):
      pair_settings.check_presets(['fast'], ['ppo'], ['catch'])
    with self.assertRaisesRegex(ValueError, 'none excludes'):
      pair_settings.check_presets(['none', 'ppo_catch'], ['ppo'], ['catch'])


if __name__ == '__main__':
  absltest.main()
