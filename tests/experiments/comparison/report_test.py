"""Tests for experiments/comparison/report.py, on synthetic comparison workdirs."""

import csv
import json
import os
import shutil

from matplotlib import image
import numpy as np
import pytest

from environments import registry as env_registry
from experiments.comparison import plan as comparison_lib
from experiments.comparison import run_groups
from experiments.comparison import report
from experiments.storage import workdir_format
from tests import commands

REPS = 200
AGENTS = ('reinforce', 'ppo')
ENVS = ('catch', 'plane_strike', 'bsuite:catch/0')
# Final scores, by env, agent and seed 0, 1, 2.
SCORES = {
    'catch': {'reinforce': [0.2, 0.4, 0.6], 'ppo': [0.8, 0.9, 1.0]},
    # The weak and the strong reference (environments/reference_scores.py).
    'plane_strike': {'reinforce': [20.88] * 3, 'ppo': [11.93] * 3},
    'bsuite:catch/0': {'reinforce': [0.1, 0.2, 0.3], 'ppo': [0.5] * 3},
}


def _write_eval(path, metric, steps, final):
  """Scores rising (or falling) linearly from 0 to `final` over `steps`."""
  with open(path, 'w', newline='') as f:
    other = ({'mean_return', 'mean_episode_length'} - {metric}).pop()
    writer = csv.DictWriter(f, ['wall_seconds', metric, 'step', 'episodes',
                                other])
    writer.writeheader()  # Column order differs from the contract's on purpose.
    for step in steps:
      writer.writerow({'step': step, metric: final * step / steps[-1],
                       'episodes': 100, 'wall_seconds': step / 1000,
                       other: 1.0})


def _make_workdir(root, agents=AGENTS, envs=ENVS, seeds=(0, 1, 2),
                  missing=(), compiled=False, provenance=None):
  """A finished comparison; `missing` (agent, env, seed) have no result;
  `provenance(agent, env)`: each result's provenance (None: none)."""
  runs = []
  for env in envs:
    metric = env_registry.score_metric(env)
    for agent in agents:
      for seed in seeds:
        directory = f'runs/{run_groups.path_safe(env)}/{agent}/seed_{seed}'
        runs.append({'agent': agent, 'env': env, 'seed': seed,
                     'directory': directory})
        path = os.path.join(root, directory)
        os.makedirs(path)
        score = SCORES[env][agent][seed]
        _write_eval(os.path.join(path, 'eval.csv'), metric,
                    list(range(1000, 10001, 1000)), score)
        if (agent, env, seed) in missing:
          continue
        result = {'agent': agent, 'env': env, 'seed': seed,
                  'status': 'finished', 'evaluations': 10,
                  'env_steps': 10000 + seed, 'episodes': 100, 'updates': 10,
                  'wall_seconds': 10.0 + seed, 'eval_mean_return': score,
                  'eval_mean_episode_length': score, 'eval_episodes': 200}
        if compiled:
          result.update(loop='compiled', num_seeds=len(seeds),
                        compile_seconds=3.0, wall_seconds=42.0)
        if provenance and provenance(agent, env) is not None:
          result['provenance'] = provenance(agent, env)
        with open(os.path.join(path, 'result.json'), 'w') as f:
          json.dump(result, f)
  comparison = {
      'command': 'python -m experiments.compare --agents=reinforce,ppo',
      'agents': list(agents), 'envs': list(envs), 'seeds': list(seeds),
      'num_steps': 10000, 'eval_points': 10, 'eval_episodes': 200,
      'periodic_eval_episodes': 100, 'overrides': {'learning_rate': 0.001},
      'runs': runs}
  with open(os.path.join(root, 'comparison.json'), 'w') as f:
    json.dump(workdir_format.stamped(comparison), f)
  return str(root)


def _read(path):
  with open(path) as f:
    return f.read()


def _check_png(path):
  with open(path, 'rb') as f:
    data = f.read()
  assert data.startswith(b'\x89PNG\r\n\x1a\n') and len(data) > 5000
  assert image.imread(path).shape[0] > 200


