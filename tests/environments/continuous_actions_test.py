"""Tests for `environments.continuous_actions`."""

import re

from absl.testing import absltest
from absl.testing import parameterized
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import continuous_actions

_PENDULUM = specs.BoundedArray((1,), np.float32, -2.0, 2.0, name='action')
_BOX = specs.BoundedArray((3,), np.float32, [-1.0, 0.0, -0.5],
                          [1.0, 2.0, 0.5], name='action')


class IsContinuousTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('discrete', specs.DiscreteArray(4, dtype=np.int32), False),
      ('float_bounded', _PENDULUM, True),
      ('float_unbounded', specs.Array((2,), np.float64), True),
      ('int_array', specs.Array((2,), np.int32), False),
      ('int_bounded', specs.BoundedArray((2,), np.int64, 0, 3), False))
  def test_is_continuous(self, spec, expected):
    self.assertIs(continuous_actions.is_continuous(spec), expected)

  def test_has_finite_bounds(self):
    self.assertTrue(continuous_actions.has_finite_bounds(_BOX))
    self.assertFalse(continuous_actions.has_finite_bounds(
        specs.Array((2,), np.float32)))
    self.assertFalse(continuous_actions.has_finite_bounds(
        specs.BoundedArray((2,), np.float32, [-1.0, -np.inf], 1.0)))

  def test_bounds_broadcast_to_the_shape(self):
    low, high = continuous_actions.bounds(
        specs.BoundedArray((3,), np.float32, -2.0, 2.0))
    np.testing.assert_array_equal(low, [-2.0] * 3)
    np.testing.assert_array_equal(high, [2.0] * 3)
    self.assertEqual(low.dtype, np.float32)
    low, high = continuous_actions.bounds(specs.Array((2,), np.float32))
    np.testing.assert_array_equal(low, [-np.inf] * 2)
    np.testing.assert_array_equal(high, [np.inf] * 2)


class ClipTest(absltest.TestCase):

  def test_numpy_in_numpy_out(self):
    clipped = continuous_actions.clip_to_spec(
        np.array([[-3.0, 1.0, 0.7], [0.5, 5.0, -0.2]]), _BOX)
    self.assertIsInstance(clipped, np.ndarray)
    self.assertEqual(clipped.dtype, np.float32)
    np.testing.assert_allclose(clipped, [[-1.0, 1.0, 0.5], [0.5, 2.0, -0.2]])

  def test_jax_in_jax_out_under_jit(self):
    clip = jax.jit(lambda a: continuous_actions.clip_to_spec(a, _PENDULUM))
    clipped = clip(jnp.array([[-7.0], [1.5], [9.0]], jnp.float32))
    self.assertIsInstance(clipped, jax.Array)
    np.testing.assert_allclose(clipped, [[-2.0], [1.5], [2.0]])

  def test_unbounded_specs_pass_actions_unchanged(self):
    actions = np.array([-1e6, 3.0, 1e6], np.float32)
    np.testing.assert_array_equal(
        continuous_actions.clip_to_spec(actions,
                                        specs.Array((3,), np.float32)),
        actions)


class RescaleTest(absltest.TestCase):

  def test_unit_interval_maps_onto_bounds(self):
    unit = jnp.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(
        continuous_actions.rescale_from_unit(unit, _BOX),
        [[-1.0, 0.0, -0.5], [1.0, 2.0, 0.5], [0.0, 1.0, 0.0]])
    np.testing.assert_allclose(
        continuous_actions.rescale_from_unit(jnp.array([0.5]), _PENDULUM),
        [1.0])


class ValidateActionTest(parameterized.TestCase):

  def test_clips_and_casts(self):
    action = continuous_actions.validate_action([5.0, -1.0, 0.25], _BOX)
    self.assertIsInstance(action, np.ndarray)
    self.assertEqual(action.dtype, np.float32)
    np.testing.assert_allclose(action, [1.0, 0.0, 0.25])

  def test_same_size_is_reshaped(self):
    action = continuous_actions.validate_action(np.float64(3.0), _PENDULUM)
    self.assertEqual(action.shape, (1,))
    np.testing.assert_array_equal(action, [2.0])

  @parameterized.parameters((np.zeros(2), '(2,)'), (np.zeros((2, 2)), '(2, 2)'),
                            ([], '(0,)'))
  def test_wrong_shape_names_the_shapes(self, action, got):
    with self.assertRaisesRegex(
        ValueError, re.escape(f'shape (3,); got shape {got}')):
      continuous_actions.validate_action(action, _BOX)

  @parameterized.parameters(([np.nan, 0.0, 0.0],), ([0.0, np.inf, 0.0],))
  def test_non_finite_values_are_refused(self, action):
    with self.assertRaisesRegex(ValueError, 'finite'):
      continuous_actions.validate_action(action, _BOX)

  def test_non_numbers_are_refused(self):
    with self.assertRaisesRegex(ValueError, r'float array of shape \(1,\)'):
      continuous_actions.validate_action('left', _PENDULUM)


class DescribeTest(absltest.TestCase):

  def test_describe(self):
    self.assertEqual(continuous_actions.describe(
        specs.DiscreteArray(4, dtype=np.int32)), 'discrete (4 actions)')
    self.assertEqual(continuous_actions.describe(_PENDULUM),
                     'continuous (shape (1,), bounds [-2, 2])')
    self.assertEqual(
        continuous_actions.describe(_BOX),
        'continuous (shape (3,), bounds [-1.0, 0.0, -0.5] .. '
        '[1.0, 2.0, 0.5])')
    self.assertEqual(
        continuous_actions.describe(specs.Array((2,), np.float32)),
        'continuous (shape (2,), no bounds)')
    self.assertEqual(
        continuous_actions.describe(specs.Array((2,), np.int32)),
        'Array of shape (2,) and dtype int32')


if __name__ == '__main__':
  absltest.main()
