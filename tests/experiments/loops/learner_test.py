"""Tests for experiments/loops/learner.py."""

from absl.testing import absltest
import chex
import jax
import numpy as np
import pytest

from agents import registry
from environments import plane_strike
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import learner as learner_lib


class LearnerTest(absltest.TestCase):

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_step_matches_agent_update(self):
    env = plane_strike.make_environment(seed=0)
    spec = specs.make_environment_spec(env)
    agent = registry.make_agent(
        'reinforce', registry.make_config('reinforce', batch_size=2), spec,
        hidden_sizes=(16,))
    state = agent.init(jax.random.PRNGKey(0))
    learner = learner_lib.Learner(agent, state)
    actor = actor_lib.BatchedActor(agent, learner.params,
                                   jax.random.PRNGKey(1))
    # Collect one batch without updating: a second batcher sees the same data.
    recorder = batchers.EpisodeBatcher(2, num_envs=1)
    for episode in range(2):
      timestep, step = env.reset(), 0
      while not timestep.last():
        observation = np.asarray(timestep.observation)[None]
        actions, extras = actor.select_actions(
            np.array([episode], np.int32), np.array([step], np.int32),
            observation)
        timestep = env.step(int(actions[0]))
        recorder.observe(batchers.Step(
            observation, actions, np.array([timestep.reward], np.float32),
            np.array([timestep.discount], np.float32),
            np.array([timestep.last()]),
            np.asarray(timestep.observation)[None], extras))
        step += 1
    trajectory = recorder.pop_batch()
    expected_state, expected_metrics = agent.update(
        agent.init(jax.random.PRNGKey(0)), trajectory)
    metrics = learner.step(trajectory)
    chex.assert_trees_all_close(learner.state.params, expected_state.params,
                                atol=1e-6)
    np.testing.assert_allclose(metrics['policy_loss'],
                               expected_metrics['policy_loss'],
                               rtol=1e-5)
    self.assertEqual(int(learner.state.updates), 1)


if __name__ == '__main__':
  absltest.main()
