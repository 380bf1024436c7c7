"""Tests for experiments/loops/actor_thread.py: actors in a thread of their
own, ahead of the learner (`PythonTraining(actor_thread=True)`).

The environment is `_Counting` (observations are (episode, step)), so a
learned batch shows which steps it holds whatever params acted it.
"""

import threading
import time
from unittest import mock

from absl.testing import absltest
import numpy as np
import pytest

from experiments.loops import actor_thread
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import python_training
from tests.experiments.loops import vectorised_python_training_test as vectorised

_T, _B = 4, 3  # IMPALA's unroll and batch; with N = B environments.


def _impala():
  return vectorised._agent('impala', unroll_length=_T, batch_size=_B,
                           learning_rate=1e-3)


def _loop(agent, threaded=True, make_environment=vectorised._Counting):
  return python_training.PythonTraining(
      agent, make_environment, seed=0, log_every_episodes=0, num_envs=_B,
      actor_thread=threaded)


def _observations(recorder):
  return [batch.observations for batch in recorder.batches]


class _Stop(Exception):
  """Raised from `progress`, as the driver does on a signal."""


class _SlowLearner:
  """Makes every update take `seconds` longer, as a big network would."""

  def __init__(self, seconds):
    self._seconds = seconds
    self._real = learner_lib.Learner.step

  def __enter__(self):

    def step(learner, trajectory):
      time.sleep(self._seconds)
      return self._real(learner, trajectory)

    self._patch = mock.patch.object(learner_lib.Learner, 'step', step)
    self._patch.__enter__()

  def __exit__(self, *args):
    self._patch.__exit__(*args)


class BatchQueueTest(absltest.TestCase):

  def test_first_in_first_out_and_empty_after_a_timeout(self):
    queue = actor_thread.BatchQueue(3)
    for version in range(3):
      queue.put(actor_thread.QueuedBatch(None, version))
    self.assertLen(queue, 3)
    self.assertEqual([queue.get(0.0).version for _ in range(3)], [0, 1, 2])
    self.assertIsNone(queue.get(0.01))

  def test_a_full_queue_holds_the_actors_until_a_batch_is_taken(self):
    queue = actor_thread.BatchQueue(1)
    queue.put(actor_thread.QueuedBatch(None, 0))
    putter = threading.Thread(
        target=queue.put, args=(actor_thread.QueuedBatch(None, 1),))
    putter.start()
    putter.join(0.2)
    self.assertTrue(putter.is_alive())  # Waiting: the queue is full.
    self.assertEqual(queue.get(0.0).version, 0)
    putter.join(5.0)
    self.assertFalse(putter.is_alive())
    self.assertEqual(queue.get(0.0).version, 1)

  def test_stopping_actors_never_wait_and_lose_nothing(self):
    queue = actor_thread.BatchQueue(1)
    queue.put(actor_thread.QueuedBatch(None, 0))
    queue.stop_waiting(True)
    queue.put(actor_thread.QueuedBatch(None, 1))  # Returns at once.
    self.assertLen(queue, 2)

  def test_capacity_must_be_positive(self):
    with self.assertRaisesRegex(ValueError, 'capacity'):
      actor_thread.BatchQueue(0)


class QueueLearnerTest(absltest.TestCase):

  def test_a_batch_carries_the_version_of_the_params_that_acted_it(self):
    queue = actor_thread.BatchQueue(4)
    learner = actor_thread.QueueLearner(queue, 'params@5', 5)
    self.assertEqual(learner.params, 'params@5')  # The actors take them.
    learner.publish('params@6', 6)
    learner.step('batch a')  # Acted before the actors took the new ones.
    self.assertEqual(learner.params, 'params@6')
    learner.step('batch b')
    self.assertEqual([(item.trajectory, item.version)
                      for item in (queue.get(0), queue.get(0))],
                     [('batch a', 5), ('batch b', 6)])


