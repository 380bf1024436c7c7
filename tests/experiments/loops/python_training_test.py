"""Tests for experiments/loops/python_training.py: an interrupted and resumed
run ends exactly as an uninterrupted one, and `advance` honours deadlines."""

import pickle
import time
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import pytest

from agents import registry as agent_registry
from experiments.loops import actor as actor_lib
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

_SETTINGS = {
    # Whole episodes, 16 per update: stops fall inside batches.
    'reinforce': dict(),
    # Unrolls of 8 steps across 9-step Catch episodes, 2 per update.
    'ppo': dict(unroll_length=8, batch_size=2, num_epochs=2,
                num_minibatches=2),
    # One 4-step unroll per update, learning from replay after 16 steps.
    'dqn': dict(update_period=4, batch_size=8, replay_capacity=256,
                min_replay_size=16, target_update_period=10,
                epsilon_decay_steps=200),
}


class _Stop(Exception):
  """Raised from `progress`, as the driver does on a signal."""


def _built(agent, env, num_envs=None):
  return build_lib.build(config_lib.ExperimentConfig(
      agent=agent, env=env, hidden_sizes=(16,), loop='python',
      agent_config=agent_registry.make_config(agent, **_SETTINGS[agent]),
      num_episodes=100, log_every_episodes=250, export_tflite=False,
      num_envs=num_envs))


def _checkpointed(loop, built):
  """A new loop restored from `loop`'s checkpoint, as the driver saves it."""
  state = jax.device_get(loop.state)
  host_state = pickle.loads(pickle.dumps(loop.host_state))
  loop.close()
  resumed = build_lib.make_loop(built)
  resumed.restore(state, host_state)
  return resumed


def _train(built, stops, resume, by_progress=False):
  """Trains to `stops[-1]` episodes, stopping at each of `stops` (by a
  target, or by `progress` raising there) and, if `resume`, going on in a
  new loop from a checkpoint. Evaluates at the first and last stop. Returns
  the final loop and the evaluations."""
  loop = build_lib.make_loop(built)
  evaluations = []
  for stop in stops:
    def progress(counters, stop=stop):
      if by_progress and counters['episodes'][0] == stop:
        raise _Stop()
    target = stops[-1] if by_progress else stop
    try:
      while loop.counters()['episodes'][0] < stop:
        loop.advance(interface.Targets(episodes=target), progress)
    except _Stop:
      pass
    if stop in (stops[0], stops[-1]):
      evaluations.append(loop.evaluate(2))
    if resume and stop != stops[-1]:
      loop = _checkpointed(loop, built)
  return loop, evaluations


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
class ExactResumeTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('reinforce_plane_strike', 'reinforce', 'plane_strike', (10, 27, 40)),
      ('ppo_catch', 'ppo', 'catch', (5, 12)),
      ('dqn_bsuite_catch', 'dqn', 'bsuite:catch/0', (5, 11, 16)),
      ('dqn_gym_cartpole', 'dqn', 'gym:CartPole-v1', (3, 7, 10)),
      # Two environments whose games all last 9 steps stop between
      # episodes of both (the unroll in progress is saved).
      ('ppo_catch_two_envs', 'ppo', 'catch', (6, 12), 2),
  )
  def test_resumed_run_ends_as_an_uninterrupted_one(self, agent, env, stops,
                                                   num_envs=None):
    built = _built(agent, env, num_envs)
    whole, whole_evaluations = _train(built, stops, resume=False)
    pieces, evaluations = _train(built, stops, resume=True,
                                 by_progress=agent == 'ppo')
    chex.assert_trees_all_equal(pieces.counters(), whole.counters())
    self.assertGreater(int(whole.counters()['updates'][0]), 1)
    chex.assert_trees_all_equal(jax.device_get(pieces.state),
                                jax.device_get(whole.state))
    chex.assert_trees_all_equal(pieces.actor_params(0), whole.actor_params(0))
    # The evaluation stream continues too.
    chex.assert_trees_all_equal(evaluations, whole_evaluations)

  def test_resume_restores_the_part_filled_batch(self):
    built = _built('reinforce', 'catch')
    loop = build_lib.make_loop(built)
    self.assertIsNone(loop.host_state['batcher'])
    loop.advance(interface.Targets(episodes=5))
    self.assertLen(loop.host_state['batcher']['episodes'], 5)
    resumed = _checkpointed(loop, built)
    self.assertLen(resumed.host_state['batcher']['episodes'], 5)
    resumed.advance(interface.Targets(episodes=16))
    self.assertEqual(int(resumed.counters()['updates'][0]), 1)

  def test_interrupted_episode_leaves_no_checkpoint(self):
    loop = build_lib.make_loop(_built('reinforce', 'catch'))
    loop.advance(interface.Targets(episodes=2))
    calls = []
    real = actor_lib.BatchedActor.fetch

    def interrupted(actor, packed):
      calls.append(1)
      if len(calls) == 3:
        raise _Stop()
      return real(actor, packed)

    with mock.patch.object(actor_lib.BatchedActor, 'fetch', interrupted):
      with self.assertRaises(_Stop):
        loop.advance(interface.Targets(episodes=4))
    self.assertIsNone(loop.state)
    self.assertIsNone(loop.host_state)

  def test_an_interrupt_while_starting_keeps_the_restored_state(self):
    # The first act compiles while the loop starts: a Ctrl-C there must
    # leave the restored checkpoint (part-filled batch included) intact.
    built = _built('reinforce', 'catch')
    loop = build_lib.make_loop(built)
    loop.advance(interface.Targets(episodes=5))
    resumed = _checkpointed(loop, built)
    with mock.patch.object(actor_lib.BatchedActor, 'dispatch',
                           side_effect=KeyboardInterrupt):
      with self.assertRaises(KeyboardInterrupt):
        resumed.advance(interface.Targets(episodes=16))
    self.assertLen(resumed.host_state['batcher']['episodes'], 5)
    self.assertEqual(int(resumed.state['counters']['episodes']), 5)
    resumed.advance(interface.Targets(episodes=16))
    self.assertEqual(int(resumed.counters()['updates'][0]), 1)

  def test_unaddressable_environment_warns_once_on_resume(self):
    built = _built('reinforce', 'bsuite:deep_sea_stochastic/0')
    loop = build_lib.make_loop(built)
    loop.advance(interface.Targets(episodes=2))
    loop.evaluate(1)
    resumed = _checkpointed(loop, built)
    with self.assertLogs('absl', 'WARNING') as logs:
      resumed.advance(interface.Targets(episodes=3))
      resumed.evaluate(1)
    self.assertLen(logs.records, 1)
    self.assertIn('EpisodeStream', logs.output[0])


class MaxAbsParamsTest(absltest.TestCase):

  def test_largest_actor_parameter_of_the_one_seed(self):
    loop = build_lib.make_loop(_built('reinforce', 'catch'))
    largest = max(float(abs(x).max())
                  for x in jax.tree.leaves(loop.actor_params(0)))
    self.assertEqual(loop.max_abs_params().tolist(), [largest])


class DeadlineTest(absltest.TestCase):

  def test_advance_stops_after_the_episode_that_passes_the_deadline(self):
    loop = build_lib.make_loop(_built('reinforce', 'catch'))
    loop.advance(interface.Targets(episodes=50,
                                   deadline=time.monotonic() - 1.0))
    self.assertEqual(int(loop.counters()['episodes'][0]), 1)
    loop.advance(interface.Targets(episodes=3,
                                   deadline=time.monotonic() + 600.0))
    self.assertEqual(int(loop.counters()['episodes'][0]), 3)


if __name__ == '__main__':
  absltest.main()
