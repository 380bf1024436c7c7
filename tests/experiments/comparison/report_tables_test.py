"""Tests for experiments/comparison/report_tables.py, on a hand-made report."""

from experiments.comparison import report_tables
from experiments.comparison import tables


def _interval(point, low, high):
  return {'point': point, 'low': low, 'high': high}


NORMALISED = {k: _interval(0.5, 0.4, 0.6)
              for k in ('mean', 'median', 'iqm', 'optimality_gap')}


def _report():
  return {
      'settings': {'agents': ['ppo', 'dqn'],
                   'envs': ['plane_strike', 'bsuite:catch/0']},
      'run_settings': {'plane_strike': {'ppo': {
          'preset': 'ppo_plane_strike', 'network': 'mlp_actor_critic',
          'hidden_sizes': [128, 64], 'num_envs': 64,
          'agent_config': {'discount': 0.5}, 'defaults': {'discount': 0.99},
          'differs_from_defaults': {'discount': {'value': 0.5,
                                                 'default': 0.99}}}}},
      'envs': {
          'plane_strike': {
              'label': 'strikes per game',
              'reference': {'low': 57.8, 'high': 11.9, 'source': 's'},
              'agents': {'ppo': {'seeds': [0, 1],
                                 'score': _interval(12.4, 12.18, 12.62),
                                 'normalised': NORMALISED,
                                 'mean_env_steps': 400384.0,
                                 'wall_seconds': 26.5}}},
          'bsuite:catch/0': {
              'label': 'mean return', 'reference': None,
              'agents': {'dqn': {'seeds': [0], 'score': _interval(1, 1, 1),
                                 'mean_env_steps': 1000.0,
                                 'wall_seconds': 3.0}}}},
      'aggregate': {'agents': {'ppo': {'seeds': [0, 1], **NORMALISED}},
                    'probability_of_improvement': [
                        {'x': 'ppo', 'y': 'dqn', 'point': 0.75, 'low': 0.5,
                         'high': 1.0}]},
      'sample_efficiency': {
          'threshold': 0.9, 'fractions': ['50%'],
          'envs': {
              'plane_strike': {'normalised': True, 'agents': {'ppo': {
                  'per_seed': [{}, {}], 'auc': _interval(0.8, 0.7, 0.9),
                  'score_at': {'50%': _interval(0.6, 0.5, 0.7)},
                  'steps_to_threshold': {'reached': 0, 'seeds': 2,
                                         'mean': None}}}},
              'bsuite:catch/0': {'normalised': False, 'agents': {'dqn': {
                  'per_seed': [{}], 'auc': _interval(0.5, 0.5, 0.5),
                  'score_at': {'50%': None}}}}}},
      'per_seed': [
          {'env': 'plane_strike', 'agent': 'ppo', 'seed': 0,
           'status': 'finished', 'reason': '', 'score': 12.0,
           'normalised': 1.0, 'env_steps': 400384, 'wall_seconds': 26.5,
           'seeds_in_program': 2, 'auc': 0.875,
           'steps_to_threshold': 120064},
          {'env': 'plane_strike', 'agent': 'dqn', 'seed': 0,
           'status': 'diverged', 'reason': 'loss = nan', 'score': None,
           'normalised': None, 'env_steps': None, 'wall_seconds': None,
           'seeds_in_program': None}],
  }


def test_score_label_says_lower_is_better():
  report = _report()
  assert report_tables.score_label(report['envs']['plane_strike']) == (
      'strikes per game (lower is better)')
  assert report_tables.score_label(report['envs']['bsuite:catch/0']) == (
      'mean return')
  assert report_tables.agent_title('ppo') == 'PPO'
  assert report_tables.agent_title('not_registered') == 'not_registered'


