"""Continuous actions at the environment boundary: checked, then clipped.

Agents act in the units of the environment's action spec (a float
`BoundedArray` of shape `[action_dim]`). A Gaussian policy's samples are
unbounded, so every environment here clips each action to the spec's
bounds where it enters the game (the functional cores in `step`, the
dm_env faces of external suites in `step`); the agent keeps the sample it
drew, so its log-probabilities stay those of the action it chose. Policies
that squash their actions (tanh) rescale them into the bounds themselves
(`rescale_from_unit`), so clipping leaves them unchanged.
"""

from typing import Any, Union

from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

Array = Union[np.ndarray, jax.Array]


def is_continuous(spec: specs.Array) -> bool:
  """Whether `spec` describes continuous actions (a float array spec that
  is not a `DiscreteArray`)."""
  return (not isinstance(spec, specs.DiscreteArray) and
          np.issubdtype(np.dtype(spec.dtype), np.floating))


def has_finite_bounds(spec: specs.Array) -> bool:
  """Whether `spec` is a `BoundedArray` with finite bounds everywhere."""
  return (isinstance(spec, specs.BoundedArray) and
          bool(np.all(np.isfinite(spec.minimum))) and
          bool(np.all(np.isfinite(spec.maximum))))


def bounds(spec: specs.Array) -> tuple[np.ndarray, np.ndarray]:
  """`(low, high)` of `spec` broadcast to its shape (float32); ±inf where
  it has no bounds."""
  shape = tuple(spec.shape)
  if isinstance(spec, specs.BoundedArray):
    low = np.broadcast_to(np.asarray(spec.minimum, np.float32), shape)
    high = np.broadcast_to(np.asarray(spec.maximum, np.float32), shape)
  else:
    low = np.full(shape, -np.inf, np.float32)
    high = np.full(shape, np.inf, np.float32)
  return low, high


def clip_to_spec(actions: Array, spec: specs.Array) -> Array:
  """`actions` `[..., *spec.shape]` clipped to the spec's bounds (JAX in,
  JAX out; NumPy in, NumPy out); unbounded specs pass them unchanged."""
  low, high = bounds(spec)
  if isinstance(actions, jax.Array):
    return jnp.clip(actions, low, high)
  return np.clip(np.asarray(actions, np.float32), low, high)


def rescale_from_unit(unit_actions: jax.Array, spec: specs.Array
                     ) -> jax.Array:
  """Actions in [-1, 1] (e.g. tanh-squashed) mapped affinely onto the
  spec's finite bounds `[low, high]`."""
  low, high = bounds(spec)
  return low + 0.5 * (unit_actions + 1.0) * (high - low)


def rescale_to_unit(actions: jax.Array, spec: specs.Array) -> jax.Array:
  """The inverse of `rescale_from_unit`: actions in the spec's finite
  bounds mapped affinely onto [-1, 1]."""
  low, high = bounds(spec)
  return 2.0 * (actions - low) / (high - low) - 1.0


def validate_action(action: Any, spec: specs.Array) -> np.ndarray:
  """`action` as a float32 array of the spec's shape, or ValueError naming
  the shape wanted and what came (for actions from users at a dm_env face;
  values outside the bounds are clipped, not refused)."""
  shape = tuple(spec.shape)
  try:
    array = np.asarray(action, np.float32)
  except (TypeError, ValueError) as e:
    raise ValueError(f'Action must be a float array of shape {shape}; got '
                     f'{action!r}.') from e
  if array.shape != shape:
    if array.size == int(np.prod(shape, dtype=np.int64)):
      array = array.reshape(shape)
    else:
      raise ValueError(f'Action must be a float array of shape {shape}; got '
                       f'shape {array.shape}.')
  if not np.all(np.isfinite(array)):
    raise ValueError(f'Action must be finite; got {array.tolist()}.')
  return clip_to_spec(array, spec)


def describe(spec: specs.Array) -> str:
  """The action spec in words: 'discrete (4 actions)' or 'continuous
  (shape (1,), bounds [-2, 2])'."""
  if isinstance(spec, specs.DiscreteArray):
    return f'discrete ({spec.num_values} actions)'
  if is_continuous(spec):
    low, high = bounds(spec)
    if not low.size or not (np.any(np.isfinite(low)) or
                            np.any(np.isfinite(high))):
      span = 'no bounds'
    elif np.all(low == low.flat[0]) and np.all(high == high.flat[0]):
      span = f'bounds [{float(low.flat[0]):g}, {float(high.flat[0]):g}]'
    else:
      span = f'bounds {low.tolist()} .. {high.tolist()}'
    return f'continuous (shape {tuple(spec.shape)}, {span})'
  return f'{type(spec).__name__} of shape {tuple(spec.shape)} and dtype ' \
         f'{np.dtype(spec.dtype)}'


def host_actions(actions: Any) -> np.ndarray:
  """Actions as a `Trajectory` holds them on the host: int32 discrete
  actions, or float32 continuous ones (`[..., action_dim]`)."""
  actions = np.asarray(actions)
  if np.issubdtype(actions.dtype, np.integer):
    return actions.astype(np.int32)
  return actions.astype(np.float32)


def host_action(action: Any) -> Union[int, np.ndarray]:
  """One action as a dm_env face takes it: an int for a discrete action
  (an integer scalar), else a float32 NumPy array."""
  array = host_actions(action)
  return int(array) if array.dtype == np.int32 and array.ndim == 0 else array
