"""Tests for experiments/comparison/report_markdown.py, on a hand-made report dict."""

from experiments.comparison import report_markdown


def _interval(point, low, high):
  return {'point': point, 'low': low, 'high': high}


def _report(missing=()):
  normalised = {k: _interval(0.5, 0.4, 0.6)
                for k in ('mean', 'median', 'iqm', 'optimality_gap')}
  return {
      'command': 'python -m experiments.compare --agents=ppo',
      'settings': {'agents': ['ppo', 'dqn'], 'envs': ['plane_strike'],
                   'seeds': [0, 1], 'num_steps': 400000, 'eval_points': 20,
                   'eval_episodes': 200, 'periodic_eval_episodes': 100,
                   'overrides': {'learning_rate': 0.001}},
      'bootstrap': {'reps': 2000, 'confidence': 0.95},
      'envs': {'plane_strike': {
          'label': 'strikes per game', 'curves_png': 'curves_plane_strike.png',
          'reference': {'low': 57.8, 'high': 11.9, 'source': 'random; Bayes'},
          'agents': {'ppo': {'seeds': [0, 1],
                             'score': _interval(34.85, 30.0, 40.0),
                             'normalised': normalised,
                             'mean_env_steps': 400123.0,
                             'wall_seconds': 61.25}}}},
      'aggregate': {'envs': ['plane_strike'],
                    'agents': {'ppo': {'seeds': [0, 1], **normalised}},
                    'excluded_envs': [], 'dropped_agents': ['dqn'],
                    'probability_of_improvement': []},
      'complete': not missing, 'left_out_runs': list(missing),
      'figures': {'aggregate': 'aggregate.png',
                  'probability_of_improvement': None},
  }


def test_tables_show_intervals_steps_and_wall_time():
  text = report_markdown.render(_report(), '/tmp/comparison')
  assert 'python -m experiments.compare --agents=ppo' in text
  assert ('| ppo | 2 | 34.850 [30.000, 40.000] | 0.500 [0.400, 0.600] |'
          in text)
  assert '| 400,123 | 61.2 |' in text
  assert '| dqn | 0 | no finished run |' in text
  assert '![plane_strike learning curves](curves_plane_strike.png)' in text
  assert '![aggregate](aggregate.png)' in text
  assert 'Dropped (no seed finished on every environment): dqn.' in text
  assert '| plane_strike | strikes per game | 57.8 | 11.9 |' in text
  assert 'Needs two agents in the aggregate.' in text
  assert '`tensorboard --logdir=/tmp/comparison`' in text
  assert 'None: every run finished.' in text


def test_left_out_runs_are_listed_and_the_report_says_incomplete():
  text = report_markdown.render(
      _report([{'agent': 'dqn', 'env': 'plane_strike', 'seed': 1,
                'directory': 'runs/plane_strike/dqn/seed_1',
                'state': 'diverged', 'reason': 'diverged: loss = nan'}]),
      '/tmp/c')
  assert text.index('**Incomplete report:** 1 of 3 runs') < text.index(
      '## Settings')
  assert ('- dqn on plane_strike, seed 1: **diverged**: diverged: loss = '
          'nan (`runs/plane_strike/dqn/seed_1`)' in text)