def test_per_env_tables():
  report = _report()
  table = report_tables.per_env(report, 'plane_strike')
  assert [c.title for c in table.columns][:3] == [
      'Agent', 'Seeds', 'Strikes per game (lower is better): mean [95% CI]']
  assert tables.markdown(table)[2] == (
      '| PPO | 2 | 12.400 [12.180, 12.620] | 0.500 [0.400, 0.600] | '
      '0.500 [0.400, 0.600] | 0.500 [0.400, 0.600] | 0.500 [0.400, 0.600] | '
      '400,384 | 26.5 |')
  assert tables.markdown(table)[3].startswith('| DQN | 0 | no finished run |')
  raw = report_tables.per_env(report, 'bsuite:catch/0')
  assert 'Normalised IQM' not in [c.title for c in raw.columns]
  combined = report_tables.per_env_all(report)
  assert combined.name == 'per_env' and combined.group == ('env',
                                                           'score_measure')
  assert [(r['env'], r['agent']) for r in combined.rows] == [
      ('Plane Strike', 'PPO'), ('Plane Strike', 'DQN'),
      ('catch/0 (bsuite)', 'PPO'), ('catch/0 (bsuite)', 'DQN')]
  assert combined.rows[3]['iqm'] is None  # No reference: blank.


def test_aggregate_and_improvement():
  report = _report()
  assert tables.markdown(report_tables.aggregate(report))[2] == (
      '| PPO | 2 | 0.500 [0.400, 0.600] | 0.500 [0.400, 0.600] | '
      '0.500 [0.400, 0.600] | 0.500 [0.400, 0.600] |')
  assert tables.csv_text(report_tables.improvement(report)) == (
      'x,y,p,p_low,p_high\nPPO,DQN,0.75,0.5,1.0\n')
  report['aggregate'] = {'agents': {}, 'probability_of_improvement': []}
  assert report_tables.aggregate(report) is None
  assert report_tables.improvement(report) is None


def test_outcomes_of_two_player_games_only():
  report = _report()
  assert report_tables.outcomes(report, 'plane_strike') is None
  report['envs']['plane_strike']['agents']['ppo']['outcomes'] = {
      'won': _interval(0.5, 0.4, 0.6), 'drawn': _interval(0.25, 0.2, 0.3),
      'lost': _interval(0.25, 0.2, 0.3), 'opponent': 'minimax'}
  table = report_tables.outcomes(report, 'plane_strike')
  assert [c.key for c in table.columns] == ['agent', 'opponent', 'seeds',
                                            'won', 'drawn', 'lost']
  assert ('| PPO | minimax | 2 | 0.500 [0.400, 0.600] | '
          '0.250 [0.200, 0.300] |') in '\n'.join(tables.markdown(table))
  assert table in report_tables.all_tables(report)


def test_per_seed_table():
  lines = tables.markdown(report_tables.per_seed(_report()))
  assert lines[2] == ('| Plane Strike | PPO | 0 | 12.000 | 1.000 | 0.875 | '
                      '120,064 | 400,384 | 26.5 | 2 | finished |')
  assert lines[3] == ('| Plane Strike | DQN | 0 |  |  |  |  |  |  |  | '
                      'diverged |')


def test_sample_efficiency_tables():
  report = _report()
  lines = tables.markdown(report_tables.sample_efficiency(report,
                                                          'plane_strike'))
  assert lines[0] == ('| Agent | Seeds | AUC [95% CI] | At 50% of budget | '
                      'Env steps to ≥ 0.9 |')
  assert lines[2] == ('| PPO | 2 | 0.800 [0.700, 0.900] | 0.600 [0.500, '
                      '0.700] | not reached |')
  raw = report_tables.sample_efficiency(report, 'bsuite:catch/0')
  assert [c.key for c in raw.columns] == ['agent', 'seeds', 'auc',
                                          'score_at_50pct']
  combined = tables.csv_text(report_tables.sample_efficiency_all(report))
  assert combined.splitlines()[0] == (
      'env,scores,agent,seeds,auc,auc_low,auc_high,score_at_50pct,'
      'score_at_50pct_low,score_at_50pct_high,steps_to_threshold')
  assert 'catch/0 (bsuite),raw mean return,DQN,1,0.5,0.5,0.5,,,,' in combined


def test_all_tables_and_links():
  names = [t.name for t in report_tables.all_tables(_report())]
  assert names == ['per_env', 'aggregate', 'probability_of_improvement',
                   'sample_efficiency', 'per_seed', 'settings_ppo']
  assert report_tables.links(report_tables.per_seed(_report())) == (
      'As CSV: [tables/per_seed.csv](tables/per_seed.csv); as LaTeX: '
      '[tables/per_seed.tex](tables/per_seed.tex).')
  assert report_tables.links(None) == ''
