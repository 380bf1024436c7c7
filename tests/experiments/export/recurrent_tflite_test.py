"""A policy with memory exports with its state in and out, checked over
whole episodes; paths that cannot carry the state refuse it."""

import os
import tempfile

from absl.testing import absltest
import jax
import numpy as np
import pytest

from experiments import api
from experiments.export import litert_policies
from experiments.export import tflite

_ENV = 'gymnax:MemoryChain-bsuite'


@pytest.mark.slow
class RecurrentExportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.workdir = tempfile.mkdtemp(prefix='recurrent_export_')
    cls.trained = api.train(
        agent='ppo', env=_ENV, network='lstm_actor_critic', num_steps=2048,
        workdir=cls.workdir, progress=False, export_check_episodes=5)
    cls.path = cls.trained.result['tflite_path']

  def test_model_takes_and_returns_the_state_and_matches_jax(self):
    check = self.trained.result['tflite']
    self.assertLessEqual(check['max_abs_diff'], tflite.TOLERANCE)
    self.assertEqual(check['state_inputs'], ['state_hidden', 'state_cell'])
    policy = litert_policies.RecurrentTFLitePolicy(
        self.path, 'observation', check['state_inputs'])
    self.assertEqual(sorted(policy.input_details),
                     ['observation', 'state_cell', 'state_hidden'])
    self.assertEqual(sorted(policy.output_details),
                     ['next_state_cell', 'next_state_hidden', 'policy'])
    # The state carries memory: the same observation after another one.
    state = policy.initial_state()
    first, state = policy(np.array([1.0, 0.0, 0.0]), state)
    again, _ = policy(np.array([1.0, 0.0, 0.0]), state)
    self.assertGreater(float(np.abs(first - again).max()), 0.0)

  def test_load_policy_remembers_until_reset(self):
    policy = api.load_policy(self.workdir)
    observation = np.array([1.0, 0.0, 0.0], np.float32)
    policy(observation)
    state = jax.tree.leaves(policy._state)[0]  # pylint: disable=protected-access
    self.assertGreater(float(np.abs(state).max()), 0.0)
    policy.reset()
    self.assertIsNone(policy._state)  # pylint: disable=protected-access

  def test_paths_that_cannot_carry_the_state_refuse_it(self):
    with self.assertRaisesRegex(ValueError, '3 inputs .*a policy with '
                                'memory'):
      litert_policies.TFLitePolicy(self.path)
    with self.assertRaisesRegex(api.UsageError, 'without memory.*'
                                '--export=plain'):
      api.export(self.workdir, export='trainable',
                 output=os.path.join(self.workdir, 'trainable.tflite'))
    self.assertFalse(os.path.exists(
        os.path.join(self.workdir, 'trainable.tflite')))


if __name__ == '__main__':
  absltest.main()
