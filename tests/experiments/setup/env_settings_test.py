"""Tests for experiments/setup/env_settings.py."""

from absl.testing import absltest

from experiments.setup import env_settings


class KeysTest(absltest.TestCase):

  def test_unknown_key_names_the_flag_and_the_valid_keys(self):
    env_settings.check_keys(['board_size', 'max_steps'], 'plane_strike')
    with self.assertRaisesRegex(
        ValueError, r"^--env_config.board_siz: plane_strike has no setting "
        r"'board_siz'. Valid: board_size, max_steps \(--helpconfig"):
      env_settings.check_keys(['board_siz'], 'plane_strike')
    with self.assertRaisesRegex(ValueError, 'Valid: rows, columns'):
      env_settings.check_keys(['size'], 'catch')
    with self.assertRaisesRegex(ValueError, r"'gravty'.*Valid: .*gravity"):
      env_settings.check_keys(['gravty'], 'gymnax:CartPole-v1')
    with self.assertRaisesRegex(ValueError, r'Valid: none \(its id fixes'):
      env_settings.check_keys(['size'], 'bsuite:catch/0')
    env_settings.check_keys(['anything'], 'gym:CartPole-v1')

  def test_a_value_the_environment_refuses_is_named(self):
    with self.assertRaisesRegex(
        ValueError, r'^--env_config.board_size=3: plane_strike refuses these '
        r'settings: board_size must be an integer >= 5'):
      env_settings.check_values('plane_strike', {'board_size': 3})


if __name__ == '__main__':
  absltest.main()
