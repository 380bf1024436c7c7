"""Tests for benchmarks/xminigrid_peer.py (the peer faked: XLand-MiniGrid's
script runs in the peers' own environment, which tests must not need)."""

from absl.testing import absltest

from benchmarks import peers
from benchmarks import xminigrid_peer


class XMiniGridPeerTest(absltest.TestCase):

  def test_each_gru_size_runs_both_sides_in_one_setting(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name
      seen.append((seed, dict(measurement.settings)))
      if measurement.settings['program'] == 'ours':
        return {'steps_per_second': 300.0 + seed, 'eval_return': 0.9,
                'eval_policy': 'sampled'}
      return {'steps_per_second': 100.0, 'final_eval_return': 0.8}

    report = xminigrid_peer.xminigrid_ppo(
        'root', 2, run, ['MiniGrid-Empty-6x6'], [1024, 256],
        [131_072, 262_144])
    self.assertEqual([s[0] for s in seen], [0, 0, 1, 1] * 2)
    ours, theirs = seen[0][1], seen[1][1]
    self.assertEqual(
        (ours['preset'], ours['env'], ours['env_kwargs'], ours['num_steps'],
         ours['hidden_sizes'], ours['eval_episodes'], ours['eval_policy'],
         ours['agent_config']),
        ('ppo_xminigrid_rnn', 'xminigrid:MiniGrid-Empty-6x6',
         {'direction': True, 'previous_action_reward': True}, 131_072,
         (1024, 256), 80, 'sampled', {'bootstrap_time_limits': False}))
    self.assertEqual(theirs['program'], 'xminigrid_ppo')
    self.assertEqual(theirs['config'], {
        'env_id': 'MiniGrid-Empty-6x6', 'rnn_hidden_dim': 1024,
        'head_hidden_dim': 256, 'total_timesteps': 131_072,
        'eval_episodes': 80})
    self.assertEqual(seen[4][1]['hidden_sizes'], (256, 256))
    part = report['MiniGrid-Empty-6x6, GRU 256, 262144 steps']
    self.assertEqual((part['width'], part['steps']), (256, 262_144))
    self.assertEqual(
        [r['speed_over_xminigrid'] for r in part['runs']['ours']],
        [3.0, 3.01])

  def test_an_xland_grid_plays_the_same_ruleset_on_both_sides(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name, seed
      seen.append(dict(measurement.settings))
      return {'steps_per_second': 100.0}

    report = xminigrid_peer.xminigrid_ppo(
        'root', 1, run, ['XLand-MiniGrid-R1-9x9', 'MiniGrid-Empty-6x6'],
        [128], [131_072], benchmark='trivial-21k', ruleset=7)
    ours, theirs, ours_minigrid, theirs_minigrid = seen
    self.assertEqual(ours['env_kwargs'], {
        'direction': True, 'previous_action_reward': True,
        'benchmark': 'trivial-21k', 'ruleset': 7})
    self.assertEqual((theirs['config']['benchmark_id'],
                      theirs['config']['ruleset_id']), ('trivial-21k', 7))
    # A MiniGrid game plays no ruleset.
    self.assertNotIn('benchmark', ours_minigrid['env_kwargs'])
    self.assertNotIn('benchmark_id', theirs_minigrid['config'])
    part = report['XLand-MiniGrid-R1-9x9, GRU 128, 131072 steps']
    self.assertEqual((part['benchmark_id'], part['ruleset_id']),
                     ('trivial-21k', 7))

  def test_an_xland_grid_needs_a_benchmark(self):
    # The flags' validator: refused before any run.
    self.assertFalse(xminigrid_peer.has_rulesets(
        ['MiniGrid-Empty-6x6', 'XLand-MiniGrid-R1-9x9'], None))
    self.assertTrue(xminigrid_peer.has_rulesets(
        ['XLand-MiniGrid-R1-9x9'], 'trivial-21k'))
    self.assertTrue(xminigrid_peer.has_rulesets(['MiniGrid-Empty-6x6'], None))

  def test_a_missing_checkout_is_refused_naming_it(self):
    with self.assertRaisesRegex(peers.PeerSetupError,
                                'xminigrid_source.*train_single_task.py'):
      peers.check_setup('/bin/sh', None, ['peers_xminigrid_ppo'],
                        xminigrid_source='/nowhere')


if __name__ == '__main__':
  absltest.main()
