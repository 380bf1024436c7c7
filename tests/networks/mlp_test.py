"""Tests for networks/mlp.py."""

from absl.testing import absltest
import chex
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


class LayerNormTest(absltest.TestCase):

  def test_same_as_haikus_layer_norm(self):
    x = 3.0 + 2.0 * jax.random.normal(jax.random.PRNGKey(0), (6, 32))
    ours = hk.without_apply_rng(hk.transform(lambda x: mlp.LayerNorm()(x)))
    theirs = hk.without_apply_rng(hk.transform(
        lambda x: hk.LayerNorm(-1, True, True)(x)))
    params = {'layer_norm': {'scale': jnp.linspace(0.5, 2.0, 32),
                             'offset': jnp.linspace(-1.0, 1.0, 32)}}
    self.assertEqual(jax.tree.structure(ours.init(None, x)),
                     jax.tree.structure(params))
    chex.assert_trees_all_close(ours.apply(params, x),
                                theirs.apply(params, x), atol=1e-5)

  def test_torso_normalises_before_each_activation(self):
    net = hk.without_apply_rng(hk.transform(
        lambda x: mlp.LayerNormMLPTorso((16, 8), activation=lambda y: y)(x)))
    x = jax.random.normal(jax.random.PRNGKey(0), (5, 3, 4))
    params = net.init(jax.random.PRNGKey(1), x)
    out = net.apply(params, x)
    self.assertEqual(out.shape, (5, 8))
    # Fresh scale 1 and offset 0: each row of features has mean 0, std 1.
    chex.assert_trees_all_close(out.mean(-1), jnp.zeros(5), atol=1e-5)
    chex.assert_trees_all_close(out.std(-1), jnp.ones(5), atol=1e-3)


if __name__ == '__main__':
  absltest.main()
