"""Run groups: the seeds of one agent × environment that train as one
program, the unit of work a launcher hands out, and where each lands in a
comparison's workdir (`plan`'s module docstring shows the layout)."""

import dataclasses
import os
import re
from typing import List, Optional, Tuple

from environments import registry as env_registry
from experiments.comparison import run_status
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


@dataclasses.dataclass(frozen=True)
class RunGroup:
  """Seeds of one agent × environment that train as one program (a task).

  Attributes:
    config: the experiment config of the program (`num_seeds` seeds from
      `seed` in the compiled loop; one seed in the Python loop).
    workdir: the program's training workdir (absolute).
    seed_dirs: where each seed's `result.json` and `eval.csv` land.
  """
  config: config_lib.ExperimentConfig
  workdir: str
  seed_dirs: Tuple[str, ...]

  @property
  def seeds(self) -> Tuple[int, ...]:
    return tuple(build_lib.seeds(self.config))

  @property
  def name(self) -> str:
    seeds = self.seeds
    span = (f'seed {seeds[0]}' if len(seeds) == 1 else
            f'seeds {seeds[0]}-{seeds[-1]}')
    return f'{self.config.agent} on {self.config.env}, {span}'

  def statuses(self) -> List[run_status.SeedStatus]:
    """Each seed's state, judged from its files (`run_status.check`)."""
    return [run_status.check(d, self.config, s)
            for d, s in zip(self.seed_dirs, self.seeds)]

  def finished(self) -> bool:
    """Every seed finished or diverged: nothing left to train."""
    return all(s.state in (run_status.FINISHED, run_status.DIVERGED)
               for s in self.statuses())


def path_safe(name: str) -> str:
  """`name` usable in a path: `bsuite:catch/0` -> `bsuite_catch_0`."""
  return re.sub(r'[^A-Za-z0-9.-]+', '_', name).strip('_') or 'env'


def run_directory(env: str, agent: str, seed: Optional[int] = None) -> str:
  """A group's (or, with `seed`, one seed's) directory, relative to the
  workdir; environment ids become path-safe (`bsuite:catch/0` →
  `bsuite_catch_0`)."""
  parts = ['runs', path_safe(env), agent]
  if seed is not None:
    parts.append(f'seed_{seed}')
  return os.path.join(*parts)


def groups_for(config: config_lib.ExperimentConfig, num_seeds: int,
               root: str, added: bool = False) -> List[RunGroup]:
  """The groups that train seeds `config.seed` … `+ num_seeds - 1` of one
  agent × environment under `root` (see the module docstring's layout): one
  compiled program for them all where the environment has a JAX core, else
  one Python-loop run per seed. `added`: seeds added to a finished
  comparison, whose compiled program gets its own directory
  (`runs/<env>/<agent>/seeds_<first>-<last>/`).

  Raises:
    ValueError: if the pair cannot run with these settings.
  """
  agent, env = config.agent, config.env
  seeds = list(range(config.seed, config.seed + num_seeds))
  seed_dirs = tuple(os.path.join(root, run_directory(env, agent, s))
                    for s in seeds)
  if env_registry.has_functional(env):
    config = dataclasses.replace(config, num_seeds=num_seeds)
    build_lib.make_loop(build_lib.build(config))  # Checks loop settings.
    group_dir = os.path.join(root, run_directory(env, agent))
    if added:
      group_dir = os.path.join(group_dir, f'seeds_{seeds[0]}-{seeds[-1]}')
      seed_dirs = tuple(os.path.join(group_dir, f'seed_{s}') for s in seeds)
    if num_seeds == 1:  # A one-seed program's workdir is the seed's.
      seed_dirs = (group_dir,) if added else seed_dirs
      return [RunGroup(config, seed_dirs[0], seed_dirs)]
    return [RunGroup(config, group_dir, seed_dirs)]
  build_lib.build(config)
  return [RunGroup(dataclasses.replace(config, seed=seed), seed_dir,
                   (seed_dir,)) for seed, seed_dir in zip(seeds, seed_dirs)]