def test_outcomes_are_means_over_seeds_of_two_player_games_only():
  results = [{'eval_outcomes': {'won': w, 'drawn': 1 - w, 'lost': 0.0},
              'eval_opponent': 'mcts-8'} for w in (0.2, 0.4, 0.6)]
  got = report.outcome_intervals(results, REPS)
  assert got['won']['point'] == pytest.approx(0.4)
  assert got['drawn']['point'] == pytest.approx(0.6)
  assert got['won']['low'] <= 0.4 <= got['won']['high']
  assert got['opponent'] == 'mcts-8'
  assert report.outcome_intervals(results + [{}], REPS) == {}


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
@pytest.mark.usefixtures('unrendered_figures')
def test_known_scores_give_known_estimates(tmp_path):
  result = report.write_report(_make_workdir(tmp_path), REPS)
  catch = result['envs']['catch']['agents']
  assert catch['reinforce']['seeds'] == [0, 1, 2]
  assert catch['reinforce']['scores'] == [0.2, 0.4, 0.6]
  assert catch['reinforce']['score']['point'] == pytest.approx(0.4)
  assert catch['reinforce']['normalised']['mean']['point'] == pytest.approx(
      0.7)  # (0.4 + 1) / 2.
  assert catch['ppo']['normalised']['optimality_gap']['point'] == (
      pytest.approx(0.05))
  strike = result['envs']['plane_strike']['agents']
  assert strike['reinforce']['score']['point'] == pytest.approx(20.88)
  for name in ('mean', 'median', 'iqm'):
    assert strike['reinforce']['normalised'][name]['point'] == (
        pytest.approx(0.0))
    assert strike['ppo']['normalised'][name]['point'] == pytest.approx(1.0)
  assert strike['ppo']['normalised']['optimality_gap']['point'] == (
      pytest.approx(0.0))
  aggregate = result['aggregate']
  assert aggregate['envs'] == ['catch', 'plane_strike']
  assert aggregate['agents']['reinforce']['mean']['point'] == (
      pytest.approx(0.35))  # (0.7 + 0) / 2.
  assert aggregate['agents']['ppo']['mean']['point'] == pytest.approx(0.975)
  (pair,) = aggregate['probability_of_improvement']
  assert (pair['x'], pair['y'], pair['point']) == ('reinforce', 'ppo', 0.0)
  intervals = [catch[a]['score'] for a in AGENTS] + [
      aggregate['agents'][a][n] for a in AGENTS
      for n in ('mean', 'median', 'iqm', 'optimality_gap')]
  for interval in intervals:
    assert interval['low'] <= interval['point'] <= interval['high']
  assert catch['reinforce']['score']['low'] < catch['reinforce']['score'][
      'high']


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
def test_writes_markdown_json_and_figures(tmp_path):
  workdir = _make_workdir(tmp_path)
  result = report.write_report(workdir, REPS)
  for name in ('curves_catch.png', 'curves_plane_strike.png',
               'curves_bsuite_catch_0.png', 'aggregate.png',
               'probability_of_improvement.png', 'performance_profile.png',
               'seeds_catch.png', 'seeds_plane_strike.png',
               'curves_wall_catch.png'):
    _check_png(os.path.join(workdir, name))
  with open(os.path.join(workdir, 'report.json')) as f:
    assert json.load(f) == json.loads(json.dumps(result))
  text = _read(os.path.join(workdir, 'report.md'))
  for expected in ('python -m experiments.compare --agents=reinforce,ppo',
                   '![Catch learning curves](curves_catch.png)',
                   '(curves_bsuite_catch_0.png)', '![aggregate](aggregate.png)',
                   '(probability_of_improvement.png)', 'strikes per game',
                   '![performance profile](performance_profile.png)',
                   "![Catch: each seed's score](seeds_catch.png)",
                   '(curves_wall_catch.png)',
                   '0.400 [', '| REINFORCE | PPO | 0.000 [0.000, 0.000] |',
                   '`learning_rate` = 0.001', '20.88',
                   '0: hunt-and-target play (20.88), 1: exact Bayes-greedy '
                   'play (11.93)', '200 resamples',
                   f'tensorboard --logdir={workdir}',
                   'None: every run finished.'):
    assert expected in text, expected
  curve = result['envs']['catch']['curves']['ppo']
  assert curve['steps'] == [1000.0 * k for k in range(1, 11)]
  np.testing.assert_allclose(curve['mean'], 0.09 * np.arange(1, 11))


@pytest.mark.slow
@pytest.mark.usefixtures('unrendered_figures')
def test_report_json_is_deterministic(tmp_path):
  first = _make_workdir(tmp_path / 'first', missing={('ppo', 'catch', 2)})
  second = str(tmp_path / 'second')
  shutil.copytree(first, second)
  results = [report.write_report(d, REPS) for d in (first, second)]
  assert results[0] == results[1]
  contents = [_read(os.path.join(d, 'report.json')) for d in (first, second)]
  assert contents[0] == contents[1]
  report.write_report(first, REPS)
  assert _read(os.path.join(first, 'report.json')) == contents[0]


