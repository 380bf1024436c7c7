"""Tests of `lane_map.map_lanes`: vmap's values, one lane or many."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np

from experiments.loops import lane_map


def _lane(params, data, hyperparams):
  """A lane's work with a gather and a scan, as a PPO update has."""
  order = jax.random.permutation(jax.random.PRNGKey(0), data.shape[0])
  total, _ = jax.lax.scan(lambda c, x: (c + x @ params['w'], None),
                          jnp.zeros(params['w'].shape[1]), data[order])
  scale = hyperparams.get('scale', 1.0)
  return {'total': total * scale, 'count': jnp.asarray(data.shape[0])}


class MapLanesTest(parameterized.TestCase):

  @parameterized.parameters(1, 3)
  def test_equals_vmap(self, lanes):
    rng = np.random.default_rng(lanes)
    params = {'w': rng.normal(size=(lanes, 4, 2)).astype(np.float32)}
    data = rng.normal(size=(lanes, 6, 4)).astype(np.float32)
    values = {'scale': np.arange(1, lanes + 1, dtype=np.float32)}
    got = jax.jit(lane_map.map_lanes(_lane))(params, data, values)
    want = jax.jit(jax.vmap(_lane))(params, data, values)
    chex.assert_trees_all_equal_shapes(got, want)
    chex.assert_trees_all_close(got, want, rtol=1e-6)
    self.assertEqual(got['total'].shape, (lanes, 2))

  def test_one_lane_without_hyperparameters(self):
    params = {'w': np.ones((1, 4, 2), np.float32)}
    data = np.ones((1, 6, 4), np.float32)
    got = lane_map.map_lanes(_lane)(params, data, {})
    np.testing.assert_allclose(got['total'], [[24.0, 24.0]])
    np.testing.assert_array_equal(got['count'], [6])


if __name__ == '__main__':
  absltest.main()