class ActorThreadTrainingTest(absltest.TestCase):

  def test_learns_the_same_batches_in_the_same_order_as_without(self):
    steps = 40 * _B
    learned = {}
    for threaded in (False, True):
      loop = _loop(_impala(), threaded)
      with vectorised._Recorder() as recorder:
        loop.advance(interface.Targets(env_steps=steps))
      learned[threaded] = _observations(recorder)
      counters = {k: int(v[0]) for k, v in loop.counters().items()}
      self.assertEqual(counters['env_steps'], steps)
      self.assertEqual(counters['updates'], steps // _B // _T)
      loop.close()
    self.assertLen(learned[True], 10)
    for synchronous, threaded in zip(learned[False], learned[True]):
      np.testing.assert_array_equal(synchronous, threaded)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_a_slow_learner_lets_the_actors_run_ahead_and_logs_the_lag(self):
    loop = _loop(_impala())
    with _SlowLearner(0.03):
      (row,) = loop.advance(interface.Targets(env_steps=30 * _B * _T))
    # Acted with params 0 updates old on policy; here the actors are
    # ahead, by at most the queue's batches and the one being acted.
    self.assertGreater(row['actor_lag'], 0.5)
    self.assertLessEqual(row['actor_lag'], actor_thread.DEFAULT_CAPACITY + 1)
    self.assertIn('rho_mean', row)
    self.assertEqual(int(loop.counters()['updates'][0]), 30)
    loop.close()

  def test_checkpoint_after_an_advance_resumes_with_nothing_queued(self):
    loop = _loop(_impala())
    loop.advance(interface.Targets(updates=3))
    state, host_state = loop.state, loop.host_state
    self.assertIsNotNone(state)
    updates = int(state['counters']['updates'])
    self.assertGreaterEqual(updates, 3)  # Queued batches are learned too.
    self.assertEqual(
        int(np.asarray(state['learner'].training.updates)), updates)
    loop.close()
    resumed = _loop(_impala())
    resumed.restore(state, host_state)
    resumed.advance(interface.Targets(updates=updates + 2))
    self.assertGreaterEqual(int(resumed.counters()['updates'][0]),
                            updates + 2)
    resumed.close()

  def test_a_stop_from_progress_checkpoints_every_acted_step_learned(self):
    # The driver raises its stop from `progress`; the checkpoint it then
    # saves must hold every batch the actors queued, learned, and count
    # every step they took.
    loop = _loop(_impala())
    calls = []

    def progress(counters):
      del counters
      calls.append(1)
      if len(calls) == 3:
        raise _Stop()

    with _SlowLearner(0.05), self.assertRaises(_Stop):
      loop.advance(interface.Targets(env_steps=100_000), progress)
    state = loop.state
    counted = int(state['counters']['env_steps'])
    self.assertEqual(int(np.asarray(state['learner'].training.updates)),
                     int(state['counters']['updates']))
    # Every acted step is in a learned batch (T steps of B environments),
    # a complete unroll the batcher holds, or the unroll in progress (fewer
    # than T steps of all B environments): none is left in a queue.
    learned = int(state['counters']['updates']) * _T * _B
    in_progress = (counted - learned -
                   len(loop.host_state['batcher']['sequences']) * _T)
    self.assertBetween(in_progress, 0, _T * _B - 1)
    self.assertEqual(in_progress % _B, 0)
    loop.close()

  def test_an_error_in_the_actors_is_raised_in_the_learner(self):

    class Broken(vectorised._Counting):

      def step(self, action):
        if self._episode >= 5:
          raise RuntimeError('the emulator crashed')
        return super().step(action)

    loop = _loop(_impala(), make_environment=Broken)
    with self.assertRaisesRegex(RuntimeError, 'the emulator crashed'):
      loop.advance(interface.Targets(env_steps=1000))
    loop.close()


if __name__ == '__main__':
  absltest.main()