@pytest.mark.usefixtures('unrendered_figures')
def test_missing_runs_are_listed_and_left_out(tmp_path):
  workdir = _make_workdir(tmp_path, missing={('ppo', 'catch', 2),
                                             ('reinforce', 'catch', 0),
                                             ('reinforce', 'catch', 1),
                                             ('reinforce', 'catch', 2)})
  result = report.write_report(workdir, REPS)
  assert [(m['agent'], m['seed'], m['state'])
          for m in result['left_out_runs']] == [
              ('reinforce', 0, 'unfinished'), ('reinforce', 1, 'unfinished'),
              ('reinforce', 2, 'unfinished'), ('ppo', 2, 'unfinished')]
  assert not result['complete']
  catch = result['envs']['catch']['agents']
  assert 'reinforce' not in catch
  assert catch['ppo']['seeds'] == [0, 1]
  assert catch['ppo']['score']['point'] == pytest.approx(0.85)
  assert result['aggregate']['agents']['ppo']['seeds'] == [0, 1]
  assert result['aggregate']['dropped_agents'] == ['reinforce']
  assert result['aggregate']['probability_of_improvement'] == []
  assert not os.path.exists(os.path.join(workdir,
                                         'probability_of_improvement.png'))
  text = _read(os.path.join(workdir, 'report.md'))
  assert '## 7. Runs left out' in text
  assert ('- PPO on Catch, seed 2: **unfinished**: no result.json yet '
          '(`runs/catch/ppo/seed_2`)' in text)
  assert '| REINFORCE | 0 | no finished run |' in text
  assert 'Dropped (no seed finished on every environment): REINFORCE.' in text
  assert ('| Catch | PPO | 2 |  |  |  |  |  |  |  | unfinished |'
          in text)  # Appendix B lists it too.


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
@pytest.mark.usefixtures('unrendered_figures')
def test_env_without_reference_is_left_out_of_the_aggregate(tmp_path):
  result = report.write_report(_make_workdir(tmp_path), REPS)
  bsuite = result['envs']['bsuite:catch/0']
  assert bsuite['reference'] is None
  assert bsuite['metric'] == 'mean_return'
  assert bsuite['agents']['reinforce']['score']['point'] == pytest.approx(0.2)
  assert 'normalised' not in bsuite['agents']['reinforce']
  assert result['aggregate']['excluded_envs'] == ['bsuite:catch/0']
  assert 'bsuite:catch/0' not in result['aggregate']['envs']
  text = _read(os.path.join(str(tmp_path), 'report.md'))
  assert ('Left out (no reference score, raw scores only): catch/0 '
          '(bsuite).' in text)


@pytest.mark.usefixtures('unrendered_figures')
def test_only_envs_without_reference(tmp_path):
  workdir = _make_workdir(tmp_path, envs=('bsuite:catch/0',))
  result = report.write_report(workdir, REPS)
  assert result['aggregate']['agents'] == {}
  assert result['figures'] == {
      'aggregate': None, 'probability_of_improvement': None,
      'performance_profile': None,
      'files': ['curves_bsuite_catch_0.png', 'curves_bsuite_catch_0.pdf',
                'curves_wall_bsuite_catch_0.png',
                'curves_wall_bsuite_catch_0.pdf',
                'seeds_bsuite_catch_0.png', 'seeds_bsuite_catch_0.pdf']}
  assert 'No environment has a reference score' in _read(
      os.path.join(workdir, 'report.md'))


@pytest.mark.slow
@pytest.mark.usefixtures('unrendered_figures')
def test_wall_seconds_rule(tmp_path):
  separate = [{'wall_seconds': 10.0}, {'wall_seconds': 12.0, 'num_seeds': 1,
                                       'loop': 'compiled'}]
  assert report.wall_seconds(separate) == 22.0
  shared = [{'wall_seconds': 42.0, 'num_seeds': 3, 'loop': 'compiled'}] * 3
  assert report.wall_seconds(shared) == 42.0
  separate_runs = report.write_report(_make_workdir(tmp_path / 'a'), REPS)
  assert separate_runs['envs']['catch']['agents']['ppo'][
      'wall_seconds'] == 33.0  # 10 + 11 + 12.
  compiled = report.write_report(
      _make_workdir(tmp_path / 'b', compiled=True), REPS)
  assert compiled['envs']['catch']['agents']['ppo']['wall_seconds'] == 42.0


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
def test_one_seed_one_agent(tmp_path):
  workdir = _make_workdir(tmp_path, agents=('ppo',), seeds=(0,))
  stale = os.path.join(workdir, 'probability_of_improvement.png')
  with open(stale, 'wb') as f:
    f.write(b'from an earlier report')
  result = report.write_report(workdir, REPS)
  score = result['envs']['catch']['agents']['ppo']['score']
  assert score == {'point': 0.8, 'low': 0.8, 'high': 0.8}
  assert result['aggregate']['agents']['ppo']['iqm']['point'] == (
      pytest.approx(0.95))  # Catch 0.9, Plane Strike 1.
  assert not os.path.exists(stale)
  _check_png(os.path.join(workdir, 'aggregate.png'))
  assert 'Needs two agents' in _read(os.path.join(workdir, 'report.md'))


