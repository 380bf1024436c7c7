"""Tests for experiments/cli/agent_pages.py: every agent has a page, and
what each page draws from the code is current."""

import os

import pytest

from agents import registry as agent_registry
from experiments.cli import agent_pages


@pytest.mark.parametrize('agent', agent_registry.names())
def test_every_agent_has_a_current_page(agent):
  path = agent_pages.page_path(agent)
  assert os.path.exists(path), (
      f'No page for agent {agent}: write {path} (see docs/agents/ppo.md), '
      f'then python -m experiments.cli.agent_pages.')
  with open(path, encoding='utf-8') as f:
    text = f.read()
  assert agent_pages.redrawn(agent, text) == text, (
      f'{path} is not current: python -m experiments.cli.agent_pages')
  for heading in ('## Built from', '## Results', '## Citation', '```bibtex'):
    assert heading in text, (path, heading)


def test_a_stale_or_broken_page_is_caught():
  with open(agent_pages.page_path('ppo'), encoding='utf-8') as f:
    text = f.read()
  stale = text.replace('| `discount` | `0.99` |', '| `discount` | `0.9` |')
  assert stale != text
  assert agent_pages.redrawn('ppo', stale) == text
  with pytest.raises(ValueError, match=r"unknown generated section "
                     r"'scores'; sections: settings, networks, presets"):
    agent_pages.redrawn('ppo', text + '<!-- generated: scores -->\n'
                        '<!-- end generated -->\n')
  with pytest.raises(ValueError, match=r"no generated section\(s\) "
                     r"\['presets'\]"):
    agent_pages.redrawn('ppo', text.replace('<!-- generated: presets -->',
                                            'presets:'))
