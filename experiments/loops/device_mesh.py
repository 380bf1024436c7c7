"""Seeds and their batches spread over devices, with `jax.sharding`.

The compiled loop runs on a two-axis mesh `(seeds, data)`: seeds never
talk to each other, so the seed axis needs no collectives and a run gives
the same result on one device or many; one seed's environments can also be
split over the `data` axis (`--devices_per_seed`), each device acting in
its share and the agent reducing over the devices of the seed through
`agents.data_parallel`. On a cluster, `initialize_distributed` joins the
processes first (`jax.distributed.initialize`); the mesh then spans every
host's devices.
"""

from typing import Any, Callable, Mapping, Optional, Sequence

from absl import logging
import jax
from jax.experimental import multihost_utils
import numpy as np

from agents import data_parallel

SEEDS = 'seeds'
DATA = data_parallel.DATA_AXIS


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


def check_devices_per_seed(devices_per_seed: int, num_envs: int,
                           splits: Optional[Mapping[str, int]],
                           num_devices: int, agent: str = 'the agent'
                          ) -> None:
  """Refuses a split of one seed that cannot work, naming the valid ones.

  Args:
    devices_per_seed: D, the devices one seed's batch is split over.
    num_envs: the seed's environments (each device gets N/D).
    splits: other sizes D must divide (`agents.registry.batch_splits`); None:
      the agent cannot be split at all.
    num_devices: the devices there are (all processes').
    agent: the agent's name, for the message.
  """
  if devices_per_seed == 1:
    return
  if splits is None:
    raise ValueError(
        f'--devices_per_seed={devices_per_seed}: {agent} does not reduce '
        f'over its batch through agents.data_parallel (its registry entry '
        f'has no batch_splits), so each seed runs on one device; use 1.')
  sizes = dict({'num_envs (environments per seed)': num_envs}, **splits)
  valid = [d for d in range(1, num_devices + 1)
           if all(size % d == 0 for size in sizes.values())]
  problems = [f'{what} = {size}' for what, size in sizes.items()
              if size % devices_per_seed]
  if devices_per_seed > num_devices:
    problems.insert(0, f'there are only {num_devices} device(s)')
  if problems:
    raise ValueError(
        f'--devices_per_seed={devices_per_seed} cannot split one seed of '
        f'{agent}: {"; ".join(problems)} (each device takes an equal '
        f'share). Valid here: {", ".join(map(str, valid))}.')


def device_mesh(num_seeds: int, devices_per_seed: int = 1,
                devices: Optional[Sequence[jax.Device]] = None
               ) -> jax.sharding.Mesh:
  """A `(seeds, data)` mesh: rows of `devices_per_seed` devices, as many
  rows as split `num_seeds` evenly (and fit)."""
  devices = list(jax.devices() if devices is None else devices)
  if devices_per_seed > len(devices):
    raise ValueError(f'--devices_per_seed={devices_per_seed}: there are '
                     f'only {len(devices)} device(s).')
  rows = max(r for r in range(1, len(devices) // devices_per_seed + 1)
             if num_seeds % r == 0)
  used = rows * devices_per_seed
  if used < len(devices):
    logging.warning(
        '%d seed(s) x %d device(s) per seed use %d of %d devices.',
        num_seeds, devices_per_seed, used, len(devices))
  return jax.sharding.Mesh(
      np.asarray(devices[:used]).reshape(rows, devices_per_seed),
      (SEEDS, DATA))


def seed_spec() -> jax.sharding.PartitionSpec:
  """Leading (seed) axis split over the mesh's rows; the same on every
  device of a seed."""
  return jax.sharding.PartitionSpec(SEEDS)


def batch_spec() -> jax.sharding.PartitionSpec:
  """Seed axis over the rows, the next (environment or batch-row) axis
  over the devices of each seed."""
  return jax.sharding.PartitionSpec(SEEDS, DATA)


def seed_sharding(mesh: jax.sharding.Mesh) -> jax.sharding.NamedSharding:
  """`seed_spec` on `mesh`."""
  return jax.sharding.NamedSharding(mesh, seed_spec())


def map_seeds(fn: Callable[..., Any], mesh: jax.sharding.Mesh,
              in_specs: Any = None, out_specs: Any = None
             ) -> Callable[..., Any]:
  """`fn` over seed-major pytrees, each device running its share: specs
  (default: every argument and result by seed) say which leaves also split
  over the devices of a seed."""
  # Collectives run only over the data axis, on values every device of a
  # seed computes alike; per-device replication checks are moot.
  return jax.shard_map(fn, mesh=mesh,
                       in_specs=seed_spec() if in_specs is None else in_specs,
                       out_specs=(seed_spec() if out_specs is None
                                  else out_specs),
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
