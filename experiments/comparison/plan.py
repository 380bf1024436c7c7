"""A comparison of agents × environments × seeds: planned, checked and run.

`plan` turns a `Comparison` into run groups, the unit of work a launcher
hands out: the seeds of one agent × environment that train as one program
(compiled loop), or one seed of a Python-loop environment (`bsuite:`,
`gym:`). Every pair is checked before anything is written or trained, and
every problem is reported at once. Workdir layout (each seed's directory
is a training workdir, or a compiled group's `seed_<n>/`):

  comparison.json                  the comparison's settings and its runs
  runs/<env>/<agent>/              a compiled group: config.json, checkpoints/
  runs/<env>/<agent>/seed_<n>/     result.json, eval.csv, train.csv,
                                   tensorboard/ of one seed
  runs/<env>/<agent>/seeds_<a>-<b>/  seeds added later, as their own group

`group_runner.run_group` trains a group (idempotently: rerunning loses
nothing).
"""

import dataclasses
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import config_drift
from experiments.setup import user_modules
from experiments.comparison import budgets
from experiments.comparison import pair_settings
from experiments.comparison import run_groups
from experiments.loops import evaluation
from experiments.storage import atomic_files
from experiments.storage import workdir_format

FILENAME = 'comparison.json'


class ComparisonError(ValueError):
  """A comparison that cannot run as asked; raised before any training."""


@dataclasses.dataclass(frozen=True)
class Comparison:
  """The settings every run of a comparison shares.

  Attributes:
    agents: agent names (`agents.registry.names()`).
    envs: environment names (`environments.registry.check_name`).
    num_seeds: seeds 0 … num_seeds-1 of every agent × environment. A
      finished comparison takes more seeds: the new ones train as new
      programs, the others are kept (`seed_batches`).
    num_steps: each environment's training budget in environment steps
      (`budgets.resolve`); one count gives every environment that budget.
    overrides: agent-config values; each applies to the agents whose config
      has that key (at least one must).
    agent_overrides: per agent, config values for it alone (they win over
      `overrides`).
    presets: presets (names or files) to use instead of the pairs'
      defaults; ('none',): the agents' plain defaults; empty: every pair's
      default preset (`pair_settings`).
    eval_points: periodic greedy evaluations per run (learning curves).
    eval_episodes: greedy episodes of each run's final evaluation (score).
    periodic_eval_episodes: greedy episodes of each periodic evaluation.
    imports: the user's modules that register agents or environments used
      here (`--imports`).
    eval_protocol: how every evaluation acts (`--eval_policy`); its None
      fields: each pair's default (`setup.eval_defaults`).
    checkpoint_every_seconds, wandb_project: each run's checkpoint interval
      (wall time) and W&B project; not settings of the results (reruns may
      change them).
  """
  agents: Tuple[str, ...]
  envs: Tuple[str, ...]
  num_seeds: int
  num_steps: Union[int, Mapping[str, int]]
  overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  agent_overrides: Mapping[str, Mapping[str, Any]] = dataclasses.field(
      default_factory=dict)
  presets: Tuple[str, ...] = ()
  eval_points: int = 20
  eval_episodes: int = 200
  periodic_eval_episodes: int = 100
  imports: Tuple[str, ...] = ()
  eval_protocol: evaluation.Protocol = evaluation.RUN_DEFAULT
  checkpoint_every_seconds: float = (
      config_lib.ExperimentConfig.checkpoint_every_seconds)
  wandb_project: Optional[str] = None

  def __post_init__(self):
    for name in ('agents', 'imports', 'envs', 'presets'):
      object.__setattr__(self, name, tuple(getattr(self, name)))
    object.__setattr__(self, 'overrides', dict(sorted(self.overrides.items())))
    object.__setattr__(self, 'agent_overrides', {
        a: dict(sorted(v.items()))
        for a, v in sorted(self.agent_overrides.items())})
    budgets = (dict(self.num_steps) if isinstance(self.num_steps, Mapping)
               else {env: self.num_steps for env in self.envs})
    if set(budgets) != set(self.envs):
      raise ComparisonError(f'--num_steps: budgets for {sorted(budgets)}, '
                            f'but --envs is {",".join(self.envs)}.')
    object.__setattr__(self, 'num_steps',
                       {env: budgets[env] for env in self.envs})
    for name in ('agents', 'envs'):
      values = getattr(self, name)
      if not values:
        raise ComparisonError(f'--{name}: name at least one.')
      if len(set(values)) != len(values):
        raise ComparisonError(f'--{name}: {list(values)} names one twice.')
    for flag, value in [('seeds', self.num_seeds)] + [
        (n, getattr(self, n)) for n in ('eval_points', 'eval_episodes',
                                        'periodic_eval_episodes')] + [
            ('num_steps', s) for s in self.num_steps.values()]:
      if value < 1:
        raise ComparisonError(f'--{flag} must be >= 1; got {value}.')
    for env, steps in self.num_steps.items():
      if self.eval_points > steps:
        raise ComparisonError(
            f'--eval_points ({self.eval_points}) exceeds --num_steps '
            f'({steps} for {env}).')

  @property
  def seeds(self) -> Tuple[int, ...]:
    return tuple(range(self.num_seeds))

  def to_dict(self) -> Dict[str, Any]:
    """The settings as saved in `comparison.json` (checked on reruns)."""
    return {'agents': list(self.agents), 'envs': list(self.envs),
            'seeds': list(self.seeds), 'num_steps': dict(self.num_steps),
            'overrides': dict(self.overrides),
            'agent_overrides': {a: dict(v) for a, v in
                                self.agent_overrides.items()},
            'presets': list(self.presets),
            'eval_points': self.eval_points,
            'eval_episodes': self.eval_episodes,
            'periodic_eval_episodes': self.periodic_eval_episodes,
            'eval_protocol': dataclasses.asdict(self.eval_protocol),
            'imports': list(self.imports)}


