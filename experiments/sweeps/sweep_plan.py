"""A sweep planned as run groups: one compiled program per shape group.

Configurations that differ only in settings a lane can hold as arrays
(`AgentEntry.sweepable_keys`: learning rate, discount, λ, costs, ε…)
are one shape group: its trials × seeds train side by side in one XLA
program (`ExperimentConfig.trials`). Settings that change shapes or code
(batch, unroll, epochs, widths, loss…) split the sweep into groups, one
program each. Environments without a JAX core run one program per
configuration and seed, as `experiments.compare` runs them (locally or on
Ray).

Workdir layout:

  sweep.json                         settings, configurations and groups
  groups/group_<g>/                  a compiled group: config.json, ...
  groups/group_<g>/trial_<t>/seed_<n>/   result.json, eval.csv of one lane
  groups/config_<c>/seed_<n>/        a Python-loop configuration's seed
"""

import dataclasses
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import jax
import numpy as np

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.comparison import run_groups
from experiments.presets import preset as preset_lib
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import config_drift
from experiments.setup import eval_defaults
from experiments.storage import atomic_files
from experiments.storage import workdir_format

FILENAME = 'sweep.json'


class SweepError(ValueError):
  """A sweep that cannot run as asked; raised before anything runs."""


@dataclasses.dataclass(frozen=True)
class Sweep:
  """What a sweep trains: every configuration × every seed.

  Attributes:
    agent, env: the agent and environment.
    env_kwargs: the environment's settings (`--env_config.*`).
    configurations: swept values, one dict per configuration.
    base: the agent-config values every configuration starts from (the
      preset's, then `--config.*` flags).
    preset: the preset `base` came from, or None.
    preset_on_other_env: that preset was tuned on another environment
      (`--preset_on_other_env`); each run's config records it.
    num_seeds: seeds 0 … num_seeds-1 of each configuration.
    num_steps: training budget of every run.
    eval_points: periodic greedy evaluations per run (learning curves).
    eval_episodes: greedy episodes of the final evaluation (the score).
    periodic_eval_episodes: greedy episodes of each periodic evaluation.
    eval_policy, eval_epsilon: how evaluations act (`--eval_policy`);
      None: the run's default (`setup.eval_defaults`), resolved here.
    network, hidden_sizes, num_envs: from the preset (None: defaults).
    checkpoint_every_seconds: each program's checkpoint interval.
    wandb_project: also log every run to this Weights & Biases project.
  """
  agent: str
  env: str
  configurations: Tuple[Mapping[str, Any], ...]
  base: Mapping[str, Any]
  preset: Optional[str]
  num_seeds: int
  num_steps: int
  eval_points: int = 10
  eval_episodes: int = 200
  periodic_eval_episodes: int = 100
  eval_policy: Optional[str] = None
  eval_epsilon: Optional[float] = None
  network: Optional[str] = None
  hidden_sizes: Optional[Tuple[int, ...]] = None
  num_envs: Optional[int] = None
  checkpoint_every_seconds: float = 60.0
  env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  wandb_project: Optional[str] = None
  preset_on_other_env: bool = False

  def __post_init__(self):
    protocol = eval_defaults.protocol(
        agent_registry.get(self.agent), env_registry.resolve(self.env),
        self.eval_policy, self.eval_epsilon)
    object.__setattr__(self, 'eval_policy', protocol.policy)
    object.__setattr__(self, 'eval_epsilon', protocol.epsilon)

  def to_dict(self) -> Dict[str, Any]:
    """The settings as saved in `sweep.json` (checked on reruns)."""
    values = dataclasses.asdict(self)
    values['configurations'] = [dict(c) for c in self.configurations]
    values['base'] = dict(self.base)
    values['env_kwargs'] = dict(self.env_kwargs)
    values['hidden_sizes'] = (None if self.hidden_sizes is None else
                              list(self.hidden_sizes))
    del values['checkpoint_every_seconds']  # Reruns may change these.
    del values['wandb_project']
    if not self.preset_on_other_env:  # As sweeps saved before it say.
      del values['preset_on_other_env']
    return values


@dataclasses.dataclass(frozen=True)
class Lane:
  """Where one configuration's seed trains: its group and directory."""
  configuration: int
  seed: int
  group: int
  directory: str  # Relative to the sweep's workdir.


