"""`--helpconfig`: the keys `--config.<key>` and `--env_config.<key>` take,
each with its type, default and meaning.

An agent key's meaning is its line in the config dataclass's docstring
("Attributes:" section, e.g. `agents.ppo.PPOConfig`), or the `doc` of a
field several configs share (`agents.returns.bootstrap_time_limits_setting`),
so the settings are documented once, next to their defaults; a key
without either still shows its type and default. Environment settings come from
`environments.registry.settings` (a game's factory parameters, a gymnax
game's env params), with their factory's "Args:" lines where it has them.
"""

import dataclasses
import inspect
import re
import textwrap
import typing
from typing import Any, Dict, List, Optional, Sequence

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.cli import config_flags
from experiments.cli import env_config_flags
from experiments.cli import help_text
from experiments.presets import registry as preset_registry
from experiments.setup import env_settings as env_checks

# `name: text`, `name, other: text` or `name (type): text`.
_ITEM = re.compile(r'^([A-Za-z_][\w, ]*?)\s*(?:\([^)]*\))?:\s*(.*)$')


def docstring_section(doc: Optional[str],
                      section: str = 'Attributes') -> Dict[str, str]:
  """`{name: text}` of a Google-style docstring section ('Attributes',
  'Args'), continuation lines joined; names listed together share a text."""
  items, current = {}, []
  start, item_indent = None, None
  for line in inspect.cleandoc(doc or '').splitlines():
    stripped = line.strip()
    indent = len(line) - len(line.lstrip())
    if start is None:
      if stripped == f'{section}:':
        start = indent
      continue
    if not stripped:
      continue
    if indent <= start:
      break
    item_indent = indent if item_indent is None else item_indent
    match = _ITEM.match(stripped)
    if indent == item_indent and match:
      current = [n.strip() for n in match.group(1).split(',') if n.strip()]
      for name in current:
        items[name] = match.group(2)
    else:
      for name in current:
        items[name] += ' ' + stripped
  return {name: text.strip() for name, text in items.items()}


def attribute_docs(config_class: type) -> Dict[str, str]:
  """`{field: text}` of a config dataclass's 'Attributes', its base
  classes' included (a subclass's own text wins): C51Config documents its
  atoms, DQNConfig the rest; a field declared with a `doc` (e.g.
  `returns.bootstrap_time_limits_setting`) where no docstring says it."""
  docs = {field.name: field.metadata['doc']
          for field in dataclasses.fields(config_class)
          if 'doc' in field.metadata}
  for cls in reversed(config_class.__mro__):
    if dataclasses.is_dataclass(cls):
      docs.update(docstring_section(cls.__doc__))
  return docs


def _type_name(hint: Any) -> str:
  kind = config_flags.value_type(hint)
  return getattr(kind, '__name__', str(kind).replace('typing.', ''))


def value_shown(value: Any) -> str:
  """A default as typed on the command line (strings quoted)."""
  if value is None or isinstance(value, bool):
    return str(value).lower()
  return repr(value) if isinstance(value, (str, float)) else str(value)


def config_entries(config_class: type, defaults: Any, prefix: str,
                   preset_values: Optional[Dict[str, Any]] = None,
                   width: int = 80) -> List[str]:
  """One `--<prefix>.<key>` entry per field of dataclass `config_class`:
  type, default (from instance `defaults`), the preset's value, and the
  field's docstring line (none if it has none)."""
  docs = attribute_docs(config_class)
  hints = typing.get_type_hints(config_class)
  preset_values = preset_values or {}
  lines = []
  for field in dataclasses.fields(config_class):
    facts = [_type_name(hints[field.name]),
             f'default: {value_shown(getattr(defaults, field.name))}']
    if field.name in preset_values:
      facts.append(f'preset: {value_shown(preset_values[field.name])}')
    lines.append(help_text.entry(f'--{prefix}.{field.name}', facts,
                                 docs.get(field.name, ''), width))
  return lines


def agent_settings(agent: str, prefix: str = config_flags.FLAG_NAME,
                   preset: Optional[preset_registry.Preset] = None,
                   width: int = 80) -> str:
  """The config keys of `agent` as `--<prefix>.<key>` entries, with the
  values `preset` gives them marked."""
  config_class = agent_registry.get(agent).config_class
  intro = (f'Agent {agent} ({config_class.__name__}): '
           f'--{prefix}.<key>=<value> sets a key.')
  if preset:
    intro += (f' Preset {preset.name} is used (--preset=none: the agent\'s '
              f'defaults); it sets the values marked "preset".')
  return '\n'.join([textwrap.fill(intro, width)] + config_entries(
      config_class, agent_registry.make_config(agent), prefix,
      dict(preset.config) if preset else None, width))


