r"""Redraws the tables of docs/benchmarks/ from the JSON in benchmarks/.

  python -m benchmarks.tables          # rewrite the tables
  python -m benchmarks.tables --check  # only name stale ones
  python -m benchmarks.tables \
      --acknowledge=reproductions_learning.json --note='…'

A drawn table sits in a page between `<!-- table: NAME -->` and
`<!-- end table -->`; NAME is a key of `TABLES`, which names the JSON files
the table is drawn from. Everything outside the markers is written by hand,
the command that produced each JSON included.

A table is stale when it differs from its JSON, or when its JSON records
what it measured (`benchmarks.fingerprints`) and that code or those
settings have changed since: re-measure it, or keep it and say under what
it was measured (`--acknowledge` with `--note`: the JSON keeps the note in
its list `notes`, one per acknowledgement, drawn under the table as a
numbered list folded in a `<details>` block, and the check passes until
the code changes again). Each fingerprinted table ends with the commit it
was measured at.
"""

import functools
import glob
import json
import os
import re
import sys
from typing import Any, Callable, Dict, List, Sequence, Tuple

from absl import app
from absl import flags

from benchmarks import fingerprints
from benchmarks.pages import markdown
from benchmarks.pages import peer_tables
from benchmarks.pages import reproduction_tables
from benchmarks.pages import planning_tables
from benchmarks.pages import result_tables
from benchmarks.pages import speed_tables
from benchmarks.pages import suite_peer_tables
from experiments.cli import help_text
from experiments.storage import atomic_files

Table = Tuple[Callable[[], List[str]], Tuple[str, ...]]

