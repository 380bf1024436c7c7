"""Tests for experiments/cli/help_text.py: grouped help, exit status 0, and
every entry point's flags in exactly one group."""

import ast
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys

from absl import flags
from absl.testing import absltest
import pytest

from experiments.cli import help_text

_REPO = pathlib.Path(__file__).resolve().parents[3]
_MODULE = 'experiments.fake_entry'  # Counts as a project module.


def _entry_points():
  """experiments/*.py and benchmarks/*.py modules that run as our programs
  (`benchmarks/peer_programs.py` and `benchmarks/replay_flashbax.py` run
  in the peers' and flashbax's environments, on argparse)."""
  return sorted(f'{p.parent.name}.{p.stem}'
                for folder in ('experiments', 'benchmarks')
                for p in (_REPO / folder).glob('*.py')
                if p.stem not in ('peer_programs', 'replay_flashbax') and
                "if __name__ == '__main__':" in p.read_text())


def _run(*args, **kwargs):
  return subprocess.run(
      [sys.executable, *args], capture_output=True, text=True, cwd=_REPO,
      check=False, env=dict(os.environ, PYTHONPATH=str(_REPO),
                            COLUMNS='80'), **kwargs)


def _fake_flags() -> flags.FlagValues:
  values = flags.FlagValues()
  flags.DEFINE_string('agent', 'ppo', 'Agent to train.', flag_values=values,
                      module_name=_MODULE)
  flags.DEFINE_integer('num_steps', None, 'Budget in steps. ' * 12,
                       lower_bound=1, flag_values=values, module_name=_MODULE)
  flags.DEFINE_bool('progress', True, 'Show a progress bar.',
                    flag_values=values, module_name=_MODULE)
  flags.DEFINE_enum('loop', None, ['compiled', 'python'], 'Which loop.',
                    flag_values=values, module_name=_MODULE)
  flags.DEFINE_float('checkpoint_every_seconds', 60.0, 'How often.',
                     flag_values=values, module_name=_MODULE)
  flags.DEFINE_multi_string('grid', [], 'key:values.', flag_values=values,
                            module_name=_MODULE)
  flags.DEFINE_integer('verbosity', -1, 'Logging verbosity.',
                       flag_values=values, module_name='absl.logging')
  flags.DEFINE_bool('tt_check_filter', False, 'A TensorFlow flag.',
                    flag_values=values, module_name='tensorflow.python.tpu')
  return values


_GROUPS = {'What to train': ('agent', 'loop', 'grid'),
           'Budget': ('num_steps', 'checkpoint_every_seconds')}


class RequestedTest(absltest.TestCase):

  def test_finds_each_request_before_a_double_dash(self):
    self.assertEqual(help_text.requested(['p', '--agent=ppo', '--helpshort']),
                     'helpshort')
    for arg in ('--help', '-h', '-?', '-help'):
      self.assertEqual(help_text.requested(['p', arg]), 'help')
    self.assertEqual(help_text.requested(['p', '--helpfull', '--help']),
                     'helpfull')
    self.assertEqual(help_text.requested(['p', '--helpconfig']), 'helpconfig')
    self.assertIsNone(help_text.requested(['p', '--agent=ppo']))
    self.assertIsNone(help_text.requested(['p', '--', '--help']))
    self.assertIsNone(help_text.requested(['--help']))  # argv[0] only.


class GroupProblemsTest(absltest.TestCase):

  def test_names_missing_duplicated_and_undefined_flags(self):
    self.assertEqual(help_text.group_problems(
        {'A': ('x', 'y'), 'B': ('z',)}, ['x', 'y', 'z']), [])
    problems = help_text.group_problems(
        {'A': ('x', 'y'), 'B': ('y', 'gone'), 'C': ()}, ['x', 'y', 'new'])
    self.assertIn("--y is in groups 'A' and 'B'", problems)
    self.assertIn('--new is in no group', problems)
    self.assertIn("group 'B' names --gone, which is not defined", problems)
    self.assertIn("group 'C' is empty", problems)


class FormatHelpTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.values = _fake_flags()

  def _help(self, request, groups=_GROUPS, width=80):
    return help_text.format_help(request, groups, 'Trains.\n\nAt length.',
                                 helpconfig=True, flag_values=self.values,
                                 width=width)

  def test_groups_in_declared_order_with_kind_default_and_text(self):
    text = self._help('help')
    self.assertTrue(text.startswith('Trains.\n\nAt length.\n\nWhat to train:'))
    self.assertLess(text.index('--agent'), text.index('--loop'))
    self.assertLess(text.index('What to train:'), text.index('Budget:'))
    self.assertLess(text.index('--loop'), text.index('--num_steps'))
    self.assertIn('  --agent  (default: ppo)\n      Agent to train.', text)
    self.assertIn('--loop  (one of compiled, python)\n      Which loop.',
                  text)
    self.assertIn('--num_steps  (a positive integer)', text)
    self.assertIn('--checkpoint_every_seconds  (a number; default: 60.0)',
                  text)
    self.assertIn('--grid  (repeatable)\n      key:values.\n', text)
    self.assertIn('--helpconfig', text)

  def test_ungrouped_project_flag_is_shown_under_other(self):
    text = self._help('help')
    self.assertIn('\n\nOther:\n  --[no]progress  (default: true)', text)
    self.assertNotIn('Other:', self._help(
        'help', {**_GROUPS, 'Logging': ('progress',)}))

  def test_short_help_keeps_the_summary_only(self):
    text = self._help('helpshort')
    self.assertTrue(text.startswith('Trains.\n\nWhat to train:'))
    self.assertNotIn('At length', text)

  def test_only_full_help_shows_absl_and_names_library_flags(self):
    for request in ('help', 'helpshort'):
      text = self._help(request)
      self.assertNotIn('verbosity', text)
      self.assertNotIn('tt_check_filter', text)
    text = self._help('helpfull')
    absl_at = text.index('absl (logging, debugging, flag files):')
    self.assertGreater(absl_at, text.index('Other:'))
    self.assertIn('--verbosity  (an integer; default: -1)', text)
    library_at = text.index('Flags of the libraries (tensorflow)')
    self.assertGreater(library_at, absl_at)
    self.assertIn('  --tt_check_filter\n', text[library_at:])
    self.assertNotIn('A TensorFlow flag', text)

  def test_lines_fit_the_width(self):
    for width in (60, 80):
      lines = self._help('helpfull', width=width).splitlines()
      self.assertLessEqual(max(len(line) for line in lines), width)
    self.assertIn('Budget in steps.', self._help('help'))


