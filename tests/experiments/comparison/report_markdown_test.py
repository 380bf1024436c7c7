"""Tests for experiments/comparison/report_markdown.py, on a hand-made report dict."""

from experiments.comparison import report_markdown


def _interval(point, low, high):
  return {'point': point, 'low': low, 'high': high}


def _report(missing=(), seeds=(0, 1), few_seeds=None, provenance=None):
  normalised = {k: _interval(0.5, 0.4, 0.6)
                for k in ('mean', 'median', 'iqm', 'optimality_gap')}
  ppo_seeds = list(seeds)
  return {
      'command': 'python -m experiments.compare --agents=ppo',
      'settings': {'agents': ['ppo', 'dqn'], 'envs': ['plane_strike'],
                   'seeds': ppo_seeds, 'num_steps': 400000,
                   'eval_points': 20, 'eval_episodes': 200,
                   'periodic_eval_episodes': 100,
                   'overrides': {'learning_rate': 0.001},
                   'agent_overrides': {'dqn': {'discount': 0.5}}},
      'run_settings': {},
      'bootstrap': {'reps': 2000, 'confidence': 0.95},
      'envs': {'plane_strike': {
          'label': 'strikes per game', 'curves_png': 'curves_plane_strike.png',
          'seeds_png': 'seeds_plane_strike.png',
          'curves_wall_png': 'curves_wall_plane_strike.png',
          'reference': {'low': 57.8, 'high': 11.9, 'source': 'random; Bayes'},
          'agents': {'ppo': {'seeds': ppo_seeds,
                             'score': _interval(34.85, 30.0, 40.0),
                             'normalised': normalised,
                             'mean_env_steps': 400123.0,
                             'wall_seconds': 61.25}}}},
      'aggregate': {'envs': ['plane_strike'],
                    'agents': {'ppo': {'seeds': ppo_seeds, **normalised}},
                    'excluded_envs': [], 'dropped_agents': ['dqn'],
                    'probability_of_improvement': []},
      'complete': not missing, 'left_out_runs': list(missing),
      'figures': {'aggregate': 'aggregate.png',
                  'probability_of_improvement': None},
      'sample_efficiency': {
          'threshold': 0.9, 'fractions': ['25%', '100%'],
          'definitions': {'auc': 'AUC-DEF', 'score_at': 'AT-DEF',
                          'steps_to_threshold': 'STEPS-DEF'},
          'envs': {'plane_strike': {'normalised': True, 'threshold': 0.9,
                                    'agents': {'ppo': {
              'per_seed': [{'seed': s} for s in ppo_seeds],
              'auc': _interval(0.75, 0.7, 0.8),
              'score_at': {'25%': _interval(0.5, 0.4, 0.6),
                           '100%': _interval(0.9, 0.85, 0.95)},
              'steps_to_threshold': {'reached': 1, 'seeds': 2,
                                     'mean': None}}}}}},
      'per_seed': [{'env': 'plane_strike', 'agent': 'ppo', 'seed': s,
                    'status': 'finished', 'reason': '', 'score': 34.85,
                    'normalised': 0.5, 'env_steps': 400123,
                    'wall_seconds': 61.25, 'seeds_in_program': 2,
                    'auc': 0.5, 'steps_to_threshold': None}
                   for s in ppo_seeds],
      'provenance': provenance or {
          'runs': len(ppo_seeds), 'recorded_runs': 0, 'not_recorded': []},
      'few_seeds': ([{'env': 'plane_strike', 'agent': 'ppo',
                      'seeds': len(ppo_seeds)}]
                    if few_seeds is None else few_seeds),
      'tables': ['tables/per_env.csv', 'tables/per_env.tex'],
  }


def test_tables_show_intervals_steps_and_wall_time():
  text = report_markdown.render(_report(), '/tmp/comparison')
  assert 'python -m experiments.compare --agents=ppo' in text
  assert ('| PPO | 2 | 34.850 [30.000, 40.000] | 0.500 [0.400, 0.600] |'
          in text)
  assert '| 400,123 | 61.2 |' in text
  assert '| DQN | 0 | no finished run |' in text
  assert '![Plane Strike learning curves](curves_plane_strike.png)' in text
  assert '![aggregate](aggregate.png)' in text
  assert 'Dropped (no seed finished on every environment): DQN.' in text
  assert ('| Plane Strike | strikes per game (lower is better) | 57.8 | 11.9 |'
          in text)
  assert 'Needs two agents in the aggregate.' in text
  assert '`tensorboard --logdir=/tmp/comparison`' in text
  assert 'None: every run finished.' in text


