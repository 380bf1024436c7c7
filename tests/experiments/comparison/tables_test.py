"""Tests for experiments/comparison/tables.py."""

import os

import pytest

from experiments.comparison import tables

INTERVAL = {'point': 12.4, 'low': 12.18, 'high': 12.625}


def _table(**kwargs):
  columns = (tables.Column('Environment', 'env'),
             tables.Column('Agent name', 'agent'),
             tables.Column('Score [95% CI]', 'score', '.2f', 'r'),
             tables.Column('Steps', 'steps', ',', 'r'))
  rows = ({'env': 'plane_strike', 'agent': 'ppo', 'score': INTERVAL,
           'steps': 400384},
          {'env': 'plane_strike', 'agent': tables.Marked('dqn'),
           'score': 'no finished run', 'steps': None},
          {'env': 'catch', 'agent': 'a|b', 'score': 0.5, 'steps': 7})
  return tables.Table('per_env', columns, rows, **kwargs)


def test_text_formats_numbers_intervals_and_blanks():
  assert tables.text(INTERVAL, '.2f') == '12.40 [12.18, 12.62]'
  assert tables.text(None) == ''
  assert tables.text(1234567, ',') == '1,234,567'
  assert tables.text(True) == 'True'
  assert tables.text(tables.Marked(0.5), '.3f') == '0.500'


def test_markdown():
  assert tables.markdown(_table()) == [
      '| Environment | Agent name | Score [95% CI] | Steps |',
      '|---|---|---:|---:|',
      '| plane_strike | ppo | 12.40 [12.18, 12.62] | 400,384 |',
      '| plane_strike | **dqn** | no finished run |  |',
      '| catch | a\\|b | 0.50 | 7 |',
      '']


def test_csv_keeps_full_precision_and_splits_intervals():
  assert tables.csv_text(_table()) == (
      'env,agent,score,score_low,score_high,steps\n'
      'plane_strike,ppo,12.4,12.18,12.625,400384\n'
      'plane_strike,dqn,no finished run,,,\n'
      'catch,a|b,0.5,,,7\n')


def test_latex_booktabs_escaped_and_grouped():
  text = tables.latex(_table(group=('env', 'steps')))
  assert text.splitlines() == [
      '% per_env: written by experiments.report; needs '
      '\\usepackage{booktabs}.',
      '\\begin{tabular}{llrr}',
      '\\toprule',
      'Environment & Agent name & Score [95\\% CI] & Steps \\\\',
      '\\midrule',
      'plane\\_strike & ppo & 12.40 [12.18, 12.62] & 400,384 \\\\',
      ' & \\textbf{dqn} & no finished run &  \\\\',
      '\\midrule',
      'catch & a\\textbar{}b & 0.50 & 7 \\\\',
      '\\bottomrule',
      '\\end{tabular}']


def test_latex_escape():
  assert tables.latex_escape('a_b & 50% #1 {x} ~ ^ \\ $ ≥ 0.9 × —') == (
      'a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} '
      '\\textbackslash{} \\$ $\\geq$ 0.9 $\\times$ ---')
  assert tables.latex_escape('P(X > Y)') == 'P(X \\textgreater{} Y)'


def test_write_is_atomic_and_removes_stale_tables(tmp_path):
  workdir = str(tmp_path)
  os.makedirs(os.path.join(workdir, 'tables'))
  stale = os.path.join(workdir, 'tables', 'settings_old_agent.csv')
  keep = os.path.join(workdir, 'tables', 'notes.txt')
  for path in (stale, keep):
    with open(path, 'w') as f:
      f.write('x')
  written = tables.write([_table()], workdir)
  assert written == ['tables/per_env.csv', 'tables/per_env.tex']
  assert sorted(os.listdir(os.path.join(workdir, 'tables'))) == [
      'notes.txt', 'per_env.csv', 'per_env.tex']  # No temporary files left.
  with open(os.path.join(workdir, 'tables', 'per_env.csv')) as f:
    assert f.read() == tables.csv_text(_table())
  assert tables.file_names(_table()) == {'csv': 'tables/per_env.csv',
                                         'tex': 'tables/per_env.tex'}


def test_failed_write_leaves_the_previous_file(tmp_path, monkeypatch):
  workdir = str(tmp_path)
  tables.write([_table()], workdir)
  path = os.path.join(workdir, 'tables', 'per_env.csv')
  with open(path) as f:
    before = f.read()

  def fail(*args, **kwargs):
    raise OSError('disk full')

  monkeypatch.setattr(os, 'replace', fail)
  with pytest.raises(OSError, match='disk full'):
    tables.write([tables.Table('per_env', (tables.Column('X', 'x'),),
                               ({'x': 1},))], workdir)
  with open(path) as f:
    assert f.read() == before
  assert sorted(os.listdir(os.path.join(workdir, 'tables'))) == [
      'per_env.csv', 'per_env.tex']


def test_latex_groups_blank_every_group_column():
  table = tables.Table('t', (tables.Column('Env', 'env'),
                             tables.Column('Unit', 'unit'),
                             tables.Column('Agent', 'agent')),
                       ({'env': 'Catch', 'unit': 'return', 'agent': 'A'},
                        {'env': 'Catch', 'unit': 'return', 'agent': 'B'},
                        {'env': 'Plane', 'unit': 'strikes', 'agent': 'A'}),
                       group=('env', 'unit'))
  assert tables.latex(table).splitlines()[5:9] == [
      'Catch & return & A \\\\', ' &  & B \\\\', '\\midrule',
      'Plane & strikes & A \\\\']
