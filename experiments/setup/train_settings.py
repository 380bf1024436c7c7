"""The settings of one training run as a person gives them, and the
`ExperimentConfig` they make.

`experiments.train`'s flags and `experiments.api.train`'s keywords are the
same settings with the same names and defaults (a test holds them equal);
both build the run's config here, so the same settings give the same run.
What each setting means is its flag's help (`python -m experiments.train
--helpfull`; `--helpconfig` for the agent's and environment's keys).

The preset (`experiments.presets`) fills what the settings leave unset:
its agent config (under `config` overrides and the `learning_rate` and
`batch_size` shorthands), network, widths, environments per seed and, when
neither budget is given, its budget.
"""

import dataclasses
import inspect
import math
import typing
from typing import Any, Mapping, Optional, Sequence, Tuple

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import env_settings
from experiments.setup import extras
from experiments.setup import user_modules


class SettingError(ValueError):
  """A setting is unknown or out of range; the message names it as its flag
  (`--key`) and says what is valid."""


@dataclasses.dataclass(frozen=True)
class TrainSettings:
  """One training run's settings, named as `experiments.train`'s flags.

  `config` and `env_config` hold `--config.<key>` and `--env_config.<key>`
  values by key; `hidden_sizes` is a sequence of widths; `max_abs_param` 0
  checks only finiteness, as the flag does. The rest mean what their flags
  say (`python -m experiments.train --helpfull`).
  """
  agent: str = 'reinforce'
  env: str = 'plane_strike'
  preset: Optional[str] = None
  config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  env_config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  learning_rate: Optional[float] = None
  batch_size: Optional[int] = None
  network: Optional[str] = None
  hidden_sizes: Optional[Sequence[int]] = None
  seed: int = 0
  imports: Sequence[str] = ()
  num_steps: Optional[int] = None
  num_episodes: Optional[int] = None
  max_abs_param: float = config_lib.ExperimentConfig.max_abs_param
  eval_episodes: Optional[int] = None
  eval_every_steps: Optional[int] = None
  eval_every_episodes: Optional[int] = None
  periodic_eval_episodes: Optional[int] = (
      config_lib.ExperimentConfig.periodic_eval_episodes)
  eval_policy: str = config_lib.ExperimentConfig.eval_policy
  eval_epsilon: float = config_lib.ExperimentConfig.eval_epsilon
  export_tflite: bool = True
  export_check_episodes: Optional[int] = None
  log_every_steps: Optional[int] = None
  log_every_episodes: Optional[int] = None
  checkpoint_every_seconds: float = (
      config_lib.ExperimentConfig.checkpoint_every_seconds)
  checkpoint_every_updates: Optional[int] = None
  wandb_project: Optional[str] = None
  loop: Optional[str] = None
  num_envs: Optional[int] = None
  actor_thread: bool = False
  num_seeds: int = 1
  devices_per_seed: int = 1
  updates_per_chunk: Optional[int] = None


def with_settings(signature: inspect.Signature) -> inspect.Signature:
  """`signature` (of a function taking `**settings`) with every setting as a
  keyword of its own, with its default: what `help()` and notebooks show."""
  return signature.replace(parameters=[
      p for p in signature.parameters.values()
      if p.kind is not p.VAR_KEYWORD] + [
          inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                            default=(f.default_factory() if f.default_factory
                                     is not dataclasses.MISSING else f.default))
          for f in dataclasses.fields(TrainSettings)])


def names() -> Tuple[str, ...]:
  """The settings' names, in order."""
  return tuple(f.name for f in dataclasses.fields(TrainSettings))