def test_human_names_lower_is_better_and_plain_wall_time():
  text = report_markdown.render(_report(), '/tmp/c')
  assert text.startswith('# Agent comparison: PPO vs DQN\n')
  assert '- Agents: PPO (`ppo`), DQN (`dqn`)' in text
  assert '### Plane Strike\n' in text
  assert 'Strikes per game (lower is better): mean [95% CI]' in text
  assert 'Lower is better: the score counts strikes per game.' in text
  assert '- Overrides for every agent (`--config.<key>`): `learning_rate` = ' \
      '0.001' in text
  assert '(`--config.<agent>.<key>`): DQN: `discount` = 0.5' in text
  assert ('*Training wall time* is the time spent training that agent on '
          'that environment, all its seeds included' in text)
  assert 'Wall time adds up the seeds' not in text
  assert ('per_env ([csv](tables/per_env.csv), [tex](tables/per_env.tex))'
          in text)


def test_sample_efficiency_section():
  text = report_markdown.render(_report(), '/tmp/c')
  assert '- *AUC* (area under the learning curve): AUC-DEF;' in text
  assert ('| Agent | Seeds | AUC [95% CI] | At 25% of budget | '
          'At 100% of budget | Env steps to ≥ 0.9 |') in text
  assert ('| PPO | 2 | 0.750 [0.700, 0.800] | 0.500 [0.400, 0.600] | '
          '0.900 [0.850, 0.950] | reached by 1 of 2 seeds |') in text
  assert '| DQN | 0 | no finished run |' in text


def test_few_seeds_warning_comes_first_and_goes_with_ten_seeds():
  text = report_markdown.render(_report(), '/tmp/c')
  warning = text.index('> **Few seeds')
  assert warning < text.index('## Settings')
  assert 'PPO (2 seeds)' in text
  assert 'it is exactly [worst seed, best seed]' in text
  assert '(see the few-seeds warning at the top)' in text
  many = report_markdown.render(_report(seeds=range(10), few_seeds=[]),
                                '/tmp/c')
  assert 'Few seeds' not in many and 'few-seeds warning' not in many


def test_provenance_not_recorded_and_per_seed_appendix():
  text = report_markdown.render(_report(), '/tmp/c')
  assert ('## 6. Provenance\n\nSoftware, hardware and device-seconds: not '
          'recorded for any of the 2 runs' in text)
  assert ('| Plane Strike | PPO | 1 | 34.850 | 0.500 | 0.500 |  | 400,123 | '
          '61.2 | 2 | finished |') in text


def test_left_out_runs_are_listed_and_the_report_says_incomplete():
  text = report_markdown.render(
      _report([{'agent': 'dqn', 'env': 'plane_strike', 'seed': 1,
                'directory': 'runs/plane_strike/dqn/seed_1',
                'state': 'diverged', 'reason': 'diverged: loss = nan'}]),
      '/tmp/c')
  assert text.index('**Incomplete report:** 1 of 3 runs') < text.index(
      '## Settings')
  assert 'section 7 lists them' in text
  assert ('- DQN on Plane Strike, seed 1: **diverged**: diverged: loss = '
          'nan (`runs/plane_strike/dqn/seed_1`)' in text)


def test_protocol_is_stated_as_given_or_as_each_pair_took_it():
  report = _report()
  report['settings']['eval_protocol'] = {'policy': 'epsilon_greedy',
                                         'epsilon': 0.1}
  text = report_markdown.render(report, '/w')
  assert '200 ε-greedy (ε 0.1) episodes' in text
  report['settings']['eval_protocol'] = {'policy': None, 'epsilon': None}
  report['run_settings'] = {'gymnax:Breakout-MinAtar': {
      'ppo': {'eval_protocol': {'policy': 'sampled'}},
      'dqn': {'eval_protocol': {'policy': 'epsilon_greedy',
                                'epsilon': 0.05}}}}
  text = report_markdown.render(report, '/w')
  assert ('200 sampled or ε-greedy (ε 0.05) (each pair\'s default; '
          'appendix A) episodes') in text