TABLES: Dict[str, Table] = {
    'ppo_gymnax_cartpole/training': (
        peer_tables.ppo_gymnax_cartpole_training,
        ('ppo_gymnax_cartpole_speed.json',)),
    'ppo_gymnax_cartpole/command': (
        peer_tables.ppo_gymnax_cartpole_command,
        ('ppo_gymnax_cartpole_speed.json',)),
    'ppo_breakout_minatar': (peer_tables.ppo_breakout_minatar,
                             ('ppo_breakout_minatar_speed.json',)),
    'ppo_games': (peer_tables.ppo_games, ('ppo_games_peers_speed.json',)),
    'sac_pendulum': (peer_tables.sac_pendulum, ('sac_pendulum_speed.json',)),
    'dqn_cartpole': (peer_tables.dqn_cartpole,
                     ('dqn_cartpole_peers_speed.json',)),
    'td3_pendulum': (peer_tables.td3_pendulum,
                     ('td3_pendulum_peers_speed.json',)),
    'ppo_seeds': (peer_tables.ppo_seeds, ('ppo_seeds_peers_speed.json',)),
    'ppo_continuous': (peer_tables.ppo_continuous,
                       ('ppo_continuous_peers_speed.json',)),
    'ppo_rnn': (peer_tables.ppo_rnn, ('ppo_rnn_peers_speed.json',)),
    'pqn_cartpole': (peer_tables.pqn_cartpole,
                     ('pqn_cartpole_peers_speed.json',)),
    'pqn_breakout_minatar': (peer_tables.pqn_breakout_minatar,
                             ('pqn_breakout_minatar_peers_speed.json',)),
    'pqn_rnn_memory_chain': (peer_tables.pqn_rnn_memory_chain,
                             ('pqn_rnn_memory_chain_peers_speed.json',)),
    'python_loop': (peer_tables.python_loop, ('python_loop_speed.json',)),
    'navix_ppo_peers': (suite_peer_tables.navix_ppo,
                        ('navix_ppo_peers_speed.json',)),
    'craftax_ppo_peers': (suite_peer_tables.craftax_ppo,
                          ('craftax_ppo_peers_speed.json',)),
    'craftax_ppo_rnn_peers': (
        functools.partial(suite_peer_tables.craftax_ppo, recurrent=True),
        ('craftax_ppo_rnn_peers_speed.json',)),
    'xminigrid_ppo_peers': (suite_peer_tables.xminigrid_ppo,
                            ('xminigrid_ppo_peers_speed.json',)),
    'xminigrid_xland_ppo_peers': (
        functools.partial(suite_peer_tables.xminigrid_ppo,
                          'xminigrid_xland_ppo_peers_speed.json'),
        ('xminigrid_xland_ppo_peers_speed.json',)),
    'jumanji_a2c_peers': (suite_peer_tables.jumanji_a2c,
                          ('jumanji_a2c_peers_speed.json',)),
    'popgym_arcade_ppo_peers': (suite_peer_tables.popgym_arcade_ppo,
                                ('popgym_arcade_ppo_peers_speed.json',)),
    'alphazero_connect_four_peers': (
        peer_tables.alphazero_connect_four,
        ('alphazero_connect_four_peers_speed.json',)),
    'python_loop_num_envs': (speed_tables.python_loop_num_envs,
                             ('python_loop_num_envs_speed.json',)),
    'loop_speed': (speed_tables.loop_speed, ('loop_speed_and_devices.json',)),
    'continuous_control_speed': (speed_tables.continuous_control,
                                 ('continuous_control_speed.json',)),
    'startup': (speed_tables.startup, ('startup.json',)),
    'collection_cost': (speed_tables.collection_cost,
                        ('collection_cost_speed.json',)),
    'update_cost': (speed_tables.update_cost, ('update_cost_speed.json',)),
    'compilation_cache': (speed_tables.compilation_cache,
                          ('compilation_cache_speed.json',)),
    'time_account': (speed_tables.time_account,
                     ('short_run_time_account.json',)),
    'train_command': (speed_tables.train_command,
                      ('train_command_end_to_end.json',)),
    'time_to_model': (speed_tables.time_to_model,
                      ('ppo_plane_strike_time_to_model.json',)),
    'catch_cartpole': (result_tables.catch_cartpole,
                       ('catch_cartpole_learning.json',)),
    'pqn_learning': (result_tables.pqn_learning, ('pqn_learning.json',)),
    'dqn_family_learning': (result_tables.dqn_family_learning,
                            ('dqn_family_learning.json',)),
    'impala_learning': (result_tables.impala_learning,
                        ('impala_learning.json',)),
    'reproductions': (reproduction_tables.reproductions,
                      ('reproductions_learning.json',)),
    'reproductions_compared': (reproduction_tables.reproductions_compared,
                               ('reproductions_learning.json',)),
    'purejaxrl_minatar_side_by_side': (
        reproduction_tables.side_by_side,
        ('purejaxrl_minatar_learning.json',)),
    'plane_strike_presets': (result_tables.plane_strike_presets,
                             ('ppo_plane_strike_time_to_model.json',
                              'plane_strike_presets_learning.json')),
    'continuous_control_learning': (result_tables.continuous_control,
                                    ('pendulum_learning.json',
                                     'td3_pendulum_learning.json',
                                     'brax_inverted_pendulum_learning.json')),
    'dqn_classic_control_learning': (
        result_tables.dqn_classic_control,
        ('dqn_classic_control_learning.json',)),
    'time_limits': (result_tables.time_limits,
                    ('time_limit_bootstrap_learning.json',)),
    'memory_chain': (result_tables.memory_chain,
                     ('memory_chain_learning.json',)),
    'bsuite_memory_len': (result_tables.bsuite_memory_len,
                          ('bsuite_memory_len_learning.json',)),
    'quantized': (result_tables.quantized,
                  ('export_int8_dynamic.json', 'export_float16.json')),
    'trainable': (result_tables.trainable,
                  ('export_trainable_adam.json', 'export_trainable_sgd.json')),
    'seeds': (result_tables.seeds, ('seeds_in_one_program.json',)),
    'devices': (result_tables.devices, ('loop_speed_and_devices.json',)),
    'sweep': (result_tables.sweep, ('sweep_as_one_program.json',)),
    'plane_strike_players': (result_tables.plane_strike_players,
                             ('plane_strike_reference_players.json',)),
    'suites_random_play': (result_tables.suites_random_play,
                           ('suites_random_play.json',)),
    'popgym_arcade_random_play': (result_tables.popgym_arcade_random_play,
                                  ('popgym_arcade_random_play.json',)),
    'alphazero_catch': (planning_tables.alphazero_catch,
                        ('alphazero_catch_learning.json',)),
    'alphazero_tic_tac_toe': (planning_tables.alphazero_tic_tac_toe,
                              ('alphazero_tic_tac_toe_learning.json',)),
    'alphazero_connect_four': (planning_tables.alphazero_connect_four,
                               ('alphazero_connect_four_learning.json',)),
    'alphazero_plane_strike': (planning_tables.alphazero_plane_strike,
                               ('alphazero_plane_strike_learning.json',)),
    'muzero': (planning_tables.muzero_learning,
               ('muzero_catch_learning.json',
                'muzero_breakout_minatar_learning.json',
                'muzero_plane_strike_learning.json')),
}

