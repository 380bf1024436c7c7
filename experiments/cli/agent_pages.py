r"""The generated parts of each agent's page (docs/agents/<agent>.md).

A page's prose (the paper, what the agent does, how to cite it) is written
by hand; what the code already says is drawn from it between markers, so
that it cannot drift: every setting with its default and meaning (the
config dataclass and its docstring, as `--helpconfig` shows them), the
action spaces and networks it takes (its registry entry), and its presets
(the preset registry). Redraw after changing any of them:

  python -m experiments.cli.agent_pages

and `tests/experiments/cli/agent_pages_test.py` fails on a page that is
not current.
"""

import dataclasses
import os
import re
import sys
from typing import Callable, Dict, List

from agents import registry as agent_registry
from experiments.cli import settings_help
from experiments.presets import registry as preset_registry
from networks import registry as network_registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PAGES = os.path.join(ROOT, 'docs', 'agents')
_MARKED = re.compile(
    r'(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)', re.S)


def _cell(text: str) -> str:
  return text.replace('|', '\\|').replace('\n', ' ')


def settings(agent: str) -> str:
  """Every config key with its default and its docstring's meaning."""
  entry = agent_registry.get(agent)
  docs = settings_help.attribute_docs(entry.config_class)
  defaults = agent_registry.make_config(agent)
  rows = ['| `--config.<key>` | default | meaning |', '| --- | --- | --- |']
  for field in dataclasses.fields(entry.config_class):
    value = settings_help.value_shown(getattr(defaults, field.name))
    rows.append(f'| `{field.name}` | `{_cell(value)}` | '
                f'{_cell(docs.get(field.name, ""))} |')
  return '\n'.join(rows)


def networks(agent: str) -> str:
  """Each action space the agent acts in, its network kind, default and
  the other registered networks of that kind."""
  entry = agent_registry.get(agent)
  rows = ['| actions | network kind | default `--network` | also |',
          '| --- | --- | --- | --- |']
  recurrent = []
  for space, (kind, default) in entry.networks.items():
    usable = [n for n in network_registry.names(kind) if n != default and (
        entry.recurrent or not network_registry.get(n).recurrent)]
    recurrent += [n for n in usable if network_registry.get(n).recurrent]
    rows.append(f'| {space} | `{kind}` | `{default}` | '
                f'{", ".join(f"`{n}`" for n in usable) or "—"} |')
  facts = []
  if recurrent:
    facts.append('takes recurrent networks (' +
                 ', '.join(f'`{n}`' for n in recurrent) + '), carrying '
                 'their state from step to step')
  if entry.trainable_on_device:
    facts.append('exports a model that keeps learning on the device '
                 '(`--export=trainable`)')
  if entry.learns_from_stale_actors:
    facts.append('corrects for actors ahead of the learner '
                 '(`--actor_thread`)')
  if entry.plans:
    facts.append('searches with the game\'s own JAX step, so it trains in '
                 'the compiled loop only, on games that hide nothing in '
                 'their state')
  if entry.self_play:
    facts.append('learns two-player games by self-play')
  tail = f'\n\nIt {"; it ".join(facts)}.' if facts else ''
  return '\n'.join(rows) + tail


def presets(agent: str) -> str:
  """The agent's presets: game, budget, whether it is the pair's
  default, and where its settings come from."""
  rows = ['| preset | environment | budget | default for the pair | source |',
          '| --- | --- | --- | --- | --- |']
  for name in preset_registry.names(agent):
    preset = preset_registry.get(name)
    budget = (f'{preset.num_steps:,} steps' if preset.num_steps else
              f'{preset.num_episodes:,} episodes')
    rows.append(f'| `{name}` | `{preset.env}` | {budget} | '
                f'{"yes" if preset.default else "no"} | '
                f'{_cell(preset.source or "")} |')
  return '\n'.join(rows)


SECTIONS: Dict[str, Callable[[str], str]] = {
    'settings': settings, 'networks': networks, 'presets': presets}


def page_path(agent: str) -> str:
  return os.path.join(PAGES, f'{agent}.md')


def redrawn(agent: str, text: str) -> str:
  """`text` (a page of `agent`) with every generated section redrawn.

  Raises:
    ValueError: a marker names no section, or a section is missing.
  """
  found: List[str] = []

  def draw(match: 're.Match[str]') -> str:
    name = match.group(2)
    if name not in SECTIONS:
      raise ValueError(f'{page_path(agent)}: unknown generated section '
                       f'{name!r}; sections: {", ".join(SECTIONS)}.')
    found.append(name)
    return f'{match.group(1)}{SECTIONS[name](agent)}\n{match.group(4)}'

  text = _MARKED.sub(draw, text)
  missing = sorted(set(SECTIONS) - set(found))
  if missing:
    raise ValueError(f'{page_path(agent)}: no generated section(s) '
                     f'{missing}; add <!-- generated: NAME --> … '
                     f'<!-- end generated --> for each.')
  return text


def main() -> None:
  for agent in agent_registry.names():
    path = page_path(agent)
    with open(path, encoding='utf-8') as f:
      text = f.read()
    new = redrawn(agent, text)
    if new != text:
      with open(path, 'w', encoding='utf-8') as f:
        f.write(new)
      print(f'{os.path.relpath(path, ROOT)}: redrawn')


if __name__ == '__main__':
  sys.exit(main())
