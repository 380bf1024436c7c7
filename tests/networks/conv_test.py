"""Tests for networks/conv.py and the conv torso under each head."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from networks import actor_critic
from networks import conv
from networks import policy
from networks import q_network


def _torso(**kwargs) -> hk.Transformed:
  return hk.without_apply_rng(
      hk.transform(lambda x: conv.ConvTorso(**kwargs)(x)))


def _images(count=5, shape=(10, 10, 4), seed=0) -> jax.Array:
  """MinAtar-like observations: float32 0/1."""
  return (jax.random.uniform(jax.random.PRNGKey(seed), (count,) + shape)
          < 0.3).astype(jnp.float32)


def _num_params(params) -> int:
  return sum(int(np.size(x)) for x in jax.tree.leaves(params))


class ConvTorsoTest(absltest.TestCase):

  def test_default_is_minatars_network(self):
    net = _torso()
    params = net.init(jax.random.PRNGKey(0), _images(1))
    shapes = {k: v['w'].shape for k, v in params.items()}
    # 3x3 conv, 16 channels, VALID: 10x10x4 -> 8x8x16 = 1024 -> 128.
    self.assertCountEqual(shapes.values(), [(3, 3, 4, 16), (1024, 128)])
    self.assertEqual(_num_params(params),
                     (3 * 3 * 4 * 16 + 16) + (1024 * 128 + 128))
    out = net.apply(params, _images(5))
    self.assertEqual(out.shape, (5, 128))
    self.assertTrue(bool(jnp.all(out >= 0)))  # ReLU after the last layer.

  def test_configurable_layers(self):
    net = _torso(hidden_sizes=(32,), channels=(8, 16), kernel_sizes=(3, 2),
                 strides=(1, 2), padding='SAME')
    params = net.init(jax.random.PRNGKey(0), _images(1))
    shapes = sorted(v['w'].shape for v in params.values())
    # SAME: 10x10 -> 10x10x8 -> (stride 2) 5x5x16 = 400 -> 32.
    self.assertEqual(shapes, sorted([(3, 3, 4, 8), (2, 2, 8, 16),
                                     (400, 32)]))
    self.assertEqual(net.apply(params, _images(3)).shape, (3, 32))

  def test_features_are_convolutional(self):
    """Without dense layers the output is the feature map: moving a pixel
    moves its features (translation equivariance, which a flattening MLP
    lacks)."""
    net = _torso(hidden_sizes=())
    x = np.zeros((2, 10, 10, 4), np.float32)
    x[0, 4, 4, 1] = 1.0
    x[1, 5, 6, 1] = 1.0
    params = net.init(jax.random.PRNGKey(0), x)
    params['conv_torso/conv_0']['b'] = jnp.zeros(16)
    features = np.asarray(net.apply(params, x)).reshape(2, 8, 8, 16)
    self.assertGreater(np.abs(features[0]).sum(), 0.0)
    np.testing.assert_allclose(features[1, 1:, 2:], features[0, :-1, :-2],
                               atol=1e-6)

  def test_gradients_reach_every_parameter(self):
    net = _torso(hidden_sizes=(16,))
    images = _images(8)
    params = net.init(jax.random.PRNGKey(0), images)
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, images) ** 2))(params)
    for path, grad in jax.tree_util.tree_leaves_with_path(grads):
      self.assertTrue(bool(jnp.all(jnp.isfinite(grad))), path)
      self.assertGreater(float(jnp.abs(grad).sum()), 0.0, path)

  def test_non_image_observations_are_refused(self):
    net = _torso()
    with self.assertRaisesRegex(ValueError, r'\[N, H, W, C\].*\(2, 64\)'):
      net.init(jax.random.PRNGKey(0), jnp.zeros((2, 64)))

  def test_bad_layer_settings_are_refused(self):
    with self.assertRaisesRegex(ValueError, 'one entry per convolution'):
      _torso(channels=(8, 16)).init(jax.random.PRNGKey(0), _images(1))
    with self.assertRaisesRegex(ValueError, 'padding'):
      _torso(padding='FULL').init(jax.random.PRNGKey(0), _images(1))


class PatchConv2DTest(parameterized.TestCase):

  @parameterized.parameters(
      ('VALID', 1, 3, 10), ('SAME', 1, 3, 10), ('VALID', 2, 3, 7),
      # SAME with an odd total padding (the extra row after), and strides
      # that do not divide the image.
      ('SAME', 2, 2, 7), ('SAME', 3, 3, 10), ('VALID', 3, 1, 10),
      # One position left (the product TFLite converts as a dense layer).
      ('VALID', 2, 3, 3))
  def test_same_params_and_outputs_as_haikus_conv(self, padding, stride,
                                                  kernel, size):
    images = jax.random.normal(jax.random.PRNGKey(0), (2, size, size + 1, 3))
    ours = hk.without_apply_rng(hk.transform(
        lambda x: conv.PatchConv2D(5, kernel, stride, padding,
                                   name='conv')(x)))
    theirs = hk.without_apply_rng(hk.transform(
        lambda x: hk.Conv2D(5, kernel, stride, padding=padding,
                            name='conv')(x)))
    params = ours.init(jax.random.PRNGKey(1), images)
    chex.assert_trees_all_equal(params,
                                theirs.init(jax.random.PRNGKey(1), images))
    params['conv']['b'] = jnp.arange(5.0)
    chex.assert_trees_all_close(ours.apply(params, images),
                                theirs.apply(params, images), atol=1e-5)
    gradients = [jax.grad(lambda p, net=net: jnp.sum(
        jnp.sin(net.apply(p, images))))(params) for net in (ours, theirs)]
    chex.assert_trees_all_close(*gradients, atol=1e-4)


class LayerNormConvTorsoTest(absltest.TestCase):

  def test_normalises_each_pixel_and_the_dense_layer_before_activating(self):
    identity = lambda y: y
    net = hk.without_apply_rng(hk.transform(
        lambda x: conv.LayerNormConvTorso(hidden_sizes=(),
                                          activation=identity)(x)))
    images = _images(3)
    params = net.init(jax.random.PRNGKey(0), images)
    # 8x8 pixels of 16 channels, each pixel's channels mean 0, std 1.
    features = net.apply(params, images).reshape(3, 8, 8, 16)
    np.testing.assert_allclose(features.mean(-1), 0.0, atol=1e-5)
    np.testing.assert_allclose(features.std(-1), 1.0, atol=1e-3)
    dense = hk.without_apply_rng(hk.transform(
        lambda x: conv.LayerNormConvTorso(activation=identity)(x)))
    out = dense.apply(dense.init(jax.random.PRNGKey(0), images), images)
    self.assertEqual(out.shape, (3, 128))
    np.testing.assert_allclose(out.std(-1), 1.0, atol=1e-3)

  def test_same_layers_as_minatars_network_plus_the_norms(self):
    net = hk.without_apply_rng(hk.transform(
        lambda x: conv.LayerNormConvTorso()(x)))
    params = net.init(jax.random.PRNGKey(0), _images(1))
    self.assertEqual(
        _num_params(params),
        (3 * 3 * 4 * 16 + 16) + 2 * 16 + (1024 * 128 + 128) + 2 * 128)
    out = net.apply(params, _images(4))
    self.assertTrue(bool(jnp.all(out >= 0)))  # ReLU after the last norm.
    with self.assertRaisesRegex(ValueError, r'\[N, H, W, C\].*\(2, 64\)'):
      net.init(jax.random.PRNGKey(0), jnp.zeros((2, 64)))


class ConvHeadsTest(absltest.TestCase):
  """The heads of `policy`, `q_network` and `actor_critic` on the conv."""

  def test_policy_and_q_values(self):
    for make, head in ((policy.make_policy_network, 'logits'),
                       (q_network.make_q_network, 'q_values')):
      net = make(3, None, conv.ConvTorso)
      params = net.init(jax.random.PRNGKey(0), _images(1))
      self.assertEqual(params[head]['w'].shape, (128, 3), head)
      self.assertIn('conv_torso/conv_0', params)
      self.assertEqual(net.apply(params, _images(4)).shape, (4, 3))

  def test_actor_critic_shares_the_conv(self):
    net = actor_critic.make_actor_critic_network(
        3, (32,), jax.nn.relu, conv.ConvTorso)
    params = net.init(jax.random.PRNGKey(0), _images(1))
    self.assertCountEqual(
        params, ['conv_torso/conv_0', 'conv_torso/mlp/~/linear_0', 'policy',
                 'value'])
    logits, values = net.apply(params, _images(4))
    self.assertEqual((logits.shape, values.shape), ((4, 3), (4,)))


if __name__ == '__main__':
  absltest.main()
