"""Tests of `lane_map`: vmap's values, one lane or many; loop carries."""

import functools

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


_SLOTS = 10_007  # A buffer size no other array here has.


def _write_and_read(state, step):
  """A lane's update of a replay-like buffer: one row in, a sample out."""
  buffer, total = state
  buffer = jax.lax.dynamic_update_slice(
      buffer, jnp.full((1, 3), step, jnp.float32), (step % _SLOTS, 0))
  rows = jax.random.randint(jax.random.PRNGKey(step), (8,), 0, _SLOTS)
  return buffer, total + buffer[rows].sum()


@functools.partial(jax.jit, donate_argnums=0)
def _loop(state):
  into_carry, out_of_carry = lane_map.loop_carry(state)

  def body(carry):
    step, lanes = carry
    lanes = lane_map.map_lanes(_write_and_read)(
        out_of_carry(lanes), jnp.full(state[1].shape, step))
    return step + 1, into_carry(lanes)

  _, lanes = jax.lax.while_loop(lambda carry: carry[0] < 5, body,
                                (0, into_carry(state)))
  return out_of_carry(lanes)


class LoopCarryTest(parameterized.TestCase):

  @parameterized.parameters(1, 2)
  def test_a_loop_updates_its_carry_in_place(self, lanes):
    state = (jnp.zeros((lanes, _SLOTS, 3)), jnp.zeros((lanes,)))
    program = _loop.lower(state).compile().as_text()
    copies = [line for line in program.splitlines()
              if ' copy(' in line and str(_SLOTS) in line]
    self.assertEqual(copies, [])
    buffer, total = _loop(state)
    self.assertEqual(buffer.shape, (lanes, _SLOTS, 3))
    np.testing.assert_array_equal(buffer[:, :5, 0],
                                  np.tile(np.arange(5.0), (lanes, 1)))
    self.assertEqual(total.shape, (lanes,))


if __name__ == '__main__':
  absltest.main()
