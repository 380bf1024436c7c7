"""Tests for experiments/loops/environment_loop.py."""

from absl.testing import absltest
import jax
import numpy as np

from agents import registry
from environments import plane_strike
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import environment_loop
from experiments.loops import batchers
from experiments.loops import learner as learner_lib


class EnvironmentLoopTest(absltest.TestCase):

  def test_updates_once_per_batch_and_actor_gets_new_params(self):
    env = plane_strike.make_environment(seed=0)
    spec = specs.make_environment_spec(env)
    agent = registry.make_agent(
        'reinforce', registry.make_config('reinforce', batch_size=3), spec,
        hidden_sizes=(16,))
    learner = learner_lib.Learner(agent, agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, learner.params, jax.random.PRNGKey(1))
    loop = environment_loop.EnvironmentLoop(
        env, actor, learner, batchers.EpisodeBatcher(3))
    results = [loop.run_episode() for _ in range(7)]
    updates = [len(r.learner_metrics) for r in results]
    self.assertEqual(updates, [0, 0, 1, 0, 0, 1, 0])
    self.assertEqual(int(learner.state.updates), 2)
    for r in results:
      # Masked sampling never repeats a cell: return is exactly the 8 hits.
      self.assertEqual(r.episode_return, 8.0)
      self.assertBetween(r.episode_length, 8, 64)
    params_in_actor = actor._params  # pylint: disable=protected-access
    np.testing.assert_array_equal(params_in_actor['logits']['b'],
                                  learner.params['logits']['b'])

  def test_unroll_agents_update_mid_episode(self):
    env = plane_strike.make_environment(seed=0)
    spec = specs.make_environment_spec(env)
    agent = registry.make_agent('reinforce', registry.make_config('reinforce'),
                                spec, hidden_sizes=(16,))
    learner = learner_lib.Learner(agent, agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.Actor(agent, learner.params, jax.random.PRNGKey(1))
    # Two 3-step sequences per update: one update every 6 steps.
    loop = environment_loop.EnvironmentLoop(
        env, actor, learner, batchers.SequenceBatcher(2, 3))
    results = [loop.run_episode() for _ in range(3)]
    total_steps = sum(r.episode_length for r in results)
    self.assertEqual(sum(len(r.learner_metrics) for r in results),
                     total_steps // 6)
    self.assertGreater(len(results[0].learner_metrics), 1)


if __name__ == '__main__':
  absltest.main()
