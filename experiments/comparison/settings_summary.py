"""What each agent ran with, next to its defaults: the report's appendix.

A reader must be able to reproduce every number, and to see at a glance
which settings a preset or an override changed. Each pair's settings come
from its runs' own `result.json` (`report.run_settings`); the defaults are
the agent's config class as registered (`agents.registry.make_config`).
"""

import dataclasses
import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.comparison import tables
from experiments.loops import evaluation

NOT_RECORDED = 'not recorded'
# Rows above the agent config: (title, run-settings key); no defaults.
_RUN_ROWS = (('Preset', 'preset'), ('Network', 'network'),
             ('Hidden sizes', 'hidden_sizes'),
             ('Environments per seed', 'num_envs'),
             ('Evaluation', 'eval_protocol'))


def defaults(agent: str) -> Optional[Dict[str, Any]]:
  """Agent `agent`'s default config as JSON values (as `result.json` holds
  them: tuples become lists), or None for an agent not registered here."""
  try:
    config = agent_registry.make_config(agent)
  except ValueError:
    return None
  return json.loads(json.dumps(dataclasses.asdict(config)))


def differences(config: Mapping[str, Any], default: Mapping[str, Any]
               ) -> Dict[str, Dict[str, Any]]:
  """`{key: {'value', 'default'}}` of the keys of `config` whose value is
  not the default's (`default` None where the defaults lack the key)."""
  return {key: {'value': value, 'default': default.get(key)}
          for key, value in sorted(config.items())
          if key not in default or default[key] != value}


def with_defaults(run_settings: Mapping[str, Mapping[str, Mapping[str, Any]]]
                 ) -> Dict[str, Dict[str, Dict[str, Any]]]:
  """`run_settings` (`{env: {agent: settings}}`) with, per pair,
  `defaults` (the agent's default config; None if unknown here) and
  `differs_from_defaults` (`differences`; None when either is unknown)."""
  out = {}
  for env, by_agent in run_settings.items():
    for agent, settings in by_agent.items():
      default = defaults(agent)
      config = settings.get('agent_config')
      out.setdefault(env, {})[agent] = {
          **settings, 'defaults': default,
          'differs_from_defaults': (
              None if default is None or config is None else
              differences(config, default))}
  return out


def value_text(value: Any) -> str:
  """A setting as people write it: None, True, 0.001, adam, 128x64."""
  if isinstance(value, float):
    return repr(value)
  if isinstance(value, (list, tuple)):
    return 'x'.join(map(str, value)) if value else '()'
  return str(value)


def agent_table(agent: str, envs: Sequence[str],
                run_settings: Mapping[str, Mapping[str, Mapping[str, Any]]]
               ) -> Optional[tables.Table]:
  """One agent's settings on each environment (a column each) beside its
  defaults; values that differ from the default are marked, and the last
  column names the environments where they differ. None without runs."""
  envs = [e for e in envs if agent in run_settings.get(e, {})]
  if not envs:
    return None
  pairs = {e: run_settings[e][agent] for e in envs}
  default = next((p['defaults'] for p in pairs.values()
                  if p.get('defaults') is not None), None)
  rows = []
  for title, key in _RUN_ROWS:
    cells = {e: _run_value(key, pairs[e].get(key)) for e in envs}
    rows.append({'setting': title, 'default': '',
                 'differs_from_default_on': '', **cells})
  keys = sorted({k for p in pairs.values()
                 for k in (p.get('agent_config') or {})} | set(default or {}))
  for key in keys:
    row = {'setting': key,
           'default': '' if default is None else
                      value_text(default[key]) if key in default else
                      'not a setting'}
    changed = []
    for env in envs:
      config = pairs[env].get('agent_config')
      if config is None:
        row[env] = NOT_RECORDED
        continue
      if key not in config:
        row[env] = 'not a setting'
        continue
      text = value_text(config[key])
      differs = key in (pairs[env].get('differs_from_defaults') or {})
      row[env] = tables.Marked(text) if differs else text
      if differs:
        changed.append(env_registry.title(env))
    row['differs_from_default_on'] = ', '.join(changed)
    rows.append(row)
  columns = ([tables.Column('Setting', 'setting'),
              tables.Column('Default', 'default')] +
             [tables.Column(env_registry.title(e), e) for e in envs] +
             [tables.Column('Differs from default on',
                            'differs_from_default_on')])
  return tables.Table(f'settings_{_file_safe(agent)}', tuple(columns),
                      tuple(rows))


def _run_value(key: str, value: Any) -> str:
  if key == 'eval_protocol':
    return evaluation.describe(value)
  if value is None:
    return {'preset': 'none (defaults)',
            'hidden_sizes': 'network default'}.get(key, NOT_RECORDED)
  return value_text(value)


def _file_safe(name: str) -> str:
  return ''.join(c if c.isalnum() or c in '-_' else '_' for c in name)


def difference_lines(agent: str, envs: Sequence[str],
                     run_settings: Mapping[str, Mapping[str, Mapping[str, Any]]]
                    ) -> List[str]:
  """Markdown bullets: per environment, the agent config keys that differ
  from the agent's defaults, each with its default."""
  out = []
  for env in envs:
    pair = run_settings.get(env, {}).get(agent)
    if pair is None:
      continue
    differs = pair.get('differs_from_defaults')
    if differs is None:
      what = ('not known: the agent config was not recorded'
              if pair.get('agent_config') is None else
              f'not known: agent {agent!r} is not registered in this process')
    elif not differs:
      what = 'none (the agent\'s defaults)'
    else:
      default = pair['defaults'] or {}
      what = ', '.join(
          f'`{key}` = {value_text(d["value"])} (default '
          f'{value_text(d["default"]) if key in default else "none"})'
          for key, d in differs.items())
    out.append(f'- {env_registry.title(env)}, preset '
               f'{pair.get("preset") or "none"}: {what}')
  return out
