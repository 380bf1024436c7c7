"""Export round trip of a conv policy: image observations -> .tflite."""

import os

from absl.testing import absltest
import dm_env
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import registry
from environments import specs
from experiments.export import litert_policies
from experiments.export import tflite as export_tflite

_SHAPE = (10, 10, 4)  # MinAtar-like: 10x10, 4 channels of 0/1.
_NUM_ACTIONS = 3


class _ImageEnvironment(dm_env.Environment):
  """Random 0/1 images, 5 steps per episode, reward 1 for action 0."""

  def __init__(self, seed: int = 0):
    self._rng = np.random.default_rng(seed)
    self._steps = 0

  def _image(self) -> np.ndarray:
    return (self._rng.random(_SHAPE) < 0.3).astype(np.float32)

  def reset(self) -> dm_env.TimeStep:
    self._steps = 0
    return dm_env.restart(self._image())

  def step(self, action) -> dm_env.TimeStep:
    self._steps += 1
    reward = float(int(action) == 0)
    if self._steps >= 5:
      return dm_env.termination(reward, self._image())
    return dm_env.transition(reward, self._image())

  def observation_spec(self) -> dm_specs.Array:
    return dm_specs.Array(_SHAPE, np.float32, name='observation')

  def action_spec(self) -> dm_specs.DiscreteArray:
    return dm_specs.DiscreteArray(_NUM_ACTIONS, name='action')


class ConvExportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.spec = specs.make_environment_spec(_ImageEnvironment())
    cls.agent = registry.make_agent(
        'reinforce', registry.make_config('reinforce'), cls.spec,
        network='conv_policy')
    cls.params = cls.agent.actor_params(cls.agent.init(
        jax.random.PRNGKey(0)))
    cls.path = os.path.join(absltest.get_default_test_tmpdir(),
                            'conv_policy.tflite')
    cls.report = export_tflite.export_and_verify(
        cls.agent, cls.params, cls.spec, cls.path, _ImageEnvironment(seed=1),
        num_games=10)

  def test_the_exported_network_is_the_conv_one(self):
    self.assertIn('conv_torso/conv_0', self.params)
    self.assertEqual(self.params['conv_torso/conv_0']['w'].shape,
                     (3, 3, 4, 16))

  def test_signature_is_one_image_to_probabilities(self):
    policy = litert_policies.TFLitePolicy(self.path)
    self.assertEqual(tuple(policy.input_details['shape']), (1,) + _SHAPE)
    self.assertEqual(tuple(policy.output_details['shape']),
                     (1, _NUM_ACTIONS))
    self.assertEqual(policy.input_details['dtype'], np.float32)

  def test_verified_against_jax(self):
    self.assertTrue(self.report['finite'])
    self.assertLessEqual(self.report['max_abs_diff'],
                         export_tflite.TOLERANCE)
    self.assertEqual(self.report['greedy_agreement'], 1.0)
    self.assertEqual(self.report['games'], 10)
    self.assertEqual(self.report['mean_episode_length'], 5.0)

  def test_matches_jax_on_fresh_images(self):
    policy = litert_policies.TFLitePolicy(self.path)
    images = (np.random.default_rng(2).random((50,) + _SHAPE) < 0.5).astype(
        np.float32)
    tflite = np.stack([policy(image) for image in images])
    expected = np.asarray(self.agent.deployable_policy(self.params,
                                                          images))
    np.testing.assert_allclose(tflite, expected, atol=1e-5)
    # The probabilities depend on the image (not a constant model).
    self.assertGreater(np.max(np.abs(expected - expected[0])), 1e-4)


if __name__ == '__main__':
  absltest.main()