# A marker is a line of its own (the pages may quote one in prose).
MARKER = re.compile(r'^(<!-- table: (\S+) -->\n)(.*?)^(<!-- end table -->)$',
                    re.DOTALL | re.MULTILINE)
PAGES = os.path.join(markdown.ROOT, 'docs', 'benchmarks', '*.md')


def draw(name: str) -> str:
  """Table `name` as Markdown, ending in a newline; then, for JSON that
  records what it measured, the commit and any note on it."""
  if name not in TABLES:
    raise ValueError(f'No table {name!r}; tables: {", ".join(TABLES)}.')
  lines = TABLES[name][0]()
  measured = {}  # (commit, notes): the files (and rows) measured under them.
  for file in TABLES[name][1]:
    records = {}  # (commit, notes): the rows of `file` measured under them.
    for holder in _holders(markdown.load(file)):
      record = holder['measured']
      if 'note' in record:  # One string: the notes are a list.
        raise ValueError(f'benchmarks/{file}: "note" is no longer read; '
                         f'make it a list "notes", one per change.')
      records.setdefault((record['commit'], tuple(record.get('notes', ()))),
                         []).append(_label(holder))
    for key, labels in records.items():
      measured.setdefault(key, []).append(
          file if len(records) == 1 else f'{file}: {", ".join(labels)}')
  for (commit, notes), which in measured.items():
    lines += ['', f'Measured at commit {commit} ({"; ".join(which)}).']
    if notes:  # The evidence, folded: one click away, not in the way.
      lines += ['', '<details><summary>The code it measured has changed '
                'since, in ways shown to leave these figures as they '
                'were</summary>', '', 'Measured before the first change '
                'below; kept through each, oldest first:', '']
      lines += [f'{i}. {note}' for i, note in enumerate(notes, 1)]
      lines += ['', '</details>']
  return '\n'.join(lines) + '\n'


def _label(holder: Dict[str, Any]) -> str:
  """What a row recording its own measurement is, for the line under its
  table: its preset, or its environment."""
  return str(holder.get('preset') or holder.get('env') or 'the rest')


def _holders(data: Dict[str, Any]) -> List[Dict[str, Any]]:
  """The parts of a benchmark JSON that record what they measured: the
  whole (learning benchmarks), each suite (`benchmarks.suites`) or each
  row (`benchmarks.reproductions`, `benchmarks.side_by_side`)."""
  parts = ([data] + [v for v in data.values() if isinstance(v, dict)] +
           [row for row in data.get('results', ())
            if isinstance(row, dict)])
  return [part for part in parts if part.get('measured')]


def _files() -> List[str]:
  return sorted({f for _, files in TABLES.values() for f in files})


def measured_changes() -> List[str]:
  """'file: what changed' for each JSON whose measured code or settings
  changed since (`fingerprints.changes`)."""
  return [f'benchmarks/{file}: {change}' for file in _files()
          for holder in _holders(markdown.load(file))
          for change in fingerprints.changes(holder['measured'])]


