"""Tests for agents/agent.py's helpers: step flattening, gradient steps."""

from absl.testing import absltest
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import agent as agent_lib


class FlattenStepsTest(absltest.TestCase):

  def test_time_major_order_and_trailing_dims(self):
    x = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    flat = agent_lib.flatten_steps(x)
    self.assertIsInstance(flat, jax.Array)  # Traced indices can index it.
    self.assertEqual(flat.shape, (6, 4))
    # Step t of sequence b is row t·B + b.
    np.testing.assert_array_equal(np.asarray(flat)[1 * 3 + 2], x[1, 2])

  def test_scalar_steps(self):
    np.testing.assert_array_equal(
        np.asarray(agent_lib.flatten_steps(np.array([[1, 2], [3, 4]]))),
        [1, 2, 3, 4])


class ApplyGradientsTest(absltest.TestCase):

  def test_steps_params_counts_and_keeps_key(self):
    network = hk.without_apply_rng(hk.transform(
        lambda x: hk.get_parameter('w', [2], init=jnp.ones) * x))
    optimizer = optax.sgd(0.5)
    state = agent_lib.init_training_state(
        network, jax.ShapeDtypeStruct((2,), jnp.float32), optimizer,
        jax.random.PRNGKey(0))
    grads = {'~': {'w': jnp.array([1.0, -2.0])}}
    new_state = agent_lib.apply_gradients(optimizer, state, grads)
    np.testing.assert_allclose(new_state.params['~']['w'], [0.5, 2.0])
    self.assertEqual(int(new_state.updates), 1)
    np.testing.assert_array_equal(new_state.key, state.key)
    again = agent_lib.apply_gradients(optimizer, new_state, grads)
    np.testing.assert_allclose(again.params['~']['w'], [0.0, 3.0])
    self.assertEqual(int(again.updates), 2)


if __name__ == '__main__':
  absltest.main()
