"""Launchers: run a list of independent tasks here or on a Ray cluster.

A task is `fn(task)` for a picklable `task`; it writes its own outputs (to a
workdir every worker shares) and must be idempotent, so that a retried task
picks up where the failed attempt stopped. `experiments.comparison.group_runner.run_group`
is such a function.
"""

import dataclasses
import time
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence

from absl import logging

LAUNCHERS = ('local', 'ray')


class LauncherError(RuntimeError):
  """Tasks that failed (after their retries), or a launcher that can't start."""


class Launcher(Protocol):
  """Runs `fn` on every task; returns their results in the tasks' order."""

  def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any],
          names: Sequence[str]) -> List[Any]:
    ...


def _import_ray():
  try:
    import ray  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise LauncherError('--launcher=ray needs Ray: pip install -e .[ray]'
                       ) from e
  return ray


def _report(done: int, total: int, name: str, seconds: float) -> None:
  print(f'[{done}/{total}] {name}: done in {seconds:.0f} s', flush=True)


class LocalLauncher:
  """Runs the tasks one after another in this process; stops at a failure
  (rerunning resumes from there)."""

  def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any],
          names: Sequence[str]) -> List[Any]:
    results = []
    for i, (task, name) in enumerate(zip(tasks, names)):
      print(f'[{i}/{len(tasks)}] {name}: running', flush=True)
      start = time.perf_counter()
      results.append(fn(task))
      _report(i + 1, len(tasks), name, time.perf_counter() - start)
    return results


def _call(fn: Callable[[Any], Any], task: Any) -> Any:
  """A Ray task's body: `fn` may be any picklable callable (a
  `functools.partial` too, which `ray.remote` cannot wrap itself)."""
  return fn(task)


@dataclasses.dataclass
class RayLauncher:
  """Sends each task to a Ray cluster as a task with declared resources.

  Attributes:
    address: the cluster (`ray.init(address=...)`); None starts a local
      instance, as does 'local'. Ignored when Ray is already initialised.
    num_cpus: CPUs each task reserves.
    num_gpus: GPUs each task reserves (fractions allowed).
    max_retries: retries of a task that raised or whose worker died.
    init_kwargs: extra `ray.init` arguments (e.g. `num_cpus` of a local
      instance).
  """
  address: Optional[str] = None
  num_cpus: float = 1
  num_gpus: float = 0
  max_retries: int = 2
  init_kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)

  def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any],
          names: Sequence[str]) -> List[Any]:
    ray = _import_ray()
    if not ray.is_initialized():
      ray.init(address=self.address, log_to_driver=False, **self.init_kwargs)
    remote = ray.remote(num_cpus=self.num_cpus, num_gpus=self.num_gpus,
                        max_retries=self.max_retries,
                        retry_exceptions=True)(_call)
    start = time.perf_counter()
    refs = [remote.remote(fn, task) for task in tasks]
    index = {ref: i for i, ref in enumerate(refs)}
    results: List[Any] = [None] * len(tasks)
    failures = []
    pending, done = list(refs), 0
    while pending:
      ready, pending = ray.wait(pending, num_returns=1)
      i = index[ready[0]]
      done += 1
      try:
        results[i] = ray.get(ready[0])
        _report(done, len(tasks), names[i], time.perf_counter() - start)
      except Exception as e:  # pylint: disable=broad-except
        logging.error('Task %s failed: %s', names[i], e)
        failures.append(f'{names[i]}: {type(e).__name__}: {e}')
    if failures:
      raise LauncherError(
          f'{len(failures)} of {len(tasks)} tasks failed after '
          f'{self.max_retries} retries (finished work is kept; rerun the '
          'same command to resume):\n  ' + '\n  '.join(failures))
    return results


def make_launcher(name: str, ray_address: Optional[str] = None,
                  num_cpus: float = 1, num_gpus: float = 0,
                  max_retries: int = 2) -> Launcher:
  """The launcher `--launcher=name` asks for."""
  if name == 'local':
    return LocalLauncher()
  if name == 'ray':
    _import_ray()  # Missing Ray is reported before anything runs.
    return RayLauncher(ray_address, num_cpus, num_gpus, max_retries)
  raise LauncherError(f'--launcher must be one of {", ".join(LAUNCHERS)}; '
                      f'got {name!r}.')