@pytest.mark.usefixtures('unrendered_figures')
def test_curves_stop_at_the_shortest_seed(tmp_path):
  workdir = _make_workdir(tmp_path, envs=('catch',))
  short = os.path.join(workdir, 'runs/catch/ppo/seed_1')
  _write_eval(os.path.join(short, 'eval.csv'), 'mean_return',
              [1500, 3500, 6000], 0.9)
  with open(os.path.join(short, 'result.json')) as f:
    result = json.load(f)
  with open(os.path.join(short, 'result.json'), 'w') as f:
    json.dump({**result, 'evaluations': 3}, f)  # Shorter, but complete.
  os.remove(os.path.join(workdir, 'runs/catch/ppo/seed_2/eval.csv'))
  written = report.write_report(workdir, REPS)
  curve = written['envs']['catch']['curves']['ppo']
  assert curve['steps'] == [1500.0, 2000.0, 3000.0, 4000.0, 5000.0, 6000.0]
  # Seed 0 rises to 0.8 by 10k steps; seed 1 to 0.9 by 6k.
  np.testing.assert_allclose(curve['mean'][-1], (0.8 * 0.6 + 0.9) / 2)
  assert all(np.isfinite(curve['low'])) and all(np.isfinite(curve['high']))
  # Seed 2 lost its curve: left out of every statistic, and named.
  assert [(r['agent'], r['seed'], r['state'])
          for r in written['left_out_runs']] == [('ppo', 2, 'damaged')]
  assert written['envs']['catch']['agents']['ppo']['seeds'] == [0, 1]


@pytest.mark.usefixtures('unrendered_figures')
def test_clear_errors(tmp_path):
  with pytest.raises(comparison_lib.ComparisonError,
                     match='No comparison.json in .*experiments.compare'):
    report.write_report(str(tmp_path), REPS)
  workdir = _make_workdir(tmp_path, envs=('catch',), agents=('ppo',),
                          seeds=(0,), missing={('ppo', 'catch', 0)})
  with pytest.raises(comparison_lib.ComparisonError, match='No finished run'):
    report.write_report(workdir, REPS)


def _cli(*args):
  return commands.run('experiments.report', *args)


@pytest.mark.slow
@pytest.mark.usefixtures('unrendered_figures')
def test_command_line(tmp_path):
  workdir = _make_workdir(tmp_path / 'comparison')
  done = _cli('--workdir', workdir, '--bootstrap_reps', '100')
  assert done.returncode == 0, done.stderr
  assert done.stdout.strip() == os.path.join(workdir, 'report.md')
  assert json.loads(_read(os.path.join(workdir, 'report.json')))[
      'bootstrap']['reps'] == 100
  failed = _cli('--workdir', str(tmp_path))
  assert failed.returncode != 0
  assert 'No comparison.json' in failed.stderr


@pytest.mark.usefixtures('unrendered_figures')
def test_malformed_inputs(tmp_path):
  workdir = _make_workdir(tmp_path / 'a', envs=('catch',))
  with open(os.path.join(workdir, 'runs/catch/ppo/seed_0/eval.csv'),
            'a') as f:
    f.write('3,,11000,100\n1.2,0.7')  # A row without score, a cut-off row.
  curve = report.write_report(workdir, REPS)['envs']['catch']['curves']['ppo']
  assert curve['steps'][-1] == 10000.0
  bad = tmp_path / 'b'
  bad.mkdir()
  (bad / 'comparison.json').write_text(json.dumps(
      workdir_format.stamped({'agents': ['ppo']})))
  with pytest.raises(comparison_lib.ComparisonError, match=r"lacks \['envs', 'runs'\]"):
    report.write_report(str(bad), REPS)


