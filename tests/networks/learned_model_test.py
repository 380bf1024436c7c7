"""Tests for networks/learned_model.py."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import specs
from networks import image_defaults
from networks import learned_model
from networks import registry


def _spec(shape) -> specs.EnvironmentSpec:
  return specs.make_spec(dm_specs.Array(shape, np.float32),
                         dm_specs.DiscreteArray(3))


class LearnedModelTest(absltest.TestCase):

  def test_mlp_and_conv_models_step_embeddings_and_predict(self):
    for name, shape in (('mlp_learned_model', (5,)),
                        ('conv_learned_model', (10, 10, 4))):
      model = registry.get(name, registry.LEARNED_MODEL).make(
          _spec(shape), None)
      observations = jax.random.uniform(jax.random.PRNGKey(0),
                                        (2,) + shape)
      params = model.init(jax.random.PRNGKey(1), observations)
      embeddings = model.represent(params, observations)
      width = embeddings.shape[-1]
      next_embeddings, rewards = model.dynamics(
          params, embeddings, jnp.asarray([0, 2]))
      logits, values = model.predict(params, next_embeddings)
      self.assertEqual((next_embeddings.shape, rewards.shape, logits.shape,
                        values.shape), ((2, width), (2,), (2, 3), (2,)),
                       name)
      # Embeddings are min-max scaled into [0, 1].
      for e in (embeddings, next_embeddings):
        np.testing.assert_allclose(e.min(-1), 0.0, atol=1e-6)
        np.testing.assert_allclose(e.max(-1), 1.0, atol=1e-5)
      # As an actor-critic: the prediction of the representation.
      policy_logits, policy_values = model.apply(params, observations)
      expected = model.predict(params, embeddings)
      np.testing.assert_allclose(policy_logits, expected[0])
      np.testing.assert_allclose(policy_values, expected[1])

  def test_heads_start_at_zero(self):
    # A uniform prior and zero values and rewards: the first searches see
    # no differences the model has not learned.
    model = learned_model.make_learned_model_network(3, (8,))
    observations = jnp.ones((2, 4))
    params = model.init(jax.random.PRNGKey(0), observations)
    logits, values = model.apply(params, observations)
    _, rewards = model.dynamics(params, model.represent(params,
                                                        observations),
                                jnp.zeros(2, jnp.int32))
    for out in (logits, values, rewards):
      np.testing.assert_array_equal(out, 0.0)

  def test_images_default_to_the_conv_model(self):
    self.assertEqual(image_defaults.default_network(
        registry.LEARNED_MODEL, _spec((10, 10, 4)).observations,
        'mlp_learned_model'), 'conv_learned_model')


if __name__ == '__main__':
  absltest.main()
