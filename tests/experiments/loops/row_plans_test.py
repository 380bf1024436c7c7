"""Tests of experiments/loops/row_plans.py: rows and host calls."""

from absl.testing import absltest
from absl.testing import parameterized

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments.loops import compiled_loop
from experiments.loops import row_plans


def _loop(name, **overrides):
  spec = specs.make_environment_spec(env_registry.make_environment('catch'))
  agent = agent_registry.make_agent(
      name, agent_registry.make_config(name, **overrides), spec,
      hidden_sizes=(8,))
  return compiled_loop.CompiledLoop(
      agent, env_registry.make_functional('catch'), 1)


class DefaultUpdatesPerChunkTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # PPO, 4 x 128 = 512 steps per update; the cap is 65,536 // 512 = 128.
      ('interval_below_the_cap', 16_667, 33),  # 33 updates: one chunk.
      ('interval_of_three_caps', 300 * 512, 100),  # Three equal chunks.
      ('interval_just_above_the_cap', 129 * 512, 65),  # Not 128 + 1.
      ('one_update', 1, 1))
  def test_log_intervals_by_steps_are_cut_evenly(self, every, expected):
    loop = _loop('ppo', batch_size=4, unroll_length=128)
    self.assertEqual(row_plans.default_updates_per_chunk(
        loop, log_every_episodes=0, log_every_steps=every), expected)

  def test_without_logging_chunks_are_about_the_target(self):
    loop = _loop('ppo', batch_size=4, unroll_length=128)
    self.assertEqual(row_plans.default_updates_per_chunk(
        loop, log_every_episodes=0),
                     row_plans.CHUNK_STEPS // 512)

  def test_episode_agents_logging_by_episodes_take_one_interval(self):
    loop = _loop('reinforce', batch_size=4)
    self.assertEqual(row_plans.default_updates_per_chunk(
        loop, log_every_episodes=250), 63)  # ceil(250 / 4).


if __name__ == '__main__':
  absltest.main()
