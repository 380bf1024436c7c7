"""LSTM and GRU cores that replay a sequence with its inputs projected once.

(`ResetAfterGRU` is cuDNN's and PyTorch's GRU, on the same pattern; it has
no Haiku counterpart.)

The same cells as `hk.LSTM` and `hk.GRU`: the same parameters (names,
shapes, initialisers), the same gates, the same state; a network built on
either kind reads the other's params. The difference is how a sequence is
replayed. `hk.dynamic_unroll` runs the whole cell once per step, input
projection included; `unroll` here multiplies every step's input by the
input weights in one matrix product before the loop, and the loop keeps
only what depends on the previous state (the recurrent product and the
gates). On a CPU, where a learner's per-step loop is bound by the number
of operations in its body, this replays (and differentiates) a 128-step
sequence about twice as fast.

Both cores reset their state to zeros where `first` is set, before reading
that step's input (an episode's first step), as `hk.ResetCore` does:

    outputs, state = core(inputs [N, in], first [N], state)
    outputs, state = core.unroll(inputs [T, N, in], first [T, N], state)
"""

from typing import Any, Tuple

import haiku as hk
import jax
import jax.numpy as jnp


def _reset(first: jax.Array, state):
  """`state` with the rows where `first` set to zeros."""
  return jax.tree.map(lambda s: jnp.where(first[:, None], 0.0, s), state)


def _scan(cell, projected: jax.Array, first: jax.Array, state):
  """`cell(projected[t], state)` over t, resetting where `first[t]`:
  `(outputs [T, ...], final state)`."""

  def body(state, inputs):
    step_projected, step_first = inputs
    output, state = cell(step_projected, _reset(step_first, state))
    return state, output

  state, outputs = jax.lax.scan(body, state, (projected, first))
  return outputs, state


class _ProjectedCore(hk.Module):
  """A cell whose input product is taken apart from its recurrence: each
  core says its params (`_params`: input weights, recurrent weights,
  bias) and its cell (`_cell`: projected inputs and state to output and
  state); calling it and replaying a sequence are the same for both."""

  def __init__(self, hidden_size: int, name: str):
    super().__init__(name=name)
    self.hidden_size = hidden_size

  def __call__(self, inputs: jax.Array, first: jax.Array, state: Any
              ) -> Tuple[jax.Array, Any]:
    w_in, w_h, b = self._params(inputs.shape[-1])
    return self._cell(w_h)(inputs @ w_in + b, _reset(first, state))

  @hk.experimental.name_like('__call__')
  def unroll(self, inputs: jax.Array, first: jax.Array, state: Any
            ) -> Tuple[jax.Array, Any]:
    w_in, w_h, b = self._params(inputs.shape[-1])
    return _scan(self._cell(w_h), inputs @ w_in + b, first, state)


class GRU(_ProjectedCore):
  """`hk.GRU`'s cell (Cho et al. 2014, the update gate on the candidate)."""

  def __init__(self, hidden_size: int, name: str = 'gru'):
    super().__init__(hidden_size, name=name)

  @hk.experimental.name_like('__call__')
  def _params(self, input_size: int):
    size = self.hidden_size
    w_i = hk.get_parameter('w_i', [input_size, 3 * size], jnp.float32,
                           init=hk.initializers.VarianceScaling())
    w_h = hk.get_parameter('w_h', [size, 3 * size], jnp.float32,
                           init=hk.initializers.VarianceScaling())
    b = hk.get_parameter('b', [3 * size], jnp.float32, init=jnp.zeros)
    return w_i, w_h, b

  def _cell(self, w_h: jax.Array):
    size = self.hidden_size
    w_h_zr, w_h_a = w_h[:, :2 * size], w_h[:, 2 * size:]

    def cell(projected, state):
      zr_x, a_x = projected[..., :2 * size], projected[..., 2 * size:]
      z, r = jnp.split(jax.nn.sigmoid(zr_x + state @ w_h_zr), 2, axis=-1)
      a = jnp.tanh(a_x + (r * state) @ w_h_a)
      state = (1 - z) * state + z * a
      return state, state

    return cell

  def initial_state(self, batch_size: int) -> jax.Array:
    return jnp.zeros((batch_size, self.hidden_size), jnp.float32)


