"""Tests for experiments/loops/environment_loop.py, with one environment
(tests/experiments/loops/vectorised_python_training_test.py plays N)."""

from absl.testing import absltest
import dm_env
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import registry
from environments import environment_batch
from environments import plane_strike
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import environment_loop
from experiments.loops import learner as learner_lib


def _loop(batcher, **overrides):
  """A REINFORCE learner and actor on one Plane Strike environment."""
  env = plane_strike.make_environment(seed=0)
  agent = registry.make_agent(
      'reinforce', registry.make_config('reinforce', **overrides),
      specs.make_environment_spec(env), hidden_sizes=(16,))
  learner = learner_lib.Learner(agent, agent.init(jax.random.PRNGKey(0)))
  actor = actor_lib.BatchedActor(agent, learner.params, jax.random.PRNGKey(1))
  loop = environment_loop.EnvironmentLoop(
      environment_batch.EnvironmentList([env]), actor, learner, batcher,
      np.zeros(1, np.int64))
  return loop, learner, actor


def _episodes(loop, count):
  """Steps until `count` episodes have ended: each step's result."""
  results = []
  while sum(len(r.lengths) for r in results) < count:
    results.append(loop.step())
  return results


class EnvironmentLoopTest(absltest.TestCase):

  def test_updates_once_per_batch_and_actor_gets_new_params(self):
    loop, learner, actor = _loop(batchers.EpisodeBatcher(3, num_envs=1),
                                 batch_size=3)
    results = _episodes(loop, 7)
    ends = [r for r in results if r.lengths]
    self.assertEqual([len(r.learner_metrics) for r in ends],
                     [0, 0, 1, 0, 0, 1, 0])
    self.assertEqual(sum(len(r.learner_metrics) for r in results), 2)
    self.assertEqual(int(learner.state.updates), 2)
    for r in ends:
      # Masked sampling never repeats a cell: return is exactly the 8 hits.
      self.assertEqual(r.returns, [8.0])
      self.assertBetween(r.lengths[0], 8, 64)
    params_in_actor = actor._params  # pylint: disable=protected-access
    np.testing.assert_array_equal(params_in_actor['logits']['b'],
                                  learner.params['logits']['b'])

  def test_unroll_agents_update_mid_episode(self):
    # Two 3-step sequences per update: one update every 6 steps.
    loop, _, _ = _loop(batchers.SequenceBatcher(2, 3))
    results = _episodes(loop, 3)
    self.assertEqual(sum(len(r.learner_metrics) for r in results),
                     len(results) // 6)
    first = next(i for i, r in enumerate(results) if r.lengths)
    self.assertGreater(
        sum(len(r.learner_metrics) for r in results[:first + 1]), 1)

  def test_between_episodes_only_where_no_game_is_in_progress(self):
    loop, _, _ = _loop(batchers.SequenceBatcher(2, 3))
    self.assertTrue(loop.between_episodes())
    result = loop.step()
    self.assertFalse(loop.between_episodes())
    while not result.lengths:
      result = loop.step()
    self.assertTrue(loop.between_episodes())


class _ClipsInPlace(dm_env.Environment):
  """A continuous game whose step clips the action it is given in place,
  as some environments do."""

  def __init__(self):
    self._t = 0

  def reset(self):
    self._t = 0
    return dm_env.restart(np.zeros(2, np.float32))

  def step(self, action):
    np.clip(action, -0.5, 0.5, out=action)
    self._t += 1
    observation = np.full(2, action[0], np.float32)
    if self._t == 3:
      return dm_env.termination(np.float32(0.0), observation)
    return dm_env.transition(np.float32(0.0), observation)

  def observation_spec(self):
    return dm_specs.Array((2,), np.float32)

  def action_spec(self):
    return dm_specs.BoundedArray((1,), np.float32, -1.0, 1.0)


class ContinuousActionsTest(absltest.TestCase):

  def test_each_environment_gets_a_float32_action_it_may_write_to(self):
    env = _ClipsInPlace()
    agent = registry.make_agent(
        'ppo', registry.make_config('ppo', unroll_length=3, batch_size=2,
                                    num_minibatches=1),
        specs.make_environment_spec(env), hidden_sizes=(8,))
    learner = learner_lib.Learner(agent, agent.init(jax.random.PRNGKey(0)))
    actor = actor_lib.BatchedActor(agent, learner.params,
                                   jax.random.PRNGKey(1))
    loop = environment_loop.EnvironmentLoop(
        environment_batch.EnvironmentList([env, _ClipsInPlace()]), actor,
        learner, batchers.SequenceBatcher(2, 3), np.zeros(2, np.int64))
    for _ in range(6):
      loop.step()


if __name__ == '__main__':
  absltest.main()
