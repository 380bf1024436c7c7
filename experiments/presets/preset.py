"""A preset: the settings an agent was tuned with on one environment.

A preset names the agent-config values, network and environments per seed
that an (agent, environment) pair trains best with, the budget they were
tuned for, and where they came from (the sweep command, or a reference),
so a reported number can always be traced to how its settings were
chosen. A preset holds settings only: what they measure lives in the
benchmark docs (docs/benchmarks/), re-measured with the code. Presets are JSON-ready: `experiments.sweep` writes the best
configuration of a sweep as a preset file, and `--preset=<file>.json` reads
one (`registry.resolve`).
"""

import dataclasses
import json
from typing import Any, Dict, Mapping, Optional, Tuple

from agents import registry as agent_registry
from environments import registry as env_registry

# Keys of a preset file, as `Preset.to_dict` writes them.
FIELDS = ('name', 'agent', 'env', 'config', 'network', 'hidden_sizes',
          'num_envs', 'num_steps', 'num_episodes', 'default', 'source')


@dataclasses.dataclass(frozen=True)
class Preset:
  """Tuned settings of one agent on one environment.

  Attributes:
    name: the name `--preset` takes, e.g. 'ppo_plane_strike'.
    agent: the agent it tunes (`agents.registry.names()`).
    env: the environment it was tuned on.
    config: agent-config values that differ from the agent's defaults.
    network: a registered network of the agent's kind; None: the agent's.
    hidden_sizes: network widths; None: the environment's default.
    num_envs: environments per seed in the compiled loop; None: the
      agent's batch size.
    num_steps: the budget (environment steps) it was tuned for; `train`
      uses it when no budget flag is given.
    num_episodes: the budget in episodes, for presets tuned that way.
    default: used by `train` and `compare` for (agent, env) unless
      `--preset` says otherwise; at most one per pair.
    source: how the settings were found (the sweep command and its
      outcome, or a reference).
  """
  name: str
  agent: str
  env: str
  config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  network: Optional[str] = None
  hidden_sizes: Optional[Tuple[int, ...]] = None
  num_envs: Optional[int] = None
  num_steps: Optional[int] = None
  num_episodes: Optional[int] = None
  default: bool = False
  source: str = ''

  def __post_init__(self):
    object.__setattr__(self, 'config', dict(sorted(self.config.items())))
    if self.hidden_sizes is not None:
      object.__setattr__(self, 'hidden_sizes', tuple(self.hidden_sizes))
    if not self.name or not isinstance(self.name, str):
      raise ValueError(f'Preset name must be a non-empty string; got '
                       f'{self.name!r}.')
    if self.name == 'none':
      raise ValueError('Preset name "none" is reserved (--preset=none: the '
                       'agent\'s plain defaults).')
    if self.num_steps is None and self.num_episodes is None:
      raise ValueError(f'Preset {self.name!r}: give the budget it was tuned '
                       f'for (num_steps or num_episodes).')
    for key in ('num_envs', 'num_steps', 'num_episodes'):
      value = getattr(self, key)
      if value is not None and (not isinstance(value, int) or value < 1):
        raise ValueError(f'Preset {self.name!r}: {key} must be a positive '
                         f'integer or null; got {value!r}.')

  def check(self) -> None:
    """Raises ValueError naming what of this preset does not exist here
    (agent, environment, config key or value, network)."""
    where = f'Preset {self.name!r}'
    try:
      agent_registry.get(self.agent)
      env_registry.check_name(self.env)
      agent_registry.make_config(self.agent, **self.config)
      if self.network is not None:
        agent_registry.network_entry(self.agent, self.network)
    except (ValueError, TypeError) as e:
      raise ValueError(f'{where}: {e}') from e

  def to_dict(self) -> Dict[str, Any]:
    """JSON-ready: the fields of a preset file."""
    values = dataclasses.asdict(self)
    values['config'] = dict(self.config)
    if self.hidden_sizes is not None:
      values['hidden_sizes'] = list(self.hidden_sizes)
    return {key: values[key] for key in FIELDS}


def from_dict(values: Mapping[str, Any], where: str) -> Preset:
  """A preset from a preset file's JSON object; `where` names the file in
  errors (unknown keys, missing ones, bad values)."""
  if not isinstance(values, Mapping):
    raise ValueError(f'{where}: a preset file holds one JSON object; got '
                     f'{type(values).__name__}.')
  unknown = sorted(set(values) - set(FIELDS))
  if unknown:
    hint = (' A preset holds settings, not results: delete "result" (a '
            'sweep\'s outcome is in its sweep_results.json and, from this '
            'version, in the preset\'s "source").'
            if 'result' in unknown else '')
    raise ValueError(f'{where}: unknown preset key(s) {unknown}; valid keys: '
                     f'{", ".join(FIELDS)}.{hint}')
  missing = [k for k in ('name', 'agent', 'env') if k not in values]
  if missing:
    raise ValueError(f'{where}: missing preset key(s) {missing}.')
  if not isinstance(values.get('config', {}), Mapping):
    raise ValueError(f'{where}: "config" must be an object of agent-config '
                     f'values.')
  try:
    preset = Preset(**values)
    preset.check()
  except (TypeError, ValueError) as e:
    raise ValueError(f'{where}: {e}') from e
  return preset


def read_file(path: str) -> Preset:
  """The preset in JSON file `path`; errors name the file and the fix."""
  try:
    with open(path, encoding='utf-8') as f:
      values = json.load(f)
  except (OSError, ValueError) as e:
    raise ValueError(f'Preset file {path!r} cannot be read ({e}). Pass a '
                     f'JSON preset file (e.g. one experiments.sweep wrote) '
                     f'or a registered preset name.') from e
  return from_dict(values, f'preset file {path!r}')
