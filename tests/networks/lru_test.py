"""Tests for networks/lru.py."""

from unittest import mock

from absl.testing import absltest
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from networks import lru

STATE, INPUTS, T, N = 6, 4, 7, 3


def _core(**options):
  """init and unroll of a transformed LRU."""

  def unroll(inputs, first, state):
    return lru.LRU(STATE, **options).unroll(inputs, first, state)

  return hk.without_apply_rng(hk.transform(unroll))


def _sequence(seed=0):
  keys = jax.random.split(jax.random.PRNGKey(seed), 2)
  inputs = jax.random.normal(keys[0], (T, N, INPUTS))
  first = jax.random.bernoulli(keys[1], 0.2, (T, N)).at[0].set(True)
  return inputs, first


def _reference(params, inputs, first):
  """The recurrence in complex numbers, one step at a time."""
  p = {k: np.asarray(v, np.float64) for k, v in params['lru'].items()}
  lam = np.exp(-np.exp(p['nu_log']) + 1j * np.exp(p['theta_log']))
  gamma = np.exp(p['gamma_log'])[:, None]
  b = (p['b_real'] + 1j * p['b_imaginary']) * gamma
  c = p['c_real'] + 1j * p['c_imaginary']
  h = np.zeros((N, STATE), np.complex128)
  outputs = []
  for t in range(T):
    h = np.where(np.asarray(first[t])[:, None], 0, h)
    u = np.asarray(inputs[t], np.float64)
    h = lam * h + u @ b.T
    outputs.append((h @ c.T).real + p['d'] * u)
  return np.stack(outputs), h


class LRUTest(absltest.TestCase):

  def test_unroll_is_the_complex_recurrence_reset_at_first(self):
    inputs, first = _sequence()
    network = _core()
    state = lru.initial_state(N, STATE)
    params = network.init(jax.random.PRNGKey(1), inputs, first, state)
    outputs, final = network.apply(params, inputs, first, state)
    expected, h = _reference(params, inputs, first)
    np.testing.assert_allclose(outputs, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final.real, h.real, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final.imaginary, h.imag, rtol=1e-4,
                               atol=1e-5)

  def test_steps_replay_the_unroll(self):
    inputs, first = _sequence(2)

    def step(inputs, first, state):
      return lru.LRU(STATE)(inputs, first, state)

    stepped = hk.without_apply_rng(hk.transform(step))
    network = _core()
    state = lru.initial_state(N, STATE)
    params = network.init(jax.random.PRNGKey(1), inputs, first, state)
    # Carry a state in: the first row's reset must drop it.
    state = lru.LRUState(jnp.ones((N, STATE)), -jnp.ones((N, STATE)))
    unrolled, final = network.apply(params, inputs, first, state)
    for t in range(T):
      output, state = stepped.apply(params, inputs[t], first[t], state)
      np.testing.assert_allclose(output, unrolled[t], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.real, final.real, rtol=1e-5, atol=1e-6)

  def test_eigenvalues_start_in_their_ring_with_gamma_normalising(self):
    inputs, first = _sequence()
    network = _core(r_min=0.4, r_max=0.9, max_phase=np.pi / 4)
    params = network.init(jax.random.PRNGKey(3), inputs, first,
                          lru.initial_state(N, STATE))['lru']
    magnitude = np.exp(-np.exp(params['nu_log']))
    self.assertTrue(np.all((magnitude >= 0.4) & (magnitude < 0.9)),
                    magnitude)
    phase = np.exp(params['theta_log'])
    self.assertTrue(np.all((phase >= 0) & (phase < np.pi / 4)), phase)
    np.testing.assert_allclose(np.exp(params['gamma_log']),
                               np.sqrt(1 - magnitude**2), rtol=1e-5)
    self.assertEqual(params['b_real'].shape, (STATE, INPUTS))
    self.assertEqual(params['c_imaginary'].shape, (INPUTS, STATE))

  def test_a_draw_of_zero_starts_finite(self):
    # jax.random.uniform can return exactly 0, whose logarithm would be
    # an infinite parameter with a NaN gradient.
    inputs, first = _sequence()
    zeros = lambda key, shape, dtype=jnp.float32, **_: jnp.zeros(shape, dtype)
    with mock.patch.object(jax.random, 'uniform', zeros):
      params = _core().init(jax.random.PRNGKey(0), inputs, first,
                            lru.initial_state(N, STATE))
    for name in ('nu_log', 'theta_log', 'gamma_log'):
      self.assertTrue(np.all(np.isfinite(params['lru'][name])), name)

  def test_eigenvalues_outside_the_circle_refused(self):
    with self.assertRaisesRegex(ValueError, 'r_max=1.5'):
      _core(r_max=1.5).init(jax.random.PRNGKey(0), *_sequence(),
                            lru.initial_state(N, STATE))


if __name__ == '__main__':
  absltest.main()
