"""Tests for benchmarks/jumanji_peer.py (the peer faked: Jumanji's A2C
runs in the peers' own environment, which tests must not need)."""

from absl.testing import absltest

from benchmarks import jumanji_peer


class JumanjiPeerTest(absltest.TestCase):

  def test_both_sides_run_in_one_setting_alternating(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name
      seen.append((seed, dict(measurement.settings)))
      if measurement.settings['program'] == 'ours':
        return {'steps_per_second': 300.0 + seed, 'eval_return': 0.5}
      return {'steps_per_second': 100.0, 'greedy_return': 0.25}

    report = jumanji_peer.jumanji_a2c('root', 2, run, 25_600)
    self.assertEqual([s[0] for s in seen], [0, 0, 0, 1, 1, 1])
    ours, bootstrapping, theirs = (s[1] for s in seen[:3])
    self.assertEqual(
        (ours['preset'], ours['env'], ours['num_steps'],
         ours['eval_episodes'], ours['agent_config']),
        ('a2c_jumanji_maze', 'jumanji:Maze-v0', 25_600, 100,
         {'bootstrap_time_limits': False}))
    self.assertNotIn('agent_config', bootstrapping)
    self.assertEqual(theirs, {'program': 'jumanji_a2c', 'config': {
        'env': 'maze', 'steps': 25_600, 'eval_episodes': 100}})
    runs = report['jumanji:Maze-v0']['runs']
    self.assertEqual([r['speed_over_jumanji'] for r in runs['ours']],
                     [3.0, 3.01])
    self.assertIn('Maze network', report['setting'])

  def test_a_budget_must_be_whole_updates(self):
    self.assertTrue(jumanji_peer.whole_updates(25_600))
    for steps in (0, 1_000, 2_000, 25_601):
      self.assertFalse(jumanji_peer.whole_updates(steps), steps)


if __name__ == '__main__':
  absltest.main()
