"""Tests for agents/registry.py."""

from absl.testing import absltest
import jax

from agents import registry
from agents import reinforce
from environments import plane_strike
from environments import specs


class RegistryTest(absltest.TestCase):

  def test_names(self):
    self.assertIn('reinforce', registry.names())

  def test_unknown_agent_lists_valid_names(self):
    with self.assertRaisesRegex(ValueError, r"Unknown agent 'sarsa'.*reinforce"):
      registry.get('sarsa')

  def test_unknown_config_key_lists_valid_keys(self):
    with self.assertRaisesRegex(ValueError, r"\['lr'\].*learning_rate"):
      registry.make_config('reinforce', lr=0.1)

  def test_make_config_overrides(self):
    config = registry.make_config('reinforce', batch_size=3)
    self.assertIsInstance(config, reinforce.ReinforceConfig)
    self.assertEqual(config.batch_size, 3)

  def test_make_agent_builds_a_working_agent(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    agent = registry.make_agent('reinforce', registry.make_config('reinforce'),
                                spec, hidden_sizes=(8,))
    state = agent.init(jax.random.PRNGKey(0))
    params = agent.actor_params(state)
    self.assertEqual(params['logits']['w'].shape, (8, 64))


if __name__ == '__main__':
  absltest.main()
