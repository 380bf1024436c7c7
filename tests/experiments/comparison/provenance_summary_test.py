"""Tests for experiments/comparison/provenance_summary.py."""

import copy

from experiments.comparison import provenance_summary

SESSION = {
    'started_utc': '2026-01-02T03:04:05Z', 'python': '3.11.7',
    'packages': {'optax': '0.2.8', 'jax': '0.10.2', 'jaxlib': '0.10.2',
                 'dm-haiku': '0.0.17', 'rlax': '0.1.9', 'gymnax': '1.0.1'},
    'git_commit': 'abc123', 'git_dirty': False, 'platform': 'Linux-6.1',
    'cpu': 'AMD EPYC', 'cpu_count': 2, 'backend': 'cpu',
    'devices': ['cpu x 1'], 'process_count': 1}


def _result(seed, seconds, num_seeds=3, sessions=None, differing=()):
  return {'seed': seed, 'num_seeds': num_seeds, 'provenance': {
      'device_seconds': seconds, 'num_devices': 1,
      'sessions': sessions or [SESSION],
      'differing_between_sessions': list(differing)}}


def test_one_setup_and_device_seconds_once_per_program():
  summary = provenance_summary.summarise({
      'catch': {'ppo': [_result(s, 30.0) for s in range(3)],
                'dqn': [_result(0, 5.0, 1), _result(1, 6.0, 1)]},
      'plane_strike': {'ppo': [_result(s, 40.0) for s in range(3)]}})
  # ppo: 30 + 40 (one program each); dqn: 5 + 6 (one program per seed).
  assert summary['device_seconds'] == 81.0
  assert summary['device_seconds_by_pair'] == {
      'catch': {'ppo': 30.0, 'dqn': 11.0}, 'plane_strike': {'ppo': 40.0}}
  assert summary['programs'] == 4
  assert (summary['runs'], summary['recorded_runs']) == (8, 8)
  assert summary['not_recorded'] == []
  assert summary['differing'] == [] and summary['differing_within_runs'] == []
  assert summary['sessions'] == 1
  assert summary['values']['packages: jax'] == ['0.10.2']
  assert summary['values']['git_dirty'] == [False]
  text = '\n'.join(provenance_summary.markdown(summary))
  assert ('- Python 3.11.7; jax 0.10.2, jaxlib 0.10.2, dm-haiku 0.0.17, '
          'rlax 0.1.9, optax 0.2.8, gymnax 1.0.1' in text)
  assert '- Code: git commit abc123\n' in text
  assert 'uncommitted' not in text
  assert '- CPU: AMD EPYC (2 cores visible)' in text
  assert '- Devices: cpu x 1 (JAX backend cpu, 1 process(es))' in text
  assert '- Compute: 81.0 device-seconds in total (4 training programs of ' in (
      text)
  assert 'started between 2026-01-02T03:04:05Z and 2026-01-02T03:04:05Z' in (
      text)
  assert 'did not all use' not in text and 'not recorded' not in text


def test_differences_between_runs_and_sessions_are_named():
  other = copy.deepcopy(SESSION)
  other.update(started_utc='2026-01-03T00:00:00Z', git_dirty=True,
               devices=['NVIDIA H200 x 8'])
  other['packages']['jax'] = '0.10.3'
  del other['packages']['gymnax']
  summary = provenance_summary.summarise({'catch': {
      'ppo': [_result(0, 10.0, 1)],
      'dqn': [_result(0, 20.0, 1, sessions=[SESSION, other],
                      differing=['git_dirty', 'packages', 'devices'])]}})
  assert summary['differing'] == ['git_dirty', 'devices',
                                  'packages: gymnax', 'packages: jax']
  assert summary['values']['packages: jax'] == ['0.10.2', '0.10.3']
  assert summary['values']['packages: gymnax'] == ['1.0.1', None]
  assert summary['differing_within_runs'] == [
      {'env': 'catch', 'agent': 'dqn', 'seed': 0,
       'keys': ['git_dirty', 'packages', 'devices']}]
  assert summary['sessions'] == 2
  text = '\n'.join(provenance_summary.markdown(summary))
  assert ('**The runs did not all use the same software and hardware**: '
          'they differ in `git_dirty`, `devices`, `packages: gymnax`, '
          '`packages: jax`.' in text)
  assert ('> - DQN on Catch, seed 0: resumed in a session that differs in '
          'git_dirty, packages, devices.' in text)
  assert 'jax 0.10.2 or 0.10.3' in text
  assert 'gymnax 1.0.1 or not recorded' in text
  assert ('git commit abc123 (some sessions **with uncommitted changes**)'
          in text)
  assert '- Devices: cpu x 1 or NVIDIA H200 x 8' in text
  assert 'and 2026-01-03T00:00:00Z' in text


def test_dirty_tree_and_results_without_provenance():
  dirty = {**SESSION, 'git_dirty': True}
  old = {'seed': 1, 'num_seeds': 2}  # Written before provenance.
  summary = provenance_summary.summarise({'plane_strike': {
      'ppo': [_result(0, 50.0, 2, sessions=[dirty]), old],
      'a2c': [{'seed': 0, 'provenance': {'sessions': 'garbled'}}]}})
  assert summary['not_recorded'] == [
      {'env': 'plane_strike', 'agent': 'ppo', 'seed': 1},
      {'env': 'plane_strike', 'agent': 'a2c', 'seed': 0}]
  assert summary['device_seconds'] == 50.0
  assert summary['programs'] == 1
  text = '\n'.join(provenance_summary.markdown(summary))
  assert 'git commit abc123 **with uncommitted changes**' in text
  assert ('> Provenance not recorded for 2 of 3 runs (written before runs '
          'recorded it): PPO on Plane Strike, seed 1; A2C on Plane Strike, '
          'seed 0. The lines below describe the other runs only.' in text)


def test_no_run_recorded():
  summary = provenance_summary.summarise({'catch': {'ppo': [{'seed': 0}]}})
  assert summary['device_seconds'] is None and summary['recorded_runs'] == 0
  assert summary['values'] == {} and summary['first_started_utc'] is None
  (line, _) = provenance_summary.markdown(summary)
  assert line.startswith('Software, hardware and device-seconds: not '
                         'recorded for any of the 1 runs')


def test_seeds_of_one_resumed_program_share_one_line():
  other = {**SESSION, 'python': '3.12.0'}
  summary = provenance_summary.summarise({'catch': {'ppo': [
      _result(s, 10.0, sessions=[SESSION, other], differing=['python'])
      for s in range(3)]}})
  assert len(summary['differing_within_runs']) == 3
  text = '\n'.join(provenance_summary.markdown(summary))
  assert ('> - PPO on Catch, seeds 0, 1, 2: resumed in a session that '
          'differs in python.' in text)
  assert '- Python 3.11.7 or 3.12.0;' in text
  assert summary['device_seconds'] == 10.0