def _static_keys(sweep: Sweep) -> List[str]:
  """Swept keys that split groups: not sweepable, or None somewhere."""
  sweepable = set(agent_registry.get(sweep.agent).sweepable_keys())
  keys = sorted({k for c in sweep.configurations for k in c})
  return [k for k in keys if k not in sweepable or any(
      c.get(k) is None for c in sweep.configurations)]


def _config(sweep: Sweep, values: Mapping[str, Any],
            trials: Sequence[Mapping[str, float]] = (),
            seed: int = 0, num_seeds: int = 1
           ) -> config_lib.ExperimentConfig:
  compiled = env_registry.has_functional(sweep.env)
  try:
    agent_config = agent_registry.make_config(sweep.agent,
                                              **{**sweep.base, **values})
  except (TypeError, ValueError) as e:
    raise SweepError(f'Configuration {dict(values)}: {e}') from e
  return config_lib.ExperimentConfig(
      agent=sweep.agent, env=sweep.env, seed=seed,
      env_kwargs=dict(sweep.env_kwargs),
      agent_config=agent_config, preset=sweep.preset,
      preset_on_other_env=sweep.preset_on_other_env,
      network=sweep.network, hidden_sizes=sweep.hidden_sizes,
      num_envs=sweep.num_envs if compiled else None,
      num_episodes=None, num_steps=sweep.num_steps,
      eval_episodes=sweep.eval_episodes, eval_every_episodes=0,
      eval_every_steps=max(1, sweep.num_steps // sweep.eval_points),
      periodic_eval_episodes=sweep.periodic_eval_episodes,
      eval_policy=sweep.eval_policy, eval_epsilon=sweep.eval_epsilon,
      checkpoint_every_seconds=sweep.checkpoint_every_seconds,
      export_tflite=False, num_seeds=num_seeds if compiled else 1,
      trials=tuple(trials), wandb_project=sweep.wandb_project)


def plan(sweep: Sweep, workdir: str
        ) -> Tuple[List[run_groups.RunGroup], List[Lane]]:
  """The run groups of `sweep` and where each configuration's seeds land.

  Raises:
    SweepError: a configuration that is not valid for the agent (naming
      it), or a pair that cannot run.
  """
  workdir = os.path.abspath(workdir)
  static = _static_keys(sweep)
  by_shape: Dict[str, List[int]] = {}
  for index, configuration in enumerate(sweep.configurations):
    shape = json.dumps({k: configuration.get(k) for k in static},
                       sort_keys=True)
    by_shape.setdefault(shape, []).append(index)
  groups, lanes = [], []
  compiled = env_registry.has_functional(sweep.env)
  for shape, members in by_shape.items():
    fixed = json.loads(shape)
    varying = [{k: v for k, v in sweep.configurations[c].items()
                if k not in static} for c in members]
    if not compiled:
      for c in members:
        config = _config(sweep, sweep.configurations[c])
        directory = os.path.join(workdir, 'groups', f'config_{c}')
        for group in _checked(lambda: run_groups.groups_for(
            config, sweep.num_seeds, directory)):
          lanes.append(Lane(c, group.seeds[0], len(groups),
                            os.path.relpath(group.seed_dirs[0], workdir)))
          groups.append(group)
      continue
    if len(members) > 1 and not varying[0]:
      raise SweepError(f'Configurations {members} are identical '
                       f'({sweep.configurations[members[0]]}): draw fewer '
                       f'random configurations or widen their ranges.')
    trials = varying if len(members) > 1 else ()
    config = _checked(lambda: _config(sweep, {**fixed, **(
        varying[0] if not trials else {})}, trials,
                                      num_seeds=sweep.num_seeds))
    directory = os.path.join(workdir, 'groups', f'group_{len(groups)}')
    names = build_lib.lane_names(config)
    seed_dirs = tuple(os.path.join(directory, n).rstrip(os.sep)
                      for n in names)
    _checked(lambda: build_lib.make_loop(build_lib.build(config)))
    for lane, (seed, seed_dir) in enumerate(zip(build_lib.seeds(config),
                                                seed_dirs)):
      member = members[lane // sweep.num_seeds] if trials else members[0]
      lanes.append(Lane(member, seed, len(groups),
                        os.path.relpath(seed_dir, workdir)))
    groups.append(run_groups.RunGroup(config, directory, seed_dirs))
  return groups, lanes


HELD_OUT = 'held_out'


def held_out_directory(workdir: str, configuration: int) -> str:
  """Where configuration `configuration`'s fresh seeds train."""
  return os.path.join(os.path.abspath(workdir), HELD_OUT,
                      f'config_{configuration}')


def held_out_groups(sweep: Sweep, configuration: int, num_seeds: int,
                    workdir: str) -> List[run_groups.RunGroup]:
  """The programs that train configuration `configuration` again on
  `num_seeds` seeds the sweep never ranked on (`sweep.num_seeds` …), so
  that its score is not the maximum of noisy estimates it was picked by."""
  config = _checked(lambda: _config(
      sweep, sweep.configurations[configuration], seed=sweep.num_seeds))
  return _checked(lambda: run_groups.groups_for(
      config, num_seeds, held_out_directory(workdir, configuration)))


def _checked(make):
  try:
    return make()
  except ValueError as e:
    raise SweepError(str(e)) from e


def lane_bytes(config: config_lib.ExperimentConfig) -> int:
  """Estimated device memory of one lane of a compiled group: its state,
  and three times one update's trajectory (observations are read twice,
  intermediates of the update); an estimate, not a measurement."""
  built = build_lib.build(config)
  loop = build_lib.make_loop(built)
  key = jax.random.PRNGKey(0)
  state = jax.eval_shape(loop.loop.init, key, key)
  state_bytes = sum(np.prod(x.shape) * x.dtype.itemsize
                    for x in jax.tree.leaves(state))
  observation = int(np.prod(built.environment_spec.observations.shape))
  steps = loop.loop.steps_per_update()
  return int(state_bytes + 3 * steps * (2 * observation + 16) * 4)


def default_max_memory_gb() -> float:
  """The memory a sweep's program may need by default: half of this
  machine's, in GiB."""
  physical = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
  return round(physical / 2**30 / 2, 1)


def check_memory(groups: Sequence[run_groups.RunGroup],
                 limit_bytes: int) -> None:
  """Refuses a compiled group whose lanes would not fit in `limit_bytes`,
  naming the group's fixed settings and the fix."""
  for index, group in enumerate(groups):
    config = group.config
    if config.loop != 'compiled':
      continue
    lanes = len(build_lib.seeds(config))
    needed = lanes * lane_bytes(config)
    if needed > limit_bytes:
      raise SweepError(
          f'Shape group {index} ({lanes} lanes: '
          f'{max(1, len(config.trials))} configurations × '
          f'{config.num_seeds} seeds, batch of '
          f'{build_lib.build(config).agent.data.batch_size}) needs about '
          f'{needed / 2**30:.1f} GiB, over --max_memory_gb '
          f'({limit_bytes / 2**30:.1f} GiB). Sweep fewer values of the '
          f'settings that vary inside a group, fewer seeds, or raise '
          f'--max_memory_gb.')


def prepare_workdir(sweep: Sweep, lanes: Sequence[Lane], workdir: str,
                    command: str) -> None:
  """Writes `sweep.json`, or refuses a workdir of another sweep."""
  path = os.path.join(workdir, FILENAME)
  if os.path.exists(path):
    saved = load(workdir)
    refusal = config_drift.study_mismatch(saved, sweep.to_dict(), workdir,
                                          'sweep')
    if refusal:
      raise SweepError(refusal)
  os.makedirs(workdir, exist_ok=True)
  atomic_files.write_json(path, workdir_format.stamped({
      **sweep.to_dict(), 'command': command,
      'lanes': [dataclasses.asdict(lane) for lane in lanes]}))


def load(workdir: str) -> Dict[str, Any]:
  """The saved `sweep.json` of `workdir`."""
  path = os.path.join(workdir, FILENAME)
  try:
    saved = atomic_files.read_json_object(path)
  except (OSError, ValueError) as e:
    raise SweepError(f'{path} cannot be read ({e}). Restore it, or rerun '
                     f'the sweep in a new --workdir.') from e
  try:
    return workdir_format.unstamped(saved, workdir)
  except workdir_format.OtherFormat as e:
    raise SweepError(str(e)) from e


def best_preset(sweep: Sweep, configuration: int, command: str,
                outcome: str) -> preset_lib.Preset:
  """The preset of a sweep's configuration, with where it came from: the
  sweep's command and `outcome` (its rank and score)."""
  return preset_lib.Preset(
      name=f'{sweep.agent}_{run_groups.path_safe(sweep.env)}_sweep',
      agent=sweep.agent, env=sweep.env,
      config={**sweep.base, **sweep.configurations[configuration]},
      network=sweep.network, hidden_sizes=sweep.hidden_sizes,
      num_envs=sweep.num_envs, num_steps=sweep.num_steps,
      source=f'{command} ({outcome})')
