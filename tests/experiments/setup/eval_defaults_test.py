"""Each run's default evaluation protocol follows its game's field."""

from absl.testing import absltest
from absl.testing import parameterized

from agents import registry as agent_registry
from environments import registry
from experiments.setup import config as config_lib
from experiments.setup import eval_defaults


class ProtocolTest(parameterized.TestCase):

  @parameterized.parameters(
      ('ppo', 'gymnax:Breakout-MinAtar', 'sampled'),
      ('reinforce', 'gymnax:Asterix-MinAtar', 'sampled'),
      ('dqn', 'gymnax:Breakout-MinAtar', 'epsilon_greedy'),
      ('ppo', 'plane_strike', 'greedy'),
      ('dqn', 'catch', 'greedy'),
      ('ppo', 'gymnax:CartPole-v1', 'greedy'),
      ('sac', 'gymnax:Pendulum-v1', 'greedy'))
  def test_unset_is_what_the_field_reports(self, agent, env, policy):
    self.assertEqual(eval_defaults.protocol(
        agent_registry.get(agent), registry.resolve(env)).policy, policy)

  def test_given_values_win_and_epsilon_is_the_agents(self):
    self.assertEqual(
        eval_defaults.protocol(agent_registry.get('dqn'),
                               registry.resolve('gymnax:Breakout-MinAtar'),
                               'greedy'),
        eval_defaults.evaluation.Protocol('greedy', 0.05))
    self.assertEqual(
        eval_defaults.protocol(agent_registry.get('ppo'),
                               registry.resolve('catch'),
                               'epsilon_greedy', 0.2).epsilon,
        0.2)

  def test_the_config_records_the_resolved_protocol(self):
    config = config_lib.ExperimentConfig(agent='dqn',
                                         env='gymnax:SpaceInvaders-MinAtar')
    self.assertEqual((config.eval_policy, config.eval_epsilon),
                     ('epsilon_greedy', 0.05))
    self.assertEqual(config_lib.ExperimentConfig().eval_policy, 'greedy')


if __name__ == '__main__':
  absltest.main()
