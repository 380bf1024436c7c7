"""How a saved run's settings and a config differ, defaults resolved."""

import dataclasses

from absl.testing import absltest

from experiments.setup import config as config_lib
from experiments.setup import config_drift


class DifferencesTest(absltest.TestCase):

  def test_restated_defaults_are_no_difference(self):
    saved = config_lib.ExperimentConfig(env='catch', agent='ppo',
                                        num_steps=100).to_dict()
    restated = config_lib.ExperimentConfig(
        env='catch', agent='ppo', num_steps=200, num_envs=4,
        network='mlp_actor_critic', env_kwargs={'rows': 10})
    self.assertEqual(config_drift.differences(saved, restated), [])
    python = config_lib.ExperimentConfig(env='catch', loop='python',
                                         num_envs=1)
    self.assertEqual(config_drift.differences(
        config_lib.ExperimentConfig(env='catch', loop='python').to_dict(),
        python), [])

  def test_restated_network_widths_are_no_difference(self):
    # Catch sets no widths: None means the network's own (64, 64).
    saved = config_lib.ExperimentConfig(env='catch', agent='ppo').to_dict()
    restated = config_lib.ExperimentConfig(env='catch', agent='ppo',
                                           hidden_sizes=(64, 64))
    self.assertEqual(config_drift.differences(saved, restated), [])
    wider = config_lib.ExperimentConfig(env='catch', agent='ppo',
                                        hidden_sizes=(128, 128))
    self.assertEqual(config_drift.differences(saved, wider), [
        'hidden_sizes: saved None (= [64, 64]), now [128, 128]'])

  def test_a_default_protocol_restated_is_no_difference(self):
    saved = config_lib.ExperimentConfig(env='catch', agent='dqn').to_dict()
    restated = config_lib.ExperimentConfig(
        env='catch', agent='dqn', eval_policy='greedy', eval_epsilon=0.05)
    self.assertEqual(config_drift.differences(saved, restated), [])

  def test_differences_name_each_setting(self):
    saved = config_lib.ExperimentConfig(env='catch', agent='ppo').to_dict()
    other = config_lib.ExperimentConfig(
        env='catch', agent='ppo', num_envs=2, env_kwargs={'rows': 12},
        agent_config=dataclasses.replace(
            config_lib.ExperimentConfig(agent='ppo').agent_config,
            learning_rate=0.003))
    self.assertEqual(config_drift.differences(saved, other), [
        'env_kwargs.rows (--env_config.rows): saved 10, now 12',
        'agent_config.learning_rate (--config.learning_rate): saved '
        '0.00025, now 0.003',
        'num_envs: saved 4, now 2'])
    saved['num_envs'] = None  # A config.json that left the default unset.
    self.assertEqual(config_drift.differences(saved, other)[-1],
                     'num_envs: saved None (= 4), now 2')
    self.assertEqual(config_drift.differences(
        saved, config_lib.ExperimentConfig(env='catch', agent='ppo')), [])



if __name__ == '__main__':
  absltest.main()