def unfingerprinted() -> List[str]:
  """The JSON files that do not record what they measured (every one
  does: `--check` fails on one that does not)."""
  return [f for f in _files() if not _holders(markdown.load(f))]


def acknowledge(file: str, note: str) -> None:
  """Keeps `file`'s changed results (`fingerprints.changes`) under
  today's code and settings, with `note` saying under what they were
  measured (drawn under its tables) appended to their `notes`: each
  acknowledgement adds its own, so the table keeps its whole history."""
  path = os.path.join(markdown.ROOT, 'benchmarks', file)
  data = markdown.load(file)
  holders = _holders(data)
  if not holders:
    raise ValueError(f'benchmarks/{file} records no fingerprint to '
                     f'acknowledge; re-measure it.')
  if not note.strip():
    raise ValueError('--note: say under what the results were measured.')
  # Only what changed takes the note: the others keep theirs.
  for holder in holders:
    if fingerprints.changes(holder['measured']):
      notes = list(holder['measured'].get('notes', ())) + [note.strip()]
      holder['measured'] = {**fingerprints.acknowledged(holder['measured']),
                            'notes': notes}
  atomic_files.write_bytes(path, (json.dumps(data, indent=2) + '\n')
                           .encode())


def redraw(text: str) -> Tuple[str, List[str]]:
  """`text` with every marked table drawn anew, and the names of those
  that changed."""
  changed = []

  def replace(match: 're.Match[str]') -> str:
    table = draw(match.group(2))
    if table != match.group(3):
      changed.append(match.group(2))
    return match.group(1) + table + match.group(4)

  return MARKER.sub(replace, text), changed


def pages() -> List[str]:
  return sorted(glob.glob(PAGES))


def stale(paths: Sequence[str]) -> List[str]:
  """'page: table' of each table in `paths` that differs from its JSON."""
  found = []
  for path in paths:
    with open(path, encoding='utf-8') as f:
      _, changed = redraw(f.read())
    found += [f'{os.path.relpath(path, markdown.ROOT)}: {name}'
              for name in changed]
  return found


# What --help shows (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {'What to do': ('check', 'acknowledge', 'note')}


def _define_flags() -> None:
  flags.DEFINE_bool('check', False, 'Change nothing: exit 1 naming each '
                    'table that differs from its JSON, and each JSON whose '
                    'measured code or settings changed since.')
  flags.DEFINE_string('acknowledge', None, 'A JSON file of benchmarks/ to '
                      'keep under today\'s code and settings, with --note.')
  flags.DEFINE_string('note', None, 'With --acknowledge: under what its '
                      'results were measured, drawn under its tables.')


def main(argv):
  del argv
  if flags.FLAGS.acknowledge:
    try:
      acknowledge(flags.FLAGS.acknowledge, flags.FLAGS.note or '')
    except (OSError, ValueError) as e:
      raise app.UsageError(f'--acknowledge: {e}') from e
  if flags.FLAGS.check:
    out_of_date = stale(pages())
    for entry in out_of_date:
      print(f'stale: {entry}')
    changed = measured_changes()
    for entry in changed:
      print(f'measured code or settings changed: {entry}')
    if changed:
      print('Re-measure those results (the command is on their page), or '
            'keep them with python -m benchmarks.tables '
            '--acknowledge=<file> --note=\'<under what they were '
            'measured>\'.')
    unrecorded = unfingerprinted()
    if unrecorded:
      print(f'{len(unrecorded)} JSON files do not record what they measured '
            f'(write them with benchmarks.fingerprints.measured): '
            f'{", ".join(unrecorded)}.')
    sys.exit(1 if out_of_date or changed or unrecorded else 0)
  for path in pages():
    with open(path, encoding='utf-8') as f:
      text, changed = redraw(f.read())
    if changed:
      with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
      print(f'{os.path.relpath(path, markdown.ROOT)}: {", ".join(changed)}')


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