# The flags' bounds (`experiments.train` and `cli.interval_flags` define
# them; tests/experiments/setup/train_settings_test.py holds them equal):
# `api.train` keywords are refused as their flags would be.
LOWER_BOUNDS = {
    'seed': 0, 'num_steps': 1, 'num_episodes': 1, 'batch_size': 1,
    'eval_episodes': 1, 'export_check_episodes': 1, 'eval_every_steps': 0,
    'eval_every_episodes': 0, 'log_every_steps': 0, 'log_every_episodes': 0,
    'periodic_eval_episodes': 1, 'eval_epsilon': 0, 'num_envs': 1,
    'num_seeds': 1, 'devices_per_seed': 1, 'updates_per_chunk': 1,
    'checkpoint_every_updates': 1, 'checkpoint_every_seconds': 1,
    'max_abs_param': 0}
UPPER_BOUNDS = {'seed': config_lib.MAX_SEED, 'eval_epsilon': 1}


def _kind(name: str) -> Tuple[type, bool]:
  """The type a setting's flag parses to, and whether None is allowed."""
  hint = typing.get_type_hints(TrainSettings)[name]
  optional = type(None) in typing.get_args(hint)
  if optional:
    hint = next(a for a in typing.get_args(hint) if a is not type(None))
  return hint, optional


def _check_types(settings: TrainSettings) -> None:
  """Each scalar setting is of its flag's type (a bool is not a count, a
  string not a number) and within its flag's bounds."""
  for field in dataclasses.fields(TrainSettings):
    name, value = field.name, getattr(settings, field.name)
    kind, optional = _kind(name)
    optional = optional or field.default is None
    if value is None and optional:
      continue
    if kind is bool:
      if not isinstance(value, bool):
        raise SettingError(f'--{name}: must be True or False; got '
                           f'{value!r}.')
      continue
    if kind is str:
      if not isinstance(value, str):
        raise SettingError(f'--{name}: a name (a string) is needed; got '
                           f'{value!r}.')
      continue
    if kind not in (int, float):
      continue  # Sequences and mappings: `_check_values`.
    number = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, number) or (
        kind is float and not math.isfinite(value)):
      raise SettingError(
          f'--{name}: must be {"an integer" if kind is int else "a finite number"}'
          f'{"" if name not in LOWER_BOUNDS else f" >= {LOWER_BOUNDS[name]}"}'
          f'{" (or None)" if optional else ""}; got {value!r}.')
    low, high = LOWER_BOUNDS.get(name), UPPER_BOUNDS.get(name)
    if (low is not None and value < low) or (high is not None and
                                             value > high):
      shown = '2^63 - 1' if high == config_lib.MAX_SEED else high
      bounds = (f'>= {low}' if high is None else
                f'between {low} and {shown}')
      raise SettingError(f'--{name}: must be {bounds}; got {value!r}.')


def _check_values(settings: TrainSettings) -> None:
  """What the flags' own parsers and validators check, for callers without
  flags."""
  _check_types(settings)
  if settings.hidden_sizes is not None and (
      isinstance(settings.hidden_sizes, (str, bytes)) or
      not isinstance(settings.hidden_sizes, Sequence) or not all(
          isinstance(s, int) and not isinstance(s, bool) and s > 0
          for s in settings.hidden_sizes)):
    raise SettingError(f'--hidden_sizes: must be positive integers, e.g. '
                       f'(64, 64); got {settings.hidden_sizes!r}.')
  for key in ('config', 'env_config'):
    if not isinstance(getattr(settings, key), Mapping):
      raise SettingError(f'--{key}: a mapping of key to value is needed, '
                         f'e.g. {{"learning_rate": 3e-4}}; got '
                         f'{getattr(settings, key)!r}.')
  if isinstance(settings.imports, str):
    raise SettingError(f'--imports: a list of modules or files is needed; '
                       f'got the string {settings.imports!r}.')
  if settings.export_tflite:
    try:
      extras.require('export', '--export_tflite (on by default)',
                     'or pass --noexport_tflite')
    except extras.MissingExtra as e:
      raise SettingError(str(e)) from e


