"""Tests for benchmarks/craftax_peer.py (the peer faked: Craftax_Baselines
runs in the peers' own environment, which tests must not need)."""

from absl.testing import absltest

from benchmarks import craftax_peer
from benchmarks import peer_runs
from benchmarks import peers


class CraftaxPeerTest(absltest.TestCase):

  def test_each_width_runs_both_sides_in_one_setting(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name
      seen.append((seed, dict(measurement.settings)))
      if measurement.settings['program'] == 'ours':
        return {'steps_per_second': 300.0 + seed, 'eval_return': 2.0,
                'eval_policy': 'sampled'}
      return {'steps_per_second': 100.0, 'sampled_return': 1.5}

    report = craftax_peer.craftax_ppo(
        'root', 2, run, ['Craftax-Classic-Symbolic-v1'], [512, 64],
        [65_536, 131_072])
    # Per width, both sides once per round, alternating.
    self.assertEqual([s[0] for s in seen], [0, 0, 1, 1] * 2)
    ours, theirs = seen[0][1], seen[1][1]
    self.assertEqual(
        (ours['preset'], ours['env'], ours['num_steps'], ours['hidden_sizes'],
         ours['eval_policy'], ours['agent_config']),
        ('ppo_craftax', 'craftax:Craftax-Classic-Symbolic-v1', 65_536,
         (512, 512, 512), 'sampled', {'bootstrap_time_limits': False}))
    self.assertEqual(theirs['program'], 'craftax_baselines_ppo')
    self.assertEqual(theirs['config'], {
        'env_name': 'Craftax-Classic-Symbolic-v1', 'layer_size': 512,
        'total_timesteps': 65_536, 'eval_episodes': 100,
        'eval_policy': 'sampled'})
    self.assertEqual(seen[4][1]['hidden_sizes'], (64, 64, 64))
    part = report['Craftax-Classic-Symbolic-v1, width 64, 131072 steps']
    self.assertEqual((part['width'], part['steps']), (64, 131_072))
    self.assertEqual(
        [r['speed_over_craftax_baselines'] for r in part['runs']['ours']],
        [3.0, 3.01])

  def test_the_recurrent_suite_runs_both_recurrent_programs(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name, seed
      seen.append(dict(measurement.settings))
      return {'steps_per_second': 100.0, 'sampled_return': 1.0,
              'eval_return': 1.0, 'eval_policy': 'sampled'}

    report = craftax_peer.craftax_ppo(
        'root', 1, run, ['Craftax-Classic-Symbolic-v1'], [512], [65_536],
        recurrent=True)
    ours, theirs = seen
    self.assertEqual((ours['preset'], ours['hidden_sizes']),
                     ('ppo_rnn_craftax', (512, 512)))
    self.assertEqual((theirs['program'], theirs['config']['script']),
                     ('craftax_baselines_ppo', 'ppo_rnn'))
    self.assertIn('ppo_rnn.py', report['setting'])

  def test_a_budget_must_be_whole_updates_one_per_width(self):
    update = craftax_peer.UPDATE_STEPS
    self.assertTrue(peer_runs.widths_and_budgets(
        ['512', '64'], ['65536', '131072'], update))
    for widths, steps in ((['512'], ['65536', '131072']),
                          (['512'], ['100000']), (['0'], ['65536']),
                          (['wide'], ['65536'])):
      self.assertFalse(peer_runs.widths_and_budgets(widths, steps, update),
                       (widths, steps))

  def test_a_missing_checkout_is_refused_naming_it(self):
    with self.assertRaisesRegex(peers.PeerSetupError,
                                'craftax_baselines_source.*ppo.py'):
      peers.check_setup('/bin/sh', None, ['peers_craftax_ppo'],
                        craftax_baselines_source='/nowhere')


if __name__ == '__main__':
  absltest.main()
