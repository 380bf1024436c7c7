"""Independent seeds spread over devices, with `jax.sharding` and `shard_map`.

Seeds never talk to each other, so the compiled loop shards its leading seed
axis over a one-axis mesh and runs each device's seeds with `shard_map`: no
collectives, and a run gives the same result on one device or many. On a
cluster, `initialize_distributed` joins the processes first
(`jax.distributed.initialize`); the mesh then spans every host's devices.
"""

from typing import Any, Callable, Optional, Sequence

from absl import logging
import jax
from jax.experimental import multihost_utils
import numpy as np

AXIS = 'seeds'


def initialize_distributed(coordinator_address: Optional[str],
                           num_processes: Optional[int],
                           process_id: Optional[int]) -> None:
  """Joins a multi-process run; a no-op when no coordinator is given."""
  if coordinator_address is None:
    if num_processes not in (None, 1) or process_id not in (None, 0):
      raise ValueError(
          '--num_processes and --process_id need --coordinator_address '
          '(host:port of process 0).')
    return
  if num_processes is None or process_id is None:
    raise ValueError('--coordinator_address needs --num_processes and '
                     '--process_id too.')
  if not 0 <= process_id < num_processes:
    raise ValueError(f'--process_id must be in [0, {num_processes}); got '
                     f'{process_id}.')
  jax.distributed.initialize(coordinator_address=coordinator_address,
                             num_processes=num_processes,
                             process_id=process_id)


def seed_mesh(num_seeds: int,
              devices: Optional[Sequence[jax.Device]] = None
             ) -> jax.sharding.Mesh:
  """A mesh over the most devices that split `num_seeds` evenly."""
  devices = list(jax.devices() if devices is None else devices)
  count = max(d for d in range(1, len(devices) + 1)
              if num_seeds % d == 0)
  if count < len(devices):
    logging.warning(
        '%d seed(s) use %d of %d devices; a multiple of %d seeds uses all.',
        num_seeds, count, len(devices), len(devices))
  return jax.sharding.Mesh(np.asarray(devices[:count]), (AXIS,))


def seed_sharding(mesh: jax.sharding.Mesh) -> jax.sharding.NamedSharding:
  """Leading (seed) axis split over the mesh, other axes whole."""
  return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(AXIS))


def map_seeds(fn: Callable[..., Any],
              mesh: jax.sharding.Mesh) -> Callable[..., Any]:
  """`fn` over seed-major pytrees, each device running its own seeds."""
  spec = jax.sharding.PartitionSpec(AXIS)
  # No collectives run inside, so per-device replication checks are moot.
  return jax.shard_map(fn, mesh=mesh, in_specs=spec, out_specs=spec,
                       check_vma=False)


def put(array: np.ndarray, mesh: jax.sharding.Mesh) -> jax.Array:
  """A host array (the same on every process) split by seed over `mesh`."""
  return jax.make_array_from_callback(array.shape, seed_sharding(mesh),
                                      lambda index: array[index])


def to_host(tree: Any) -> Any:
  """Numpy copies of seed-major arrays, gathered from every process."""
  if jax.process_count() > 1:
    return multihost_utils.process_allgather(tree, tiled=True)
  return jax.device_get(tree)