def plan(comparison: Comparison, workdir: str) -> List[run_groups.RunGroup]:
  """The run groups of `comparison`, environment by environment.

  Raises:
    ComparisonError: listing every agent × environment pair that cannot run
      (and why), or an override no agent takes, before anything is written.
  """
  try:
    user_modules.import_modules(comparison.imports)
  except ValueError as e:
    raise ComparisonError(str(e)) from e
  for agent in comparison.agents:
    try:
      agent_registry.get(agent)
    except ValueError as e:
      raise ComparisonError(f'--agents: {e}') from e
  for env in comparison.envs:
    try:
      env_registry.check_name(env)
    except ValueError as e:
      raise ComparisonError(f'--envs: {e}') from e
  try:
    pair_settings.check_overrides(comparison.agents, comparison.overrides,
                                  comparison.agent_overrides)
    pair_settings.check_presets(comparison.presets, comparison.agents,
                                comparison.envs)
  except ValueError as e:
    raise ComparisonError(str(e)) from e
  workdir = os.path.abspath(workdir)
  batches = seed_batches(comparison, workdir)
  groups, problems = [], []
  for env in comparison.envs:
    try:
      spec = build_lib.spec_of(env)
    except ValueError as e:
      raise ComparisonError(f'--envs: {env}: {e}') from e
    for agent in comparison.agents:
      try:
        agent_registry.get(agent).check_action_space(spec)
        config = pair_settings.experiment_config(
            agent, env, num_steps=comparison.num_steps[env],
            eval_points=comparison.eval_points,
            eval_episodes=comparison.eval_episodes,
            periodic_eval_episodes=comparison.periodic_eval_episodes,
            checkpoint_every_seconds=comparison.checkpoint_every_seconds,
            wandb_project=comparison.wandb_project,
            eval_protocol=comparison.eval_protocol,
            imports=comparison.imports, presets=comparison.presets,
            common=comparison.overrides,
            per_agent=comparison.agent_overrides)
        build_lib.make_agent(config, spec)  # Refusals before any run.
        for i, (first, count) in enumerate(batches):
          groups.extend(run_groups.groups_for(
              dataclasses.replace(config, seed=first), count, workdir,
              added=i > 0))
      except ValueError as e:  # ExperimentError included.
        problems.append(f'{agent} on {env}: {e}')
  if problems:
    raise ComparisonError(
        'These agent × environment pairs cannot run; drop them from --agents '
        '/ --envs or change the settings named:\n  ' + '\n  '.join(problems))
  return groups


def _saved(workdir: str) -> Optional[Dict[str, Any]]:
  """The workdir's `comparison.json`, or None if it has none."""
  path = os.path.join(workdir, FILENAME)
  if not os.path.exists(path):
    return None
  return _unstamped(_read_json(
      path, 'Restore it (rerunning the same command rewrites it from the '
      'flags once it reads), or use a new --workdir.'), workdir)


def _unstamped(saved: Dict[str, Any], workdir: str) -> Dict[str, Any]:
  try:
    return workdir_format.unstamped(saved, workdir)
  except workdir_format.OtherFormat as e:
    raise ComparisonError(str(e)) from e


