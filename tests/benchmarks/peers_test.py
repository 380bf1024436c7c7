"""Tests for benchmarks/peers.py (peers faked: the real ones
live in their own environment, which tests must not need)."""

import os
import stat

from absl.testing import absltest

from benchmarks import peers


def _fake_runner(figures):
  """A `measure` runner: `figures[program](seed)`, each call recorded."""
  calls = []

  def run(root, name, measurement, seed):
    del root
    program = measurement.settings['program']
    calls.append((name, program, seed, measurement.settings))
    return dict(figures[program](seed))

  return run, calls


class PeerBenchmarksTest(absltest.TestCase):

  def test_missing_peers_are_refused_naming_the_fix(self):
    python = os.path.join(self.create_tempdir().full_path, 'python')
    with self.assertRaisesRegex(peers.PeerSetupError,
                                'setup_peer_venv.sh'):
      peers.check_setup(python, None, ['peers_sac_pendulum'])
    with open(python, 'w') as f:
      f.write('#!/bin/sh\n')
    os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
    peers.check_setup(python, None, ['peers_sac_pendulum'])
    with self.assertRaisesRegex(peers.PeerSetupError,
                                'purejaxrl_source.*purejaxrl/ppo.py'):
      peers.check_setup(python, '/nowhere',
                                  ['peers_gymnax_cartpole'])
    # Other suites need no peers.
    peers.check_setup('/nowhere', None, ['gymnax_cartpole'])

  def test_cartpole_compares_within_each_round(self):
    run, calls = _fake_runner({
        'ours': lambda seed: {'steps_per_second': 300.0 + seed},
        'purejaxrl_ppo': lambda seed: {'steps_per_second': 100.0},
        'rejax': lambda seed: {'steps_per_second': 150.0},
        'our_command': lambda seed: {'seconds': 10.0},
        'purejaxrl_script': lambda seed: {'seconds': 20.0 + seed},
    })
    report = peers.gymnax_cartpole('root', 2, run)
    # Every configuration once per round, in turn: ours in PureJaxRL's
    # arithmetic, in rejax's and bootstrapping time limits, the peers, the
    # commands.
    self.assertEqual([c[2] for c in calls], [0] * 7 + [1] * 7)
    settings = {name[:name.rindex('_seed')]: s for name, _, _, s in calls}
    self.assertEqual(settings['ours']['agent_config'],
                     {'bootstrap_time_limits': False})
    self.assertEqual(settings['ours_as_rejax']['agent_config'],
                     {'bootstrap_time_limits': False,
                      'gradient_clipping': 'each_entry'})
    self.assertNotIn('agent_config', settings['ours_bootstrapping'])
    # Each of ours beside the peers whose arithmetic it does.
    runs = report['runs']
    self.assertEqual([r['speed_over_purejaxrl'] for r in runs['ours']],
                     [3.0, 3.01])
    self.assertNotIn('speed_over_rejax', runs['ours'][0])
    self.assertEqual([r['speed_over_rejax'] for r in runs['ours_as_rejax']],
                     [2.0, 301 / 150])
    self.assertNotIn('speed_over_purejaxrl', runs['ours_as_rejax'][0])
    for who in ('purejaxrl', 'rejax'):
      self.assertIn(f'speed_over_{who}', runs['ours_bootstrapping'][0])
    self.assertEqual(
        [r['seconds_over_purejaxrl_script']
         for r in report['runs']['our_default_command']], [0.5, 10 / 21])
    self.assertEqual(report['median']['ours']['steps_per_second'], 300.5)

  def test_each_game_runs_in_its_kind_s_setting(self):
    seen = []
    run, _ = _fake_runner({
        'ours': lambda seed: {'steps_per_second': 90.0},
        'purejaxrl_ppo': lambda seed: {'steps_per_second': 100.0},
    })

    def recording(root, name, measurement, seed):
      seen.append(dict(measurement.settings))
      return run(root, name, measurement, seed)

    report = peers.ppo_games('root', 1, recording, 20_000,
                             ['Acrobot-v1', 'Freeway-MinAtar'])
    ours, bootstrapping, purejaxrl, *minatar = seen
    self.assertEqual((ours['env'], ours['preset'], ours['num_steps']),
                     ('gymnax:Acrobot-v1', 'ppo_gymnax_cartpole', 500_000))
    self.assertEqual(ours['agent_config'], {'bootstrap_time_limits': False})
    self.assertNotIn('agent_config', bootstrapping)
    self.assertEqual(
        {k: purejaxrl['config'][k] for k in ('ENV_NAME', 'NUM_ENVS', 'LR',
                                               'ACTIVATION')},
        {'ENV_NAME': 'Acrobot-v1', 'NUM_ENVS': 4, 'LR': 2.5e-4,
         'ACTIVATION': 'tanh'})
    self.assertEqual((minatar[0]['env'], minatar[0]['preset'],
                      minatar[0]['num_steps']),
                     ('gymnax:Freeway-MinAtar', 'ppo_breakout_minatar',
                      20_000))
    self.assertEqual(minatar[2]['config']['NUM_ENVS'], 64)
    self.assertEqual(minatar[2]['config']['TOTAL_TIMESTEPS'], 20_000)
    self.assertEqual(
        report['Acrobot-v1']['runs']['ours'][0]['speed_over_purejaxrl'],
        0.9)

  def test_python_loop_compares_wall_seconds(self):
    run, calls = _fake_runner({
        'ours': lambda seed: {'run_seconds': 8.0, 'env_steps': 40_000},
        'sbx': lambda seed: {'seconds': 32.0, 'env_steps': 48_000},
    })

    def faster_with_8(root, name, measurement, seed):
      figures = run(root, name, measurement, seed)
      if name.startswith('8_envs'):  # A quarter of one environment's time.
        figures['run_seconds'] = 2.0
      return figures

    report = peers.python_loop('root', 1, faster_with_8, 40_000, 8)
    self.assertEqual([c[1] for c in calls], ['ours', 'ours', 'sbx'])
    mine = report['runs']['8_envs'][0]
    self.assertEqual(mine['speedup_over_one_env'], 4.0)
    self.assertEqual(mine['speedup_over_sbx'], (40_000 / 2) / (48_000 / 32))


if __name__ == '__main__':
  absltest.main()
