"""The hook through which agents reduce over a batch split across devices.

One seed's batch can be split over D devices (the compiled loop's `data`
mesh axis, bound by `shard_map`): each device acts in its share of the
environments and computes gradients on its share of the batch, and the
update must then reduce what it reduces over the batch (gradients, loss
normalisers, advantage statistics, metrics) across the devices, so that
every device ends the update with the same parameters as one device
holding the whole batch.

Agents call the functions here with no axis argument. Inside a program
that binds `DATA_AXIS` they are collectives over it; anywhere else (the
Python loop, evaluation, export, a compiled loop on one device per seed)
the axis is absent and each is the identity on one device's whole batch,
so one agent definition serves every loop.
"""

from typing import Any

import jax
import jax.numpy as jnp

# The mesh axis that splits one seed's environments and batch.
DATA_AXIS = 'data'


def axis_size() -> int:
  """Devices sharing this seed's batch (1 when the axis is absent)."""
  try:
    return jax.lax.axis_size(DATA_AXIS)
  except NameError:  # Unbound: no data-parallel split here.
    return 1


def axis_index() -> jax.Array:
  """This device's position along the data axis (0 when absent)."""
  if axis_size() == 1:
    return jnp.zeros((), jnp.int32)
  return jax.lax.axis_index(DATA_AXIS)


def total(tree: Any) -> Any:
  """Sum of `tree` over the devices of the batch."""
  return tree if axis_size() == 1 else jax.lax.psum(tree, DATA_AXIS)


def mean(tree: Any) -> Any:
  """Mean of `tree` over the devices of the batch (equal shares)."""
  return tree if axis_size() == 1 else jax.lax.pmean(tree, DATA_AXIS)


def maximum(tree: Any) -> Any:
  """Elementwise maximum of `tree` over the devices of the batch."""
  return tree if axis_size() == 1 else jax.lax.pmax(tree, DATA_AXIS)


def gather(tree: Any, axis: int) -> Any:
  """Every device's share of `tree`, concatenated along `axis` in device
  order: the whole batch, on every device."""
  if axis_size() == 1:
    return tree
  return jax.tree.map(
      lambda x: jax.lax.all_gather(x, DATA_AXIS, axis=axis, tiled=True),
      tree)


def share(tree: Any, axis: int) -> Any:
  """This device's equal share of `tree` along `axis` (which every device
  holds whole): device d of D takes the d-th of D contiguous blocks."""
  size = axis_size()
  if size == 1:
    return tree

  def take(x):
    if x.shape[axis] % size:
      raise ValueError(f'A batch of {x.shape[axis]} along axis {axis} does '
                       f'not split over {size} devices.')
    block = x.shape[axis] // size
    return jax.lax.dynamic_slice_in_dim(x, axis_index() * block, block, axis)

  return jax.tree.map(take, tree)
