"""The actor: picks actions with the latest params for N environments side
by side (N = 1 included), in one jitted call (`BatchedActor`).

A recurrent agent's state stays with the actor, on the device, and resets
at each episode's first step (step 0), as in the compiled loop.

Action keys are addressed by position, not drawn from a chain of splits:
step `t` of training episode `e` acts with `step_key(key, e, t)`. The
compiled loop derives the same key for the same (episode, step) however many
environments run side by side, so both loops sample the same actions.
"""

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib


def step_key(key: jax.Array, episode: jax.Array, step: jax.Array) -> jax.Array:
  """The PRNG key for step `step` of episode `episode` (both int32)."""
  return jax.random.fold_in(jax.random.fold_in(key, episode), step)


def _as_bytes(x: jax.Array) -> jax.Array:
  """`x`'s bytes, flattened (uint8), to ship several arrays as one."""
  if x.dtype == jnp.bool_:
    return x.astype(jnp.uint8).reshape(-1)
  return jax.lax.bitcast_convert_type(x, jnp.uint8).reshape(-1)


def _from_bytes(data: jax.Array, dtype: np.dtype,
                shape: Tuple[int, ...]) -> jax.Array:
  """The array of `dtype` and `shape` whose bytes (uint8) are `data`."""
  if dtype == np.bool_:
    return (data != 0).reshape(shape)
  if dtype.itemsize == 1:
    return jax.lax.bitcast_convert_type(data, dtype).reshape(shape)
  return jax.lax.bitcast_convert_type(
      data.reshape(shape + (dtype.itemsize,)), dtype)


class BatchedActor:
  """Acts in N environments at once: one jitted call, one transfer each way.

  Environment i acts with `step_key(key, episodes[i], steps[i])`, under
  `vmap` as the compiled loop acts, so both loops sample the same actions
  for the same (episode, step). Inputs go to the device as one byte array
  and actions and extras come back as one (each host array a call takes or
  returns costs a transfer, tens of microseconds on a CPU). `dispatch`
  returns at once, so the caller can work while the device acts; `fetch`
  waits.
  """

  def __init__(self, agent: agent_lib.Agent, params: agent_lib.Params,
               key: jax.Array):

    def act(params, key, episodes, steps, observations, state):
      keys = jax.vmap(step_key, (None, 0, 0))(key, episodes, steps)

      def one(k, obs, first, state):
        actions, extras, state = agent_lib.act_with_state(
            agent, params, k, obs[None], first[None],
            jax.tree.map(lambda x: x[None], state))
        return jax.tree.map(lambda x: x[0], (actions, extras, state))

      actions, extras, state = jax.vmap(one)(keys, observations, steps == 0,
                                             state)
      return (actions, extras), state

    def packed(params, key, data, layout, state):
      n, shape, dtype = layout
      ints = _from_bytes(data[:8 * n], np.dtype(np.int32), (2, n))
      observations = _from_bytes(data[8 * n:], np.dtype(dtype), shape)
      return act(params, key, ints[0], ints[1], observations, state)

    def act_bytes(params, key, data, layout, state):
      out, state = packed(params, key, data, layout, state)
      return jnp.concatenate(
          [_as_bytes(x) for x in jax.tree.leaves(out)]), state

    self._shapes = lambda params, key, data, layout, state: jax.eval_shape(
        lambda *args: packed(*args[:3], layout, args[3]), params, key, data,
        state)[0]
    self._act = jax.jit(act_bytes, static_argnums=3)
    self._agent = agent
    self._state = None  # A recurrent agent's, once N is known.
    self._inputs = None  # The input layout `_outputs` describes.
    self._outputs = None  # (treedef, [(offset, size, dtype, shape)]).
    self._params = params
    self._key = key

  def dispatch(self, episodes: np.ndarray, steps: np.ndarray,
               observations: np.ndarray) -> jax.Array:
    """Starts acting for the environments' current episodes `episodes` and
    steps `steps` (`[N]`) on `observations` (`[N, ...]`)."""
    # As JAX would hold them (float64 -> float32 unless x64 is on), so the
    # bytes decode to the dtype the agent sees with one environment too.
    observations = np.ascontiguousarray(
        observations, jax.dtypes.canonicalize_dtype(observations.dtype))
    data = np.concatenate([  # A copy: the caller may reuse its arrays.
        np.asarray(episodes, np.int32).view(np.uint8),
        np.asarray(steps, np.int32).view(np.uint8),
        observations.reshape(-1).view(np.uint8)])
    layout = (len(episodes), observations.shape, observations.dtype.str)
    if self._state is None:
      self._state = agent_lib.initial_state(self._agent, len(episodes))
    args = (self._params, self._key, data, layout, self._state)
    if layout != self._inputs:  # Where each output lies in the bytes.
      out = self._shapes(*args)
      fields, offset = [], 0
      for leaf in jax.tree.leaves(out):
        size = int(np.prod(leaf.shape)) * np.dtype(leaf.dtype).itemsize
        fields.append((offset, size, np.dtype(leaf.dtype), leaf.shape))
        offset += size
      self._inputs, self._outputs = layout, (jax.tree.structure(out), fields)
    packed, self._state = self._act(*args)
    return packed

  def fetch(self, packed: jax.Array) -> Tuple[np.ndarray, agent_lib.Extras]:
    """Actions (`[N]`, or `[N, action_dim]`) and extras (`[N, ...]` each)
    of the latest
    `dispatch`, as (read-only) host arrays."""
    data = np.asarray(packed)
    treedef, fields = self._outputs
    return jax.tree.unflatten(treedef, [
        data[offset:offset + size].view(dtype).reshape(shape)
        for offset, size, dtype, shape in fields])

  def select_actions(self, episodes: np.ndarray, steps: np.ndarray,
                     observations: np.ndarray
                    ) -> Tuple[np.ndarray, agent_lib.Extras]:
    """`dispatch`, then `fetch`."""
    return self.fetch(self.dispatch(episodes, steps, observations))

  def update(self, params: agent_lib.Params) -> None:
    self._params = params

  @property
  def key(self) -> jax.Array:
    """The actor's PRNG key, for checkpoints."""
    return self._key
