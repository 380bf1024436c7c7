"""Tests for benchmarks/tables.py: the tables of docs/benchmarks/
are the committed JSON's, and every JSON feeds a table."""

import glob
import json
import os
import re

import pytest

from benchmarks import fingerprints
from benchmarks import learning
from benchmarks.pages import markdown
from benchmarks import tables

_ROOT = markdown.ROOT


def _pages():
  pages = tables.pages()
  assert pages, 'docs/benchmarks/ has no pages'
  return pages


def _names_in_pages():
  names = []
  for path in _pages():
    with open(path, encoding='utf-8') as f:
      text = f.read()
    markers = re.findall(r'^<!-- table: (\S+) -->$', text, re.MULTILINE)
    closed = [m.group(2) for m in tables.MARKER.finditer(text)]
    assert markers == closed, f'{path}: a table marker without its end'
    names += markers
  return names


def test_every_page_table_matches_its_json():
  stale = tables.stale(_pages())
  assert not stale, ('Tables differ from their JSON (redraw them with '
                     '`python -m benchmarks.tables`): ' +
                     ', '.join(stale))


@pytest.mark.slow  # Rebuilds every measured run's config: 6-7 s cold.
def test_no_measured_result_is_stale():
  """The JSON that record what they measured measured today's code and
  settings (else re-measure, or --acknowledge with a note)."""
  changed = tables.measured_changes()
  assert not changed, '\n'.join(changed)


def test_every_json_records_what_it_measured():
  """A table whose JSON records no commit and code could go stale
  unseen."""
  assert tables.unfingerprinted() == []


def test_a_changed_module_makes_a_measured_table_stale(monkeypatch):
  real = markdown.load
  record = {'commit': 'abc', 'code': {'agents/dqn.py': 'old hash'},
            'runs': []}

  def load(file):
    data = json.loads(json.dumps(real(file)))
    if file == 'reproductions_learning.json':
      data['results'][0]['measured'] = record
    return data

  monkeypatch.setattr(markdown, 'load', load)
  assert tables.measured_changes() == [
      'benchmarks/reproductions_learning.json: agents/dqn.py changed']
  first = load('reproductions_learning.json')['results'][0]['preset']
  assert (f'Measured at commit abc (reproductions_learning.json: {first}).'
          in tables.draw('reproductions'))
  record['notes'] = ['the defaults of commit abc.', 'then those of def.']
  drawn = tables.draw('reproductions')
  # The notes are folded under the commit's line, whole, one per item.
  assert ('reproductions_learning.json: ' in drawn and
          '\n\n<details><summary>' in drawn and
          '\n\nMeasured before the first change below; kept through each, '
          'oldest first:\n\n'
          '1. the defaults of commit abc.\n2. then those of def.\n\n'
          '</details>' in drawn)
  record['note'] = 'one string'
  with pytest.raises(ValueError, match='reproductions_learning.json: "note" '
                     'is no longer read'):
    tables.draw('reproductions')


def test_rows_measured_alike_share_one_line(monkeypatch):
  record = {'commit': 'abc', 'code': {}, 'runs': []}
  monkeypatch.setattr(markdown, 'load', lambda file: {
      'seeds': 5, 'results': [{'env': 'e1', 'measured': record},
                              {'env': 'e2', 'measured': record}]})
  monkeypatch.setitem(tables.TABLES, 'x', (lambda: ['|a|'], ('x.json',)))
  assert tables.draw('x') == '|a|\n\nMeasured at commit abc (x.json).\n'
  monkeypatch.setattr(markdown, 'load', lambda file: {
      'seeds': 5, 'results': [
          {'env': 'e1', 'measured': record},
          {'env': 'e2', 'measured': {**record, 'commit': 'def'}}]})
  assert tables.draw('x').splitlines()[2:] == [
      'Measured at commit abc (x.json: e1).', '',
      'Measured at commit def (x.json: e2).']
  # Two files measured at one commit: one line names both.
  monkeypatch.setattr(markdown, 'load', lambda file: {
      'seeds': 5, 'results': [], 'measured': record})
  monkeypatch.setitem(tables.TABLES, 'x',
                      (lambda: ['|a|'], ('x.json', 'y.json')))
  assert tables.draw('x') == (
      '|a|\n\nMeasured at commit abc (x.json; y.json).\n')