class RunTest(absltest.TestCase):

  def test_help_exits_0_and_a_bad_request_names_the_flag(self):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as e:
      help_text.run(lambda argv: None, {}, 'Does things.',
                    argv=['prog', '--helpshort'])
    self.assertEqual(e.exception.code, 0)
    self.assertTrue(out.getvalue().startswith('Does things.\n'))
    with self.assertRaises(SystemExit) as e:
      help_text.run(lambda argv: None, {}, 'Does things.',
                    argv=['prog', '--helpconfig'])
    self.assertIn('--helpconfig', str(e.exception.code))
    self.assertIn('takes no --config.* or --env_config.*',
                  str(e.exception.code))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as e:
      help_text.run(lambda argv: None, {}, 'Does things.',
                    lambda argv: f'settings of {argv[1]}\n',
                    argv=['prog', '--agent=ppo', '--helpconfig'])
    self.assertEqual((e.exception.code, out.getvalue()),
                     (0, 'settings of --agent=ppo\n'))


class EntryPointsTest(absltest.TestCase):

  def test_every_entry_point_uses_grouped_help(self):
    names = _entry_points()
    self.assertContainsSubset(
        {'experiments.train', 'experiments.compare', 'experiments.sweep',
         'experiments.report', 'experiments.export_tflite',
         'experiments.play', 'benchmarks.suites'}, names)
    for name in names:
      path = _REPO / (name.replace('.', '/') + '.py')
      tree = ast.parse(path.read_text())
      assigned = {t.id for node in tree.body if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Name)}
      self.assertIn('FLAG_GROUPS', assigned, name)
      main_block = path.read_text().rsplit("if __name__ == '__main__':",
                                           1)[1]
      self.assertIn('help_text.run(main, FLAG_GROUPS, __doc__', main_block,
                    name)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_every_flag_of_every_entry_point_is_in_exactly_one_group(self):
    # One fresh interpreter defines each program's flags in turn (as its
    # `__main__` block does) and removes them before the next one.
    script = '\n'.join([
        'import importlib, json, sys',
        'from absl import flags',
        'from experiments.cli import help_text',
        'problems = {}',
        'for name in sys.argv[1:]:',
        '  before = set(flags.FLAGS)',
        '  module = importlib.import_module(name)',
        '  getattr(module, "_define_flags", lambda: None)()',
        '  new = [n for n in help_text.project_flags() if n not in before]',
        '  problems[name] = help_text.group_problems(module.FLAG_GROUPS, new)',
        '  problems[name] += [] if new else ["defines no flags?"]',
        '  for n in new:',
        '    delattr(flags.FLAGS, n)',
        'print(json.dumps(problems))'])
    result = _run('-c', script, *_entry_points())
    self.assertEqual(result.returncode, 0, result.stderr[-3000:])
    problems = json.loads(result.stdout.strip().splitlines()[-1])
    self.assertEqual(sorted(problems), _entry_points())
    self.assertEqual({k: v for k, v in problems.items() if v}, {})

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_train_helpshort_exits_0_with_groups_in_order(self):
    result = _run('-m', 'experiments.train', '--helpshort')
    self.assertEqual(result.returncode, 0, result.stderr[-3000:])
    text = result.stdout
    titles = ['What to train:', 'Budget and stopping:',
              'Evaluation and export:', 'Logging and checkpoints:',
              'Speed:', 'Multi-host:']
    self.assertEqual([t for t in text.splitlines() if t in titles], titles)
    self.assertNotIn('\nOther:', text)
    self.assertNotIn('tensorflow', text.lower())
    for expected in ('--config.<key>=<value>', '--env_config.<key>=<value>',
                     '--wandb_project', '--agent  (default: ppo)',
                     '--helpconfig'):
      self.assertIn(expected, text)
    self.assertIn('Also log to this Weights & Biases project (needs the '
                  'wandb extra: pip install -e \'.[wandb]\').',
                  ' '.join(text.split()))
    multi_host = text.index('Multi-host:')
    self.assertGreater(multi_host, text.index('--updates_per_chunk'))
    self.assertIn('--process_id', text[multi_host:])


if __name__ == '__main__':
  absltest.main()