def experiment_config(settings: TrainSettings
                     ) -> config_lib.ExperimentConfig:
  """The run's config: the preset's values, then the settings'.

  Raises:
    SettingError: naming the bad setting and what is valid, before
      anything is built or written.
  """
  _check_values(settings)
  try:
    user_modules.import_modules(settings.imports)
  except ValueError as e:
    raise SettingError(str(e)) from e
  for key, check in (('agent', agent_registry.get),
                     ('env', env_registry.check_name)):
    try:
      check(getattr(settings, key))
    except ValueError as e:
      raise SettingError(f'--{key}: {e}') from e
  try:
    preset = preset_registry.resolve(settings.preset, settings.agent,
                                     settings.env)
  except ValueError as e:
    raise SettingError(f'--preset: {e}') from e
  shorthands = {key: getattr(settings, key)
                for key in ('learning_rate', 'batch_size')
                if getattr(settings, key) is not None}
  try:
    agent_config = agent_registry.make_config(
        settings.agent, **{**(preset.config if preset else {}),
                           **settings.config, **shorthands})
  except (TypeError, ValueError) as e:
    named = [key for key in shorthands if f'.{key} ' in str(e)]
    raise SettingError(f'--{named[0] if named else "config"}: {e}') from e
  try:
    env_settings.check_values(settings.env, settings.env_config)
  except ValueError as e:
    raise SettingError(str(e)) from e
  try:
    config = _config(settings, agent_config, preset)
  except (TypeError, ValueError) as e:
    raise SettingError(f'Bad setting: {e}') from e
  if settings.eval_epsilon is not None and (
      config.eval_policy != 'epsilon_greedy'):
    raise SettingError(
        f'--eval_epsilon: applies to --eval_policy=epsilon_greedy only; '
        f'this run evaluates with {config.eval_policy!r}. Set '
        f'--eval_policy=epsilon_greedy, or leave --eval_epsilon unset.')
  return config


def _config(settings: TrainSettings, agent_config: Any,
            preset: Optional[preset_registry.Preset]
           ) -> config_lib.ExperimentConfig:
  num_episodes, num_steps = settings.num_episodes, settings.num_steps
  if num_episodes is None and num_steps is None:
    if preset is not None:
      num_episodes, num_steps = preset.num_episodes, preset.num_steps
    else:
      num_episodes = config_lib.ExperimentConfig.num_episodes
  preset_envs = (preset.num_envs if preset and settings.loop != 'python' and
                 env_registry.has_functional(settings.env) else None)
  hidden_sizes = (None if settings.hidden_sizes is None
                  else tuple(settings.hidden_sizes))
  return config_lib.ExperimentConfig(
      agent=settings.agent,
      env=settings.env,
      seed=settings.seed,
      agent_config=agent_config,
      preset=preset and preset.name,
      env_kwargs=dict(settings.env_config),
      network=settings.network or (preset and preset.network),
      hidden_sizes=hidden_sizes or (preset and preset.hidden_sizes),
      num_episodes=num_episodes,
      num_steps=num_steps,
      eval_episodes=settings.eval_episodes,
      export_check_episodes=settings.export_check_episodes,
      **{key: getattr(settings, key)
         for key in config_lib.INTERVAL_KEYS + ('periodic_eval_episodes',)},
      eval_policy=settings.eval_policy,
      eval_epsilon=settings.eval_epsilon,
      export_tflite=settings.export_tflite,
      loop=settings.loop,
      num_envs=settings.num_envs or preset_envs,
      actor_thread=settings.actor_thread,
      num_seeds=settings.num_seeds,
      devices_per_seed=settings.devices_per_seed,
      updates_per_chunk=settings.updates_per_chunk,
      checkpoint_every_updates=settings.checkpoint_every_updates,
      checkpoint_every_seconds=settings.checkpoint_every_seconds,
      max_abs_param=settings.max_abs_param or None,
      imports=tuple(user_modules.normalise(entry)
                    for entry in settings.imports),
      wandb_project=settings.wandb_project)