def test_acknowledging_keeps_the_results_with_a_note(monkeypatch, tmp_path):
  config = learning.config(
      learning.Setting('catch', 'dqn'))
  record = fingerprints.measured([config])
  record['code']['agents/dqn.py'] = 'the hash of older code'
  (tmp_path / 'benchmarks').mkdir()
  (tmp_path / 'benchmarks' / 'x.json').write_text(
      json.dumps({'results': [], 'measured': record}))
  monkeypatch.setattr(markdown, 'ROOT', str(tmp_path))
  with pytest.raises(ValueError, match='--note'):
    tables.acknowledge('x.json', ' ')
  tables.acknowledge('x.json', 'DQN before its n-step targets.')
  kept = markdown.load('x.json')['measured']
  assert kept['notes'] == ['DQN before its n-step targets.']
  assert fingerprints.changes(kept) == []
  # A later acknowledgement keeps the earlier note before its own.
  raw = json.loads((tmp_path / 'benchmarks' / 'x.json').read_text())
  raw['measured']['code']['agents/dqn.py'] = 'the hash of older code'
  (tmp_path / 'benchmarks' / 'x.json').write_text(json.dumps(raw))
  tables.acknowledge('x.json', 'DQN before its double Q.')
  assert markdown.load('x.json')['measured']['notes'] == [
      'DQN before its n-step targets.', 'DQN before its double Q.']
  (tmp_path / 'benchmarks' / 'old.json').write_text('{"results": []}')
  with pytest.raises(ValueError, match='records no fingerprint'):
    tables.acknowledge('old.json', 'a note')


def test_acknowledging_notes_only_the_rows_that_changed(monkeypatch,
                                                       tmp_path):
  config = learning.config(learning.Setting('catch', 'dqn'))
  changed, unchanged = (fingerprints.measured([config]) for _ in range(2))
  # A module the run executes today that the record did not watch.
  del changed['code']['agents/off_policy.py']
  changed['code']['agents/dqn.py'] = 'the hash of older code'
  unchanged['notes'] = ['its own note']
  (tmp_path / 'benchmarks').mkdir()
  (tmp_path / 'benchmarks' / 'x.json').write_text(json.dumps(
      {'seeds': 5, 'results': [{'env': 'a', 'measured': changed},
                               {'env': 'b', 'measured': unchanged}]}))
  monkeypatch.setattr(markdown, 'ROOT', str(tmp_path))
  tables.acknowledge('x.json', 'DQN before the off-policy skeleton.')
  first, second = (row['measured']
                   for row in markdown.load('x.json')['results'])
  assert first['notes'] == ['DQN before the off-policy skeleton.']
  assert 'agents/off_policy.py' in first['code']
  assert second == unchanged


def test_every_table_is_in_a_page_once():
  names = _names_in_pages()
  assert sorted(names) == sorted(tables.TABLES)


def test_each_table_reads_the_files_it_declares(monkeypatch):
  real = markdown.load
  for name, (draw, declared) in tables.TABLES.items():
    read = []
    monkeypatch.setattr(markdown, 'load',
                        lambda file, read=read: read.append(file) or
                        real(file))
    draw()
    assert sorted(set(read)) == sorted(declared), name


def test_every_committed_json_feeds_a_table():
  committed = {os.path.basename(p) for p in
               glob.glob(os.path.join(_ROOT, 'benchmarks', '*.json'))}
  declared = {f for _, files in tables.TABLES.values()
              for f in files}
  assert committed == declared


def test_redraw_replaces_a_stale_table_and_keeps_the_rest():
  text = ('Before.\n<!-- table: sweep -->\n| old |\n<!-- end table -->\n'
          'After.\n')
  new, changed = tables.redraw(text)
  assert changed == ['sweep']
  assert new.startswith('Before.\n<!-- table: sweep -->\n| figure | value |')
  assert new.endswith('\n<!-- end table -->\nAfter.\n')
  assert tables.redraw(new) == (new, [])


def test_an_unknown_table_is_named():
  with pytest.raises(ValueError, match="No table 'nope'"):
    tables.redraw('<!-- table: nope -->\n<!-- end table -->')


def test_numbers_are_written_as_the_pages_write_them():
  assert markdown.num(235948.3) == '235,948'
  assert markdown.num(-159.62, 1) == '\u2212159.6'
  assert markdown.num(0.01, 2, sign=True) == '+0.01'
  assert markdown.short(0.68) == '0.68' and markdown.short(1.0) == '1.0'
  assert markdown.short(500.0) == '500'
  assert markdown.sci(1.43e-6) == '1.4e-6' and markdown.sci(5e-5) == '5e-5'
  assert markdown.steps(2_000_000) == '2M steps'
  assert markdown.steps(20_000) == '20k steps'
