"""Tests for networks/mlp.py."""

from absl.testing import absltest
import haiku as hk
import jax
import jax.numpy as jnp

from networks import mlp


class MLPTorsoTest(absltest.TestCase):

  def test_flattens_and_activates_every_layer(self):
    net = hk.without_apply_rng(
        hk.transform(lambda x: mlp.MLPTorso((16, 8))(x)))
    x = jax.random.normal(jax.random.PRNGKey(0), (5, 3, 4))
    params = net.init(jax.random.PRNGKey(1), x)
    out = net.apply(params, x)
    self.assertEqual(out.shape, (5, 8))
    self.assertTrue(bool(jnp.all(out >= 0)))  # ReLU after the last layer too.
    shapes = {k: v['w'].shape for k, v in params.items()}
    self.assertCountEqual(shapes.values(), [(12, 16), (16, 8)])

  def test_integer_observations_are_cast(self):
    net = hk.without_apply_rng(hk.transform(lambda x: mlp.MLPTorso((4,))(x)))
    x = jnp.ones((2, 3), jnp.int32)
    params = net.init(jax.random.PRNGKey(0), x)
    self.assertEqual(net.apply(params, x).dtype, jnp.float32)


if __name__ == '__main__':
  absltest.main()