def seed_batches(comparison: Comparison,
                 workdir: str) -> List[Tuple[int, int]]:
  """(first seed, number of seeds) of each program batch: the saved
  comparison's, then the seeds `comparison` adds to it."""
  saved = _saved(workdir)
  batches = ([tuple(b) for b in saved.get(
      'seed_batches', [[0, len(saved.get('seeds', []))]])] if saved else [])
  trained = sum(count for _, count in batches)
  if comparison.num_seeds > trained:
    batches.append((trained, comparison.num_seeds - trained))
  return batches


def check_workdir(comparison: Comparison,
                  groups: Sequence[run_groups.RunGroup],
                  workdir: str) -> None:
  """Refuses a workdir of another comparison; writes nothing.

  Raises:
    ComparisonError: naming the settings that differ.
  """
  saved = _saved(workdir)
  if saved is not None:
    saved['eval_protocol'] = _as_now(saved.get('eval_protocol', {}),
                                     comparison)
    current = comparison.to_dict()
    if len(current['seeds']) < len(saved.get('seeds', [])):
      raise ComparisonError(
          f'--seeds: --workdir {workdir!r} holds {len(saved["seeds"])} '
          f'seeds of this comparison; --seeds={len(current["seeds"])} '
          f'would drop some. Give at least {len(saved["seeds"])} (more '
          f'seeds are added to it, the others kept).')
    saved['seeds'] = current['seeds']  # More seeds extend it.
    refusal = config_drift.study_mismatch(saved, current, workdir,
                                          'comparison')
    if refusal:
      raise ComparisonError(refusal)
    for group in groups:  # Each run's own config must match too.
      _check_group_workdir(group)


def _as_now(saved: Mapping[str, Any],
            comparison: Comparison) -> Dict[str, Any]:
  """A saved protocol as `comparison` states its own where they mean the
  same runs: ε counts for ε-greedy only."""
  now = dataclasses.asdict(comparison.eval_protocol)
  policy = saved.get('policy')
  if policy == now['policy'] and policy != 'epsilon_greedy':
    return now
  return dict(saved)


def prepare_workdir(comparison: Comparison,
                    groups: Sequence[run_groups.RunGroup],
                    workdir: str, command: str) -> None:
  """Writes `comparison.json`, or refuses a workdir of another comparison
  (`check_workdir`)."""
  check_workdir(comparison, groups, workdir)
  batches = seed_batches(comparison, workdir)
  os.makedirs(workdir, exist_ok=True)
  runs = [{'agent': g.config.agent, 'env': g.config.env, 'seed': seed,
           'directory': os.path.relpath(directory, os.path.abspath(workdir))}
          for g in groups for seed, directory in zip(g.seeds, g.seed_dirs)]
  atomic_files.write_json(os.path.join(workdir, FILENAME),
                          workdir_format.stamped({
                              **comparison.to_dict(), 'command': command,
                              'seed_batches': [list(b) for b in batches],
                              'warnings': budgets.warnings(
                                  g.config for g in groups),
                              # Each seed: agent, env, seed, its directory.
                              'runs': runs}))


def _read_json(path: str, what: str) -> Dict[str, Any]:
  """A JSON object file, or ComparisonError naming it and the fix."""
  try:
    return atomic_files.read_json_object(path)
  except (OSError, ValueError) as e:
    raise ComparisonError(
        f'{path} cannot be read ({e}). {what}') from e


def _check_group_workdir(group: run_groups.RunGroup) -> None:
  path = os.path.join(group.workdir, 'config.json')
  if not os.path.exists(path):
    return
  saved = _read_json(path, 'Restore it, or move that run directory aside '
                     'to train it afresh.')
  differing = config_drift.differences(saved, group.config)
  if differing:
    raise ComparisonError(
        f'{group.workdir} holds a run with other settings '
        f'({"; ".join(differing)}). Use a new --workdir.')


def load(workdir: str) -> Dict[str, Any]:
  """The saved `comparison.json` of `workdir`, with its `imports` done."""
  path = os.path.join(workdir, FILENAME)
  if not os.path.exists(path):
    raise ComparisonError(
        f'No {FILENAME} in {workdir!r}; is it the --workdir of '
        f'experiments.compare?')
  saved = _unstamped(_read_json(
      path, 'Rerun experiments.compare with the same flags and a new '
      '--workdir, or restore the file.'), workdir)
  try:
    user_modules.import_modules(saved.get('imports', ()))
  except ValueError as e:
    raise ComparisonError(f'{path}: {e}') from e
  return saved
