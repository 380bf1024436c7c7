"""Tests for benchmarks/reproductions.py: what each row reports, and that
a row is 'reproduced' only in the source's own setting."""

import pytest

from benchmarks import learning
from benchmarks.pages import reproduction_tables
from benchmarks import reproductions
from experiments.presets import registry as preset_registry


def _write(path, rows):
  lines = ['step,progress/episodes,train/episode_return']
  lines += [f'{i},{episodes},{value}' for i, (episodes, value)
            in enumerate(rows)]
  path.write_text('\n'.join(lines) + '\n')


def test_training_return_weights_the_last_rows_holding_100_episodes(
    tmp_path):
  path = tmp_path / 'train.csv'
  # Cumulative episodes 50, 110, 170, 230: the last two rows hold 120.
  _write(path, [(50, -9.0), (110, 1.0), (170, 2.0), (230, 4.0)])
  assert reproductions.training_return(str(path)) == {
      'mean': 3.0, 'episodes': 120}
  # A row with no episode ended (return NaN) is skipped.
  _write(path, [(50, 2.0), (150, 4.0), (150, float('nan'))])
  assert reproductions.training_return(str(path)) == {
      'mean': 4.0, 'episodes': 100}


def test_intervals_only_from_five_seeds():
  few = reproductions.summary([1.0, 2.0, 6.0])
  assert few == {'seeds': 3, 'mean': 3.0, 'range': [1.0, 6.0]}
  many = reproductions.summary([1.0, 2.0, 3.0, 4.0, 10.0])
  assert many['seeds'] == 5 and 'range' not in many
  assert many['mean']['point'] == pytest.approx(4.0)
  assert many['mean']['low'] <= 4.0 <= many['mean']['high']
  assert many['iqm']['point'] < many['mean']['point']  # Trims the 10.


def test_the_protocol_is_what_every_result_says():
  results = [{'eval_protocol': {'policy': 'sampled', 'episodes': 'x'},
              'eval_episodes': 100}] * 3
  assert learning.protocol(results) == {
      'policy': 'sampled', 'episodes': 100, 'seeds': 3}
  mixed = results[:2] + [{'eval_protocol': {'policy': 'greedy'},
                          'eval_episodes': 100}]
  with pytest.raises(ValueError, match='different protocols'):
    learning.protocol(mixed)


def test_reproduced_rows_run_the_source_s_own_setting():
  for row in reproductions.REPRODUCTIONS:
    preset = preset_registry.get(row.preset)
    assert (preset.agent, preset.env) == (row.agent, row.env), row.name
    if row.kind == reproductions.REPRODUCED:
      # The preset is the source's own configuration, named in both.
      assert any(name in preset.source and name in row.source for name in (
          'CleanRL', 'RL Baselines3 Zoo', 'gymnax-blines')), row.name
    else:
      assert row.differences, row.name
  cleanrl_dqn = preset_registry.get('dqn_cleanrl_acrobot')
  assert cleanrl_dqn.hidden_sizes == (120, 84)
  assert cleanrl_dqn.config['double_q'] is False
  assert {r.name for r in reproductions.REPRODUCTIONS
          if r.kind == reproductions.COMPARED} >= {
              'dqn_gymnax_acrobot/gymnax:Acrobot-v1'}


def test_the_headline_is_ours_measured_as_the_source_measures():
  summary = {'seeds': 3, 'mean': 1.0, 'range': [0.0, 2.0]}
  row = {'final_score': {'seeds': 3, 'mean': 7.0, 'range': [6.0, 8.0]},
         'training_return': summary,
         'per_seed': [{'training_return': {'episodes': 104}}],
         'protocol': {'policy': 'greedy', 'episodes': 100}}
  headline, other = reproduction_tables._as_the_source_measures(
      {**row, 'measured_as': reproductions.FINAL})
  assert headline.startswith('final evaluation: **7.0')
  assert other.startswith('training return: 1.0')
  headline, other = reproduction_tables._as_the_source_measures(
      {**row, 'measured_as': reproductions.TRAINING})
  assert headline.startswith('training return: **1.0')
  assert '(104 episodes per seed)' in headline
  assert other == 'final evaluation: 7.0 (range 6.0 to 8.0, 3 seeds) ' \
      '(greedy, 100 episodes)'


def test_every_source_figure_says_what_it_measures():
  for row in reproductions.REPRODUCTIONS:
    assert row.measured_as in (reproductions.TRAINING, reproductions.FINAL)
    # CleanRL publishes training returns; the Zoo and gymnax evaluations.
    assert (row.measured_as == reproductions.TRAINING) == (
        'CleanRL' in row.source), row.name
