"""Tests for networks/recurrent_cores.py: Haiku's cells, replayed faster."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import haiku as hk
import jax
import jax.numpy as jnp

from networks import recurrent_cores

import numpy as np

_CORES = {'lstm': (recurrent_cores.LSTM, hk.LSTM),
          'gru': (recurrent_cores.GRU, hk.GRU)}


def _unrolls(kind):
  """(ours, Haiku's) unroll of a 6-unit core over `[T, B, 5]` inputs:
  Haiku's is `hk.dynamic_unroll` of `hk.ResetCore` of its cell."""
  ours, theirs = _CORES[kind]

  def mine(inputs, first, state):
    return ours(6).unroll(inputs, first, state)

  def haiku(inputs, first, state):
    return hk.dynamic_unroll(hk.ResetCore(theirs(6, name=kind)),
                             (inputs, first), state)

  return (hk.without_apply_rng(hk.transform(mine)),
          hk.without_apply_rng(hk.transform(haiku)))


def _state(kind, batch, value):
  zeros = jnp.full((batch, 6), value)
  return hk.LSTMState(zeros, -zeros) if kind == 'lstm' else zeros


class RecurrentCoresTest(parameterized.TestCase):

  @parameterized.parameters('lstm', 'gru')
  def test_same_params_and_outputs_as_haikus_cell(self, kind):
    mine, haiku = _unrolls(kind)
    inputs = jax.random.normal(jax.random.PRNGKey(1), (7, 3, 5))
    first = jax.random.bernoulli(jax.random.PRNGKey(2), 0.3, (7, 3))
    state = _state(kind, 3, 0.5)
    params = haiku.init(jax.random.PRNGKey(0), inputs, first, state)
    chex.assert_trees_all_equal(
        mine.init(jax.random.PRNGKey(0), inputs, first, state), params)
    chex.assert_trees_all_close(mine.apply(params, inputs, first, state),
                                haiku.apply(params, inputs, first, state),
                                atol=1e-6)

  @parameterized.parameters('lstm', 'gru')
  def test_a_step_is_an_unroll_of_one(self, kind):
    core = _CORES[kind][0]
    step = hk.without_apply_rng(hk.transform(
        lambda x, first, state: core(6)(x, first, state)))
    unroll = hk.without_apply_rng(hk.transform(
        lambda x, first, state: core(6).unroll(x, first, state)))
    inputs = jax.random.normal(jax.random.PRNGKey(1), (2, 5))
    first = jnp.array([True, False])
    state = _state(kind, 2, 0.5)
    params = step.init(jax.random.PRNGKey(0), inputs, first, state)
    outputs, after = unroll.apply(params, inputs[None], first[None], state)
    chex.assert_trees_all_close(step.apply(params, inputs, first, state),
                                (outputs[0], after), atol=1e-6)
    # The first row began an episode: its state was reset to zeros.
    fresh = step.apply(params, inputs, jnp.ones(2, bool), _state(kind, 2, 0))
    chex.assert_trees_all_close(jax.tree.map(lambda x: x[0], fresh),
                                jax.tree.map(lambda x: x[0], (outputs[0],
                                                              after)),
                                atol=1e-6)


def _sigmoid(x):
  return 1 / (1 + np.exp(-x))


class ResetAfterGRUTest(absltest.TestCase):

  def test_the_cudnn_gru_equations(self):
    """cuDNN's (and PyTorch's) GRU written out step by step in NumPy:
    r, z = sigmoid(x W_ir + b_r + h W_hr), sigmoid(...); n = tanh(x W_in
    + b_n + r (h W_hn + b_hn)); h' = (1 - z) n + z h."""
    unroll = hk.without_apply_rng(hk.transform(
        lambda x, first, state: recurrent_cores.ResetAfterGRU(4).unroll(
            x, first, state)))
    inputs = jax.random.normal(jax.random.PRNGKey(1), (5, 2, 3))
    first = jnp.array([[True, False], [False, False], [False, True],
                       [False, False], [False, False]])
    state = jnp.full((2, 4), 0.5)
    params = unroll.init(jax.random.PRNGKey(0), inputs, first, state)
    # Give the zero-initialised biases values, so that they are checked.
    params = jax.tree.map(lambda p: p + 0.1 * jnp.arange(p.size).reshape(
        p.shape) / p.size, params)
    p = jax.tree.map(np.asarray, params['reset_after_gru'])
    w_i, w_h, b, b_hn = p['w_i'], p['w_h'], p['b'], p['b_hn']
    h = np.asarray(state)
    expected = []
    for x, f in zip(np.asarray(inputs), np.asarray(first)):
      h = np.where(f[:, None], 0.0, h)
      gates_x, gates_h = x @ w_i + b, h @ w_h
      r = _sigmoid(gates_x[:, :4] + gates_h[:, :4])
      z = _sigmoid(gates_x[:, 4:8] + gates_h[:, 4:8])
      n = np.tanh(gates_x[:, 8:] + r * (gates_h[:, 8:] + b_hn))
      h = (1 - z) * n + z * h
      expected.append(h)
    outputs, final = unroll.apply(params, inputs, first, state)
    np.testing.assert_allclose(outputs, np.stack(expected), atol=1e-5)
    np.testing.assert_allclose(final, h, atol=1e-5)
    step = hk.without_apply_rng(hk.transform(
        lambda x, first, state: recurrent_cores.ResetAfterGRU(4)(
            x, first, state)))
    chex.assert_trees_all_close(
        step.apply(params, inputs[0], first[0], state),
        (outputs[0], outputs[0]), atol=1e-6)

  def test_flax_init_draws_each_gate_as_flaxs_gru_cell(self):
    """flax's GRUCell: each gate's input kernel LeCun normal (std
    1/sqrt(inputs)), each gate's recurrent kernel orthogonal on its own."""
    size, inputs = 64, 256
    init = hk.transform(lambda x, first, state: recurrent_cores.ResetAfterGRU(
        size, flax_init=True)(x, first, state)).init
    params = init(jax.random.PRNGKey(0), jnp.zeros((1, inputs)),
                  jnp.ones(1, bool), jnp.zeros((1, size)))['reset_after_gru']
    w_h = np.asarray(params['w_h'])
    for gate in range(3):
      block = w_h[:, gate * size:(gate + 1) * size]
      np.testing.assert_allclose(block.T @ block, np.eye(size), atol=1e-4)
    # Not one orthogonal [H, 3H] (the default), whose blocks are not.
    self.assertAlmostEqual(float(np.std(w_h)), 1 / np.sqrt(size), delta=0.01)
    # Truncated at 2 sigma and rescaled: std 1/sqrt(inputs) within 5%.
    self.assertAlmostEqual(float(np.std(params['w_i'])) * np.sqrt(inputs),
                           1.0, delta=0.05)


if __name__ == '__main__':
  absltest.main()