def _factory_docs(env: str) -> Dict[str, str]:
  """'Args:' lines of a registered game's factory (class or __init__)."""
  entry = env_registry.get(env)
  factory = entry and (entry.make_core or entry.make_environment)
  if factory is None:
    return {}
  docs = docstring_section(inspect.getdoc(factory), 'Args')
  if inspect.isclass(factory):
    docs = {**docstring_section(inspect.getdoc(factory.__init__), 'Args'),
            **docs}
  return docs


def env_settings(env: str, width: int = 80) -> str:
  """The settings of environment `env` as `--env_config.<key>` entries."""
  name = env_config_flags.FLAG_NAME
  settings = env_registry.settings(env)
  if settings is None:
    return textwrap.fill(
        f'Environment {env}: --{name}.<key>=<value> passes a keyword to its '
        f'factory. Valid keys: {env_checks.describe_valid(env)}. Each '
        f'value is read as a Python literal; the environment is built once '
        f'before training, so a key or value it refuses is named then.',
        width)
  if not settings:
    return f'Environment {env}: no settings (its id fixes them).'
  docs = _factory_docs(env)
  title = f' ({env_registry.title(env)})' if env_registry.get(env) else ''
  lines = [textwrap.fill(
      f'Environment {env}{title}: --{name}.<key>=<value> sets one of its '
      f'settings.', width)]
  for key, parameter in settings.items():
    kind = env_config_flags.setting_type(parameter)
    default = (None if parameter.default is inspect.Parameter.empty else
               parameter.default)
    facts = [kind.__name__ if kind else 'a Python literal',
             f'default: {value_shown(default)}']
    lines.append(help_text.entry(f'--{name}.{key}', facts,
                                 docs.get(key, ''), width))
  return '\n'.join(lines)


def from_argv(argv: Sequence[str], default_agent: str, default_env: str,
              width: Optional[int] = None) -> str:
  """`--helpconfig` of a program of one agent and one environment (train,
  sweep): `--agent`, `--env` and `--preset` read from `argv`.

  Raises:
    ValueError: an unknown agent, environment or preset, naming the flag.
  """
  width = width or help_text.terminal_width()
  agent = config_flags.value_from_argv(argv, 'agent', default_agent)
  env = config_flags.value_from_argv(argv, 'env', default_env)
  for flag, check in (('agent', agent_registry.get),
                      ('env', env_registry.check_name)):
    try:
      check(agent if flag == 'agent' else env)
    except ValueError as e:
      raise ValueError(f'--{flag}: {e}') from e
  try:
    preset = preset_registry.resolve(
        config_flags.value_from_argv(argv, 'preset', None), agent, env,
        other_env=True)  # Its values are shown, whatever game it suits.
  except ValueError as e:
    raise ValueError(f'--preset: {e}') from e
  return '\n\n'.join([agent_settings(agent, preset=preset, width=width),
                      env_settings(env, width)]) + '\n'


def for_agents(argv: Sequence[str], default_agents: Sequence[str],
               width: Optional[int] = None) -> str:
  """`--helpconfig` of a program of several agents (`--agents`, compare):
  each agent's keys as `--config.<agent>.<key>`."""
  width = width or help_text.terminal_width()
  agents = [a for a in config_flags.value_from_argv(
      argv, 'agents', ','.join(default_agents)).split(',') if a]
  for agent in agents:
    try:
      agent_registry.get(agent)
    except ValueError as e:
      raise ValueError(f'--agents: {e}') from e
  intro = textwrap.fill(
      f'--{config_flags.FLAG_NAME}.<key>=<value> sets a key for every agent '
      f'whose config has it; --{config_flags.FLAG_NAME}.<agent>.<key>=<value>'
      f' for one agent (it wins). Each pair\'s preset, where it has one, '
      f'sets some keys first.', width)
  return '\n\n'.join([intro] + [
      agent_settings(a, f'{config_flags.FLAG_NAME}.{a}', width=width)
      for a in agents]) + '\n'