def _gatewise_orthogonal(shape, dtype) -> jax.Array:
  """`[H, k H]`: k orthogonal `[H, H]` matrices side by side, one per
  gate (flax's recurrent kernels)."""
  size, width = shape
  init = hk.initializers.Orthogonal()
  return jnp.concatenate([init((size, size), dtype)
                          for _ in range(width // size)], axis=-1)


class ResetAfterGRU(_ProjectedCore):
  """The GRU of cuDNN and PyTorch (and of XLand-MiniGrid's baselines): the
  reset gate scales the candidate's recurrent product after it is taken,

      r, z = sigmoid(W_ir x + b_r + W_hr h), sigmoid(W_iz x + b_z + W_hz h)
      n = tanh(W_in x + b_n + r * (W_hn h + b_hn));  h' = (1 - z) n + z h,

  so each step makes one recurrent product, `h @ w_h` `[H, 3H]`, where
  `GRU` makes two in a row. Params: `w_i` `[in, 3H]` (Glorot normal),
  `w_h` `[H, 3H]` (orthogonal), `b` `[3H]` and `b_hn` `[H]` (zeros), the
  gates in the order r, z, n. `flax_init`: drawn as flax's `GRUCell`
  (the GRU of PureJaxRL-style programs, which computes the same) draws
  them: each gate's input weights LeCun normal, its recurrent weights an
  orthogonal `[H, H]` of its own."""

  def __init__(self, hidden_size: int, name: str = 'reset_after_gru',
               flax_init: bool = False):
    super().__init__(hidden_size, name=name)
    self._flax_init = flax_init

  @hk.experimental.name_like('__call__')
  def _params(self, input_size: int):
    size = self.hidden_size
    w_i = hk.get_parameter(
        'w_i', [input_size, 3 * size], jnp.float32,
        init=hk.initializers.VarianceScaling(
            1.0, 'fan_in' if self._flax_init else 'fan_avg',
            'truncated_normal'))
    w_h = hk.get_parameter('w_h', [size, 3 * size], jnp.float32,
                           init=(_gatewise_orthogonal if self._flax_init
                                 else hk.initializers.Orthogonal()))
    b = hk.get_parameter('b', [3 * size], jnp.float32, init=jnp.zeros)
    self._b_hn = hk.get_parameter('b_hn', [size], jnp.float32,
                                  init=jnp.zeros)
    return w_i, w_h, b

  def _cell(self, w_h: jax.Array):
    size, b_hn = self.hidden_size, self._b_hn

    def cell(projected, state):
      recurrent = state @ w_h
      r, z = jnp.split(jax.nn.sigmoid(projected[..., :2 * size] +
                                      recurrent[..., :2 * size]), 2, axis=-1)
      n = jnp.tanh(projected[..., 2 * size:] +
                   r * (recurrent[..., 2 * size:] + b_hn))
      state = (1 - z) * n + z * state
      return state, state

    return cell

  def initial_state(self, batch_size: int) -> jax.Array:
    return jnp.zeros((batch_size, self.hidden_size), jnp.float32)


class _LinearWeights(hk.Module):
  """The params of `hk.Linear(size)` over inputs of `fan_in` features."""

  def __init__(self, size: int, name: str):
    super().__init__(name=name)
    self.size = size

  def __call__(self, fan_in: int) -> Tuple[jax.Array, jax.Array]:
    w = hk.get_parameter(
        'w', [fan_in, self.size], jnp.float32,
        init=hk.initializers.TruncatedNormal(1.0 / fan_in**0.5))
    return w, hk.get_parameter('b', [self.size], jnp.float32, init=jnp.zeros)


class LSTM(_ProjectedCore):
  """`hk.LSTM`'s cell (Zaremba et al. 2014; forget bias 1)."""

  def __init__(self, hidden_size: int, name: str = 'lstm'):
    super().__init__(hidden_size, name=name)

  @hk.experimental.name_like('__call__')
  def _params(self, input_size: int):
    # `hk.LSTM`'s one `hk.Linear` over [inputs, hidden], named as it is.
    w, b = _LinearWeights(4 * self.hidden_size, name='linear')(
        input_size + self.hidden_size)
    return w[:input_size], w[input_size:], b

  @staticmethod
  def _cell(w_h: jax.Array):

    def cell(projected, state):
      gated = projected + state.hidden @ w_h
      i, g, f, o = jnp.split(gated, 4, axis=-1)
      c = (jax.nn.sigmoid(f + 1) * state.cell +
           jax.nn.sigmoid(i) * jnp.tanh(g))
      h = jax.nn.sigmoid(o) * jnp.tanh(c)
      return h, hk.LSTMState(hidden=h, cell=c)

    return cell

  def initial_state(self, batch_size: int) -> hk.LSTMState:
    zeros = jnp.zeros((batch_size, self.hidden_size), jnp.float32)
    return hk.LSTMState(hidden=zeros, cell=zeros)
