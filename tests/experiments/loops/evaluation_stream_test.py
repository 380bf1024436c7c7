"""Tests for experiments/loops/evaluation_stream.py."""

from absl.testing import absltest
import jax

from agents import registry
from environments import registry as env_registry
from environments import specs
from experiments.loops import evaluation_stream


class EvaluationStreamTest(absltest.TestCase):

  def test_a_run_evaluation_stream_continues_side_by_side_or_not(self):
    env = env_registry.make_environment('catch')
    agent = registry.make_agent(
        'reinforce', registry.make_config('reinforce'),
        specs.make_environment_spec(env), hidden_sizes=(16,))
    params = agent.actor_params(agent.init(jax.random.PRNGKey(1)))
    streams = [evaluation_stream.EvaluationStream(
        agent, 7, lambda seed: env_registry.make_environment('catch',
                                                              seed=seed),
        lambda stream, episode, fallback: env_registry.make_environment(
            'catch', seed=stream), num_envs) for num_envs in (1, 4)]
    for _ in range(2):
      one, four = (stream.play(params, 6) for stream in streams)
      self.assertEqual(one, four)
    self.assertEqual([s.played for s in streams], [12, 12])
    for stream in streams:
      stream.close()


if __name__ == '__main__':
  absltest.main()
