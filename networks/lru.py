"""The Linear Recurrent Unit (Orvieto et al. 2023), a Haiku core.

A diagonal linear recurrence with complex eigenvalues inside the unit
circle, read out by a linear map and a skip from its input:

    h_t = lambda * h_{t-1} + gamma * (B u_t)     (complex, elementwise lambda)
    y_t = Re(C h_t) + D * u_t

`lambda = exp(-exp(nu_log) + i exp(theta_log))`, its magnitudes drawn in
[r_min, r_max) and its phases in [0, max_phase), and `gamma =
sqrt(1 - |lambda|^2)` (as a learnt `gamma_log`) keeps the state's scale as
lambda approaches the circle. The parameters are drawn as memax's `LRU`
(the memory of POPGym Arcade's recurrent baselines) draws them: B and C
normal over sqrt(2 * inputs) and sqrt(state size), D standard normal.

Since the recurrence is linear, every step's `B u` is one matrix product
before the loop, and the readout one after it; the loop multiplies and
adds elementwise. The complex state travels as its real and imaginary
parts (`LRUState`, float32 each), so it is stored, reset and exported as
any other state. As `recurrent_cores`' cores, the state is reset to zeros
where `first` is set, before that step's input is read:

    outputs, state = core(inputs [N, in], first [N], state)
    outputs, state = core.unroll(inputs [T, N, in], first [T, N], state)
"""

from typing import NamedTuple, Tuple

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


class LRUState(NamedTuple):
  """The complex state `real + i imaginary`, `[N, state size]` each."""
  real: jax.Array
  imaginary: jax.Array


def initial_state(batch_size: int, state_size: int) -> LRUState:
  """Zeros: the state before an episode's first step."""
  zeros = jnp.zeros((batch_size, state_size), jnp.float32)
  return LRUState(zeros, zeros)


class LRU(hk.Module):
  """An LRU of `state_size` complex units whose outputs are as wide as
  its inputs (the module docstring)."""

  def __init__(self, state_size: int, r_min: float = 0.0,
               r_max: float = 1.0, max_phase: float = 2 * np.pi,
               name: str = 'lru'):
    super().__init__(name=name)
    if not 0.0 <= r_min < r_max <= 1.0:
      raise ValueError('An LRU needs 0 <= r_min < r_max <= 1 (its '
                       f'eigenvalues inside the unit circle); got r_min='
                       f'{r_min}, r_max={r_max}.')
    self.state_size = state_size
    self._r_min, self._r_max, self._max_phase = r_min, r_max, max_phase

  def __call__(self, inputs: jax.Array, first: jax.Array, state: LRUState
              ) -> Tuple[jax.Array, LRUState]:
    outputs, state = self.unroll(inputs[None], first[None], state)
    return outputs[0], state

  @hk.experimental.name_like('__call__')
  def unroll(self, inputs: jax.Array, first: jax.Array, state: LRUState
            ) -> Tuple[jax.Array, LRUState]:
    inputs = inputs.astype(jnp.float32)
    lambda_real, lambda_imaginary, b_real, b_imaginary, c_real, \
        c_imaginary, d = self._params(inputs.shape[-1])
    driven_real, driven_imaginary = inputs @ b_real.T, inputs @ b_imaginary.T

    def body(state, step):
      step_real, step_imaginary, step_first = step
      keep = jnp.logical_not(step_first)[:, None]
      real = jnp.where(keep, state.real, 0.0)
      imaginary = jnp.where(keep, state.imaginary, 0.0)
      state = LRUState(
          lambda_real * real - lambda_imaginary * imaginary + step_real,
          lambda_real * imaginary + lambda_imaginary * real + step_imaginary)
      return state, state

    if inputs.shape[0] == 1:  # One step, an actor's: no loop (TFLite).
      state, _ = body(state, (driven_real[0], driven_imaginary[0], first[0]))
      states = jax.tree.map(lambda x: x[None], state)
    else:
      state, states = jax.lax.scan(
          body, state, (driven_real, driven_imaginary, first))
    outputs = (states.real @ c_real.T - states.imaginary @ c_imaginary.T
               + d * inputs)
    return outputs, state

  def _params(self, input_size: int):
    """lambda's parts, then B (scaled by gamma), C and D."""
    size, r_min, r_max = self.state_size, self._r_min, self._r_max

    def log(x):
      # Never of 0, which would start a parameter at infinity (and its
      # gradient at NaN) for a uniform draw of exactly 0; memax's else.
      return jnp.log(jnp.maximum(x, jnp.finfo(x.dtype).tiny))

    def nu_init(shape, dtype):
      u = jax.random.uniform(hk.next_rng_key(), shape, dtype)
      return log(-0.5 * log(u * (r_max**2 - r_min**2) + r_min**2))

    def theta_init(shape, dtype):
      u = jax.random.uniform(hk.next_rng_key(), shape, dtype)
      return log(self._max_phase * u)

    def normal(scale):
      return hk.initializers.RandomNormal(1.0 / np.sqrt(scale))

    nu_log = hk.get_parameter('nu_log', [size], jnp.float32, init=nu_init)
    theta_log = hk.get_parameter('theta_log', [size], jnp.float32,
                                 init=theta_init)
    magnitude = jnp.exp(-jnp.exp(nu_log))
    phase = jnp.exp(theta_log)

    def gamma_init(shape, dtype):
      return jnp.log(jnp.sqrt(1.0 - magnitude**2)).astype(dtype)

    gamma = jnp.exp(hk.get_parameter('gamma_log', [size], jnp.float32,
                                     init=gamma_init))[:, None]
    b_real = hk.get_parameter('b_real', [size, input_size], jnp.float32,
                              init=normal(2 * input_size))
    b_imaginary = hk.get_parameter('b_imaginary', [size, input_size],
                                   jnp.float32, init=normal(2 * input_size))
    c_real = hk.get_parameter('c_real', [input_size, size], jnp.float32,
                              init=normal(size))
    c_imaginary = hk.get_parameter('c_imaginary', [input_size, size],
                                   jnp.float32, init=normal(size))
    d = hk.get_parameter('d', [input_size], jnp.float32, init=normal(1.0))
    return (magnitude * jnp.cos(phase), magnitude * jnp.sin(phase),
            gamma * b_real, gamma * b_imaginary, c_real, c_imaginary, d)
