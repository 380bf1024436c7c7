"""Tests for benchmarks/side_by_side.py and the peer program's count of
the last training episodes (benchmarks/peer_programs.py): both sides are
measured alike, on the same seeds."""


import numpy as np

from benchmarks import fingerprints
from benchmarks import peer_programs
from benchmarks import reproductions
from benchmarks import side_by_side


def test_the_peer_counts_the_last_episodes_as_ours_does():
  # Updates of 2 steps x 3 environments; episodes end where finished is 1.
  finished = np.zeros((4, 2, 3))
  returns = np.zeros((4, 2, 3))
  finished[3, 1] = 1  # The last update ends 3 episodes of return 5.
  returns[3, 1] = 5.0
  finished[2, 0, 0] = 1  # The one before ends one of return 1.
  returns[2, 0, 0] = 1.0
  returns[2, 0, 1] = 99.0  # Not finished: not counted.
  count = peer_programs._last_episodes_return
  assert count(returns, finished, episodes=3) == {'mean': 5.0, 'episodes': 3}
  assert count(returns, finished, episodes=4) == {'mean': 4.0, 'episodes': 4}
  assert count(returns, np.zeros_like(finished)) == {'mean': None,
                                                      'episodes': 0}


def test_our_two_arms_differ_only_at_time_limits():
  ending = side_by_side.ours('Breakout', bootstrap=False)
  bootstrapping = side_by_side.ours('Breakout', bootstrap=True)
  assert ending.preset == bootstrapping.preset == 'ppo_breakout_minatar'
  first = reproductions.config(ending)
  second = reproductions.config(bootstrapping)
  assert first.agent_config.bootstrap_time_limits is False
  assert second.agent_config.bootstrap_time_limits is True
  assert first.num_steps == second.num_steps == side_by_side.NUM_STEPS
  assert (reproductions.seed_directories(ending, 2, '/runs') !=
          reproductions.seed_directories(bootstrapping, 2, '/runs'))


class _FakePeers:

  def __init__(self):
    self.calls = []

  def peer(self, program, seed, **options):
    self.calls.append((program, seed, options))
    return {'per_seed': [
        {'seed': i, 'training_return': {'mean': float(i), 'episodes': 100}}
        for i in range(options['num_seeds'])]}


def test_purejaxrl_runs_its_minatar_setting_with_our_seeds():
  peers = _FakePeers()
  result = side_by_side.purejaxrl('Asterix', 3, peers, '/purejaxrl')
  ((program, seed, options),) = peers.calls
  assert (program, seed, options['num_seeds'], options['source']) == (
      'purejaxrl_ppo_seeds', 0, 3, '/purejaxrl')
  settings = options['settings']
  assert settings['ENV_NAME'] == 'Asterix-MinAtar'
  assert (settings['NUM_ENVS'], settings['LR'], settings['NUM_MINIBATCHES'],
          settings['ACTIVATION'], settings['TOTAL_TIMESTEPS']) == (
              64, 5e-3, 8, 'relu', 10_000_000)
  # Our preset is that setting.
  config = reproductions.config(side_by_side.ours('Asterix', True))
  assert (config.num_envs or config.agent_config.batch_size) == 64
  assert config.agent_config.learning_rate == settings['LR']
  assert result['training_return'] == {'seeds': 3, 'mean': 1.0,
                                       'range': [0.0, 2.0]}


def test_each_arm_s_fingerprint_rebuilds_that_arm():
  # The arm ending returns at time limits is not the preset's default:
  # its record must say so, or --check calls it stale at once.
  arms = [side_by_side.ours('Breakout', bootstrap) for bootstrap in
          (False, True)]
  record = fingerprints.measured([reproductions.config(a) for a in arms],
                                 [dict(a.overrides) for a in arms])
  assert fingerprints.changes(record) == []


def test_a_second_launch_keeps_the_peer_s_finished_figures(tmp_path):
  calls = []

  def measure():
    calls.append(1)
    return {'training_return': {'seeds': 1, 'mean': 3.0, 'range': [3, 3]}}

  path = str(tmp_path / 'purejaxrl' / 'Breakout-5-seeds.json')
  first = side_by_side._kept(path, measure)
  second = side_by_side._kept(path, measure)
  assert len(calls) == 1
  assert first == second and first['training_return']['mean'] == 3.0
  assert first['seconds'] >= 0
