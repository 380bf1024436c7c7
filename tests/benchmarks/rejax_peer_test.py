"""Tests for benchmarks/rejax_peer.py (rejax faked: it runs in the peers'
environment, which tests must not need)."""

from absl.testing import absltest

from benchmarks import peer_runs
from benchmarks import rejax_peer
from tests.benchmarks import peers_test


def _recorded(suite, *args):
  """`(settings by arm name, report, calls)` of `suite` run once with a
  fake runner whose ours is twice as fast as rejax's."""
  seen = {}
  run, calls = peers_test._fake_runner({
      'ours': lambda seed: {'steps_per_second': 200.0},
      'rejax': lambda seed: {'steps_per_second': 100.0}})

  def recording(root, name, measurement, seed):
    seen[name.rsplit('_seed', 1)[0]] = measurement.settings
    return run(root, name, measurement, seed)

  return seen, suite('root', 1, recording, *args), calls


def _settings(test, suite, *args):
  """Each arm's settings (by arm name) of `suite` (`_recorded`),
  checking each of our arms' speed ratio to its rejax arm."""
  seen, report, calls = _recorded(suite, *args)
  for name in seen:
    if name.startswith('ours'):
      rejax = name.replace('ours', 'rejax', 1)
      test.assertEqual(report['runs'][name][0][f'speed_over_{rejax}'], 2.0)
  test.assertEqual([c[0].rsplit('_seed', 1)[0] for c in calls], list(seen))
  return seen


class PPOSeedsTest(absltest.TestCase):

  def test_each_pair_trains_the_same_seeds_in_rejax_s_setting(self):
    seen = _settings(self, rejax_peer.ppo_seeds, [16, 64])
    self.assertEqual(list(seen), ['ours_16_seeds', 'rejax_16_seeds',
                                  'ours_64_seeds', 'rejax_64_seeds'])
    for n in (16, 64):
      ours, rejax = seen[f'ours_{n}_seeds'], seen[f'rejax_{n}_seeds']
      self.assertEqual((ours['num_seeds'], rejax['num_seeds']), (n, n))
      config, agent = rejax['config'], ours['agent_config']
      self.assertEqual(
          (agent['batch_size'], agent['unroll_length'], agent['num_epochs'],
           agent['num_minibatches'], agent['learning_rate'],
           agent['max_grad_norm'], agent['entropy_cost'], ours['num_steps']),
          (config['num_envs'], config['num_steps'], config['num_epochs'],
           config['num_minibatches'], config['learning_rate'],
           config['max_grad_norm'], config['ent_coef'],
           config['total_timesteps']))
      # rejax's returns end at time limits and it clips each gradient
      # entry; so do ours here.
      self.assertFalse(agent['bootstrap_time_limits'])
      self.assertEqual(agent['gradient_clipping'], 'each_entry')


class PeerArithmeticTest(absltest.TestCase):

  def test_every_peer_ends_returns_at_time_limits_rejax_clips_entries(self):
    self.assertEqual(peer_runs.peer_arithmetic('purejaxrl'),
                     {'bootstrap_time_limits': False})
    self.assertEqual(peer_runs.peer_arithmetic('rejax'),
                     {'bootstrap_time_limits': False,
                      'gradient_clipping': 'each_entry'})

  def test_pqn_beside_rejax_runs_rejax_s_arithmetic_and_ours(self):
    seen, report, _ = _recorded(rejax_peer.pqn_cartpole)
    for ours in ('ours', 'ours_bootstrapping'):
      self.assertEqual(report['runs'][ours][0]['speed_over_rejax'], 2.0)
    self.assertEqual(seen['ours']['agent_config'],
                     peer_runs.peer_arithmetic('rejax'))
    self.assertNotIn('agent_config', seen['ours_bootstrapping'])


class PairsTest(absltest.TestCase):

  def test_dqn_pairs_differ_only_in_their_minibatch(self):
    seen = _settings(self, rejax_peer.dqn_cartpole)
    for suffix, batch in rejax_peer.DQN_BATCHES.items():
      self.assertEqual(seen[f'ours{suffix}']['agent_config']['batch_size'],
                       batch)
      self.assertEqual(seen[f'rejax{suffix}']['config']['batch_size'], batch)
      self.assertLessEqual(
          peer_runs.peer_arithmetic('rejax').items(),
          seen[f'ours{suffix}']['agent_config'].items())
    self.assertEqual(seen['ours']['hidden_sizes'],
                     seen['ours_batch_32']['hidden_sizes'])

  def test_sac_pairs_differ_only_in_their_widths(self):
    seen = _settings(self, rejax_peer.sac_pendulum, 2000)
    for suffix, sizes in rejax_peer.SAC_WIDTHS.items():
      self.assertEqual(seen[f'ours{suffix}']['hidden_sizes'], sizes)
      self.assertEqual(seen[f'rejax{suffix}']['config']['hidden_layer_sizes'],
                       list(sizes))
    self.assertEqual(seen['rejax']['config']['batch_size'],
                     seen['rejax_64_64']['config']['batch_size'])

  def test_continuous_ppo_pairs_are_rejax_s_setting_per_game(self):
    seen = _settings(self, rejax_peer.ppo_continuous)
    for suffix, (game, *_) in rejax_peer.PPO_CONTINUOUS.items():
      ours, rejax = seen[f'ours{suffix}'], seen[f'rejax{suffix}']
      agent, config = ours['agent_config'], rejax['config']
      self.assertEqual((ours['env'], config['env']), (f'gymnax:{game}', game))
      self.assertEqual(
          (agent['batch_size'], agent['learning_rate'], agent['discount'],
           ours['num_steps']),
          (config['num_envs'], config['learning_rate'], config['gamma'],
           config['total_timesteps']))
      self.assertEqual(
          (agent['unroll_length'], agent['num_epochs'],
           agent['num_minibatches'], agent['bootstrap_time_limits'],
           agent['gradient_clipping']),
          (config['num_steps'], config['num_epochs'],
           config['num_minibatches'], False, 'each_entry'))
    # rejax's configs/gymnax/pendulum.yaml and continuous_mountaincar.yaml.
    pendulum = seen['rejax_pendulum']['config']
    self.assertEqual(
        (pendulum['num_envs'], pendulum['num_steps'], pendulum['num_epochs'],
         pendulum['num_minibatches'], pendulum['learning_rate'],
         pendulum['gamma'], pendulum['total_timesteps']),
        (100, 100, 10, 10, 1e-3, 0.995, 150_000))
    mountain_car = seen['rejax_mountaincar_continuous']['config']
    self.assertEqual(
        (mountain_car['num_envs'], mountain_car['learning_rate'],
         mountain_car['gamma'], mountain_car['total_timesteps']),
        (5, 3e-4, 0.9, 200_000))


if __name__ == '__main__':
  absltest.main()
