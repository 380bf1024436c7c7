"""Tests for experiments/cli/settings_help.py (`--helpconfig`)."""

import dataclasses
from typing import Optional

from absl.testing import absltest

from agents import ppo
from agents import registry as agent_registry
from experiments.cli import settings_help


@dataclasses.dataclass(frozen=True)
class _Config:
  """A config.

  Attributes:
    rate: the step size, explained over
      two lines.
    low, high: the range.
    kind (str): a typed entry.

  Returns:
    nothing: a section after it, never read.
  """
  rate: float = 0.1
  low: int = 0
  high: int = 3
  kind: str = 'a'
  undocumented: Optional[int] = None


class DocstringSectionTest(absltest.TestCase):

  def test_reads_items_continuations_and_shared_lines(self):
    self.assertEqual(
        settings_help.docstring_section(_Config.__doc__),
        {'rate': 'the step size, explained over two lines.',
         'low': 'the range.', 'high': 'the range.',
         'kind': 'a typed entry.'})
    self.assertEqual(settings_help.docstring_section('No sections.'), {})
    self.assertEqual(settings_help.docstring_section(None), {})

  def test_a_shared_field_s_doc_stands_where_no_docstring_says_it(self):
    docs = settings_help.attribute_docs(ppo.PPOConfig)
    self.assertTrue(docs['bootstrap_time_limits'].startswith(
        'bootstrap through time limits'))
    self.assertNotIn('bootstrap_time_limits', settings_help.docstring_section(
        ppo.PPOConfig.__doc__))

  def test_every_agent_config_field_has_a_docstring_line(self):
    for name in agent_registry.names():
      config_class = agent_registry.get(name).config_class
      docs = settings_help.attribute_docs(config_class)
      self.assertEqual(set(docs), {f.name for f in
                                   dataclasses.fields(config_class)}, name)


class ConfigEntriesTest(absltest.TestCase):

  def test_a_key_without_a_docstring_line_shows_type_and_default(self):
    lines = settings_help.config_entries(_Config, _Config(high=5), 'config',
                                         {'rate': 0.5})
    self.assertEqual(lines[-1], '  --config.undocumented  (int; default: '
                     'none)')
    self.assertEqual(lines[0].splitlines(), [
        '  --config.rate  (float; default: 0.1; preset: 0.5)',
        '      the step size, explained over two lines.'])
    self.assertIn('(int; default: 5)', lines[2])
    self.assertIn("(str; default: 'a')", lines[3])


class FromArgvTest(absltest.TestCase):

  def test_ppo_on_plane_strike_lists_every_key_and_setting(self):
    text = settings_help.from_argv(
        ['prog', '--agent=ppo', '--env=plane_strike', '--helpconfig'],
        'reinforce', 'plane_strike', width=80)
    docs = settings_help.attribute_docs(ppo.PPOConfig)
    flat = ' '.join(text.split())
    for field in dataclasses.fields(ppo.PPOConfig):
      self.assertIn(f'--config.{field.name}  (', text)
      self.assertIn(' '.join(docs[field.name].split()), flat)
    self.assertIn('--config.learning_rate  (float; default: 0.00025;', text)
    self.assertIn('--config.discount  (float; default: 0.99; preset: 0.5)',
                  text)  # ppo_plane_strike's γ.
    self.assertIn('Preset ppo_plane_strike is used', flat)
    self.assertIn('--env_config.board_size  (int; default: 8)', text)
    self.assertIn('--env_config.max_steps  (int; default: none)', text)

  def test_preset_none_and_other_environments(self):
    text = settings_help.from_argv(
        ['prog', '--agent=dqn', '--env=gym:CartPole-v1', '--preset=none'],
        'reinforce', 'plane_strike', width=80)
    self.assertNotIn('preset:', text)
    self.assertIn('--config.epsilon_decay_steps  (int; default: 1000)', text)
    self.assertIn('cannot be listed', text)
    self.assertIn('no settings', settings_help.env_settings('bsuite:catch/0'))

  def test_unknown_names_are_refused_naming_the_flag(self):
    with self.assertRaisesRegex(ValueError, r"--agent: Unknown agent 'ppx'"):
      settings_help.from_argv(['prog', '--agent=ppx'], 'reinforce',
                              'plane_strike')
    with self.assertRaisesRegex(ValueError, r"--env: Unknown environment"):
      settings_help.from_argv(['prog', '--env', 'chess'], 'reinforce',
                              'plane_strike')
    with self.assertRaisesRegex(ValueError, r'--preset: '):
      settings_help.from_argv(['prog', '--preset=nope'], 'ppo',
                              'plane_strike')
    with self.assertRaisesRegex(ValueError, r"--agents: Unknown agent 'x'"):
      settings_help.for_agents(['prog', '--agents=ppo,x'], ['ppo'])

  def test_several_agents_get_their_own_prefix(self):
    text = settings_help.for_agents(['prog', '--agents=a2c,ppo'],
                                    agent_registry.names(), width=80)
    self.assertIn('--config.a2c.td_lambda  (float; default: 0.95)', text)
    self.assertIn('--config.ppo.clip_epsilon  (float; default: 0.2)', text)
    self.assertNotIn('--config.dqn.', text)


if __name__ == '__main__':
  absltest.main()
