"""The settings of the commands that train and score many runs: `compare`
(`CompareSettings`) and `sweep` (`SweepSettings`), each declared once
(`setup.settings`): their flags and `experiments.api`'s keywords are made
from these fields, and given values are checked against them.

What both commands share (how runs are evaluated and scored, the launcher)
is declared in `StudySettings`; what they share with `train` (the
evaluation protocol, Weights & Biases) is `TrainSettings`' declaration.
"""

import dataclasses
from typing import Any, Mapping, Optional, Sequence

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.comparison import budgets
from experiments.comparison import launchers
from experiments.comparison import statistics
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import settings as settings_lib
from experiments.setup import train_settings

_setting = settings_lib.setting
_TRAIN = train_settings.TrainSettings


@dataclasses.dataclass(frozen=True)
class StudySettings:
  """What `compare` and `sweep` share: how each run is evaluated and
  scored, and where the runs go."""
  config: Mapping[str, Any] = _setting(factory=dict, flag=False)
  imports: Sequence[str] = _setting((), flag=False)
  eval_episodes: int = _setting(
      200, 'Greedy episodes of the final evaluation, the run\'s score.',
      lower=1)
  periodic_eval_episodes: int = _setting(
      100, 'Greedy episodes of each evaluation along the way.', lower=1)
  eval_policy: Optional[str] = settings_lib.same_as(_TRAIN, 'eval_policy')
  eval_epsilon: Optional[float] = settings_lib.same_as(_TRAIN,
                                                       'eval_epsilon')
  bootstrap_reps: int = _setting(
      statistics.DEFAULT_REPS,
      'Bootstrap resamples of each confidence interval.', lower=100)
  progress: bool = _setting(True, 'Progress bars (local launcher).')
  launcher: str = _setting(
      'local', 'local: one after another in this process; ray: Ray tasks '
      '(pip install -e .[ray]).', choices=launchers.LAUNCHERS)
  ray_address: Optional[str] = _setting(
      None, 'Ray cluster address, e.g. ray://head:10001 or auto; default: '
      'start a local one.')
  wandb_project: Optional[str] = settings_lib.same_as(_TRAIN,
                                                      'wandb_project')


@dataclasses.dataclass(frozen=True)
class CompareSettings(StudySettings):
  """`experiments.compare`'s settings (and `api.compare`'s keywords)."""
  agents: Optional[Sequence[str]] = _setting(None, lambda: (
      f'Agents to compare, from {", ".join(agent_registry.names())}. '
      'Default: every agent that acts in the action spaces of all of --envs '
      '(each agent\'s registry entry says which it acts in).'))
  envs: Sequence[str] = _setting(('catch', 'plane_strike'), lambda: (
      f'Environments: {env_registry.describe_names()} (bsuite: and gym: '
      f'step in Python, one seed per task), or ones registered by '
      f'--imports.'))
  seeds: int = _setting(5, 'Seeds 0 … N-1 of every pair. Rerun a finished '
                        'comparison with more to add seeds; the others are '
                        'kept.', lower=1)
  # A count, `{env: count}` or the flag's text: `budgets.resolve` reads it.
  num_steps: budgets.Given = _setting(
      None, 'Environment steps per run: one count for every environment '
      '(e.g. 400000), or <env>:<steps>,... for some (e.g. '
      'plane_strike:2000000,catch:20000). Default, for each environment not '
      'given: the largest budget the compared agents\' presets were tuned '
      f'at on it ({budgets.DEFAULT_STEPS:,} where none has a preset). A '
      'warning names each agent run below its preset\'s budget or whose '
      'schedules (e.g. DQN\'s ε decay) the budget cuts short.',
      flag_type=str)
  preset: Optional[Sequence[str]] = _setting(None, lambda: (
      'Presets instead of the pairs\' defaults (names or .json files, each '
      'used for its own agent and environment), or none for the agents\' '
      'plain defaults. Default: each pair\'s preset, where it has one '
      f'({", ".join(preset_registry.names())}).'))
  eval_points: int = _setting(
      20, 'Greedy evaluations per run (learning curves).', lower=1)
  checkpoint_every_seconds: float = _setting(
      config_lib.ExperimentConfig.checkpoint_every_seconds,
      'Each run checkpoints at least this often (wall time), so a killed '
      'comparison loses at most about this much training per running task.',
      lower=1)
  ray_num_cpus: float = _setting(1, 'CPUs each Ray task reserves.', lower=0)
  ray_num_gpus: float = _setting(0, 'GPUs each Ray task reserves.', lower=0)
  ray_max_retries: int = _setting(2, 'Retries of a failed Ray task.',
                                  lower=0)


@dataclasses.dataclass(frozen=True)
class SweepSettings(StudySettings):
  """`experiments.sweep`'s settings (and `api.sweep`'s keywords)."""
  env_config: Mapping[str, Any] = _setting(factory=dict, flag=False)
  agent: str = _setting('ppo', lambda: (
      f'Agent to sweep: one of {", ".join(agent_registry.names())}.'))
  env: str = _setting('plane_strike', lambda: (
      f'Environment: {env_registry.describe_names()}.'))
  # `{'learning_rate': [1e-3, 3e-4], …}` too: `search_space` reads it.
  grid: Any = _setting(
      factory=tuple, help='<key>:<v1>,<v2>,...: values of an agent setting, '
      'crossed with the other --grid keys (repeat the flag per key).',
      flag_type=Sequence[str], repeated=True)
  random: Sequence[str] = _setting(
      factory=tuple, help='<key>:uniform:<low>:<high>, <key>:log_uniform:'
      '<low>:<high> or <key>:choice:<v1>,<v2>: drawn --num_random times.',
      repeated=True)
  num_random: int = _setting(0, 'Random configurations drawn (each crossed '
                             'with the grid).', lower=0)
  search_seed: int = _setting(0, 'Seed of the random draws.', lower=0)
  seeds: int = _setting(3, 'Seeds 0 … N-1 of every configuration.', lower=1)
  held_out_seeds: Optional[int] = _setting(
      None, 'Then train the best configuration on this many fresh seeds '
      '(N …), which the ranking never saw, and report that score beside '
      'the one it was picked by; default: as many as --seeds; 0: skip.',
      lower=0)
  num_steps: Optional[int] = _setting(
      None, 'Environment steps per run; default: the preset\'s budget.',
      lower=1)
  preset: Optional[str] = _setting(
      None, 'Settings every configuration starts from, as train\'s --preset '
      '(default: the pair\'s preset; none: the agent\'s defaults).')
  preset_on_other_env: bool = settings_lib.same_as(_TRAIN,
                                                   'preset_on_other_env')
  eval_points: int = _setting(
      10, 'Greedy evaluations per run (learning curves).', lower=1)
  max_memory_gb: Optional[float] = _setting(
      None, 'Refuse a program whose lanes need more memory than this '
      '(estimated); default: half of this machine\'s.', lower=1e-4)