SESSION = {'started_utc': '2026-01-02T03:04:05Z', 'python': '3.11.7',
           'packages': {'jax': '0.10.2', 'jaxlib': '0.10.2',
                        'dm-haiku': '0.0.17', 'rlax': '0.1.9',
                        'optax': '0.2.8'},
           'git_commit': 'abc123', 'git_dirty': True, 'platform': 'Linux',
           'cpu': 'AMD EPYC', 'cpu_count': 2, 'backend': 'cpu',
           'devices': ['cpu x 1'], 'process_count': 1}


def _provenance(agent, env):
  if (agent, env) == ('reinforce', 'bsuite:catch/0'):
    return None  # As if written before runs recorded provenance.
  return {'device_seconds': 42.0, 'num_devices': 1, 'sessions': [SESSION],
          'differing_between_sessions': []}


@pytest.mark.usefixtures('unrendered_figures')
def test_per_seed_sample_efficiency_provenance_and_tables(tmp_path):
  workdir = _make_workdir(tmp_path, compiled=True, provenance=_provenance)
  result = report.write_report(workdir, REPS)
  # Six programs of three seeds each; one lacks provenance: 5 x 42 s.
  provenance = result['provenance']
  assert provenance['device_seconds'] == 210.0
  assert provenance['programs'] == 5
  assert provenance['not_recorded'] == [
      {'env': 'bsuite:catch/0', 'agent': 'reinforce', 'seed': s}
      for s in range(3)]
  rows = result['per_seed']
  assert len(rows) == 18
  assert rows[1] == {'env': 'catch', 'agent': 'reinforce', 'seed': 1,
                     'status': 'finished', 'reason': '', 'score': 0.4,
                     'normalised': 0.7, 'env_steps': 10001,
                     'wall_seconds': 42.0, 'seeds_in_program': 3,
                     'auc': pytest.approx((0.4 * 0.55 + 1) / 2),
                     'steps_to_threshold': None}
  catch = result['sample_efficiency']['envs']['catch']['agents']
  # Scores rise linearly to the final one: the curve's mean is 0.55 of it.
  assert catch['ppo']['auc']['point'] == pytest.approx((0.9 * 0.55 + 1) / 2)
  assert catch['ppo']['score_at']['50%']['point'] == pytest.approx(
      (0.9 * 0.5 + 1) / 2)  # The evaluation at 5,000 steps.
  assert catch['ppo']['per_seed'][1]['steps_to_threshold'] == 9000
  assert catch['reinforce']['steps_to_threshold'] == {
      'reached': 0, 'seeds': 3, 'mean': None}
  bsuite = result['sample_efficiency']['envs']['bsuite:catch/0']
  assert not bsuite['normalised'] and bsuite['threshold'] is None
  assert result['few_seeds'][0] == {'env': 'catch', 'agent': 'reinforce',
                                    'seeds': 3}
  for name in ('per_env', 'aggregate', 'probability_of_improvement',
               'sample_efficiency', 'per_seed', 'settings_reinforce',
               'settings_ppo'):
    for ext in ('csv', 'tex'):
      assert f'tables/{name}.{ext}' in result['tables']
      assert os.path.getsize(os.path.join(workdir, 'tables',
                                          f'{name}.{ext}')) > 40
  with open(os.path.join(workdir, 'tables', 'per_seed.csv')) as f:
    lines = f.read().splitlines()
  assert lines[0] == ('env,agent,seed,score,normalised,auc,'
                      'steps_to_threshold,env_steps,wall_seconds,'
                      'seeds_in_program,status')
  cells = lines[2].split(',')
  assert cells[:5] + cells[7:] == ['Catch', 'REINFORCE', '1', '0.4', '0.7',
                                   '10001', '42.0', '3', 'finished']
  assert 0 <= float(cells[5]) <= 1  # The seed's AUC (normalised).
  assert len(lines) == 19
  text = _read(os.path.join(workdir, 'report.md'))
  for expected in ('> **Few seeds', '## 4. Sample efficiency',
                   '| REINFORCE | 3 | 0.610 [', 'not reached',
                   'No reference score: raw mean return (higher is better)',
                   '## 6. Provenance', 'Provenance not recorded for 3 of 18',
                   'git commit abc123 **with uncommitted changes**',
                   'jax 0.10.2, jaxlib 0.10.2, dm-haiku 0.0.17, rlax 0.1.9, '
                   'optax 0.2.8', '- Compute: 210.0 device-seconds',
                   '## Appendix B. Per-seed results',
                   '[tables/per_seed.csv](tables/per_seed.csv)',
                   'Lower is better: the score counts strikes per game.'):
    assert expected in text, expected
