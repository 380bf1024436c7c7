"""Tests for benchmarks/popgym_arcade_peer.py (the peer faked: POPGym
Arcade's PPO runs in the peers' own environment, which tests must not
need)."""

from absl.testing import absltest

from benchmarks import popgym_arcade_peer


class PopgymArcadePeerTest(absltest.TestCase):

  def test_both_sides_run_in_one_setting_alternating(self):
    seen = []

    def run(root, name, measurement, seed):
      del root, name
      seen.append((seed, dict(measurement.settings)))
      if measurement.settings['program'] == 'ours':
        return {'steps_per_second': 30.0 + seed, 'eval_return': 0.1}
      return {'steps_per_second': 10.0, 'greedy_return': 0.2}

    report = popgym_arcade_peer.popgym_arcade_ppo('root', 2, run,
                                                  ['CartPoleHard'], 4096)
    self.assertEqual([s[0] for s in seen], [0, 0, 1, 1])
    ours, theirs = seen[0][1], seen[1][1]
    self.assertEqual(
        (ours['preset'], ours['env'], ours['num_steps'],
         ours['eval_episodes'], ours['agent_config']),
        ('ppo_popgym_arcade', 'popgym_arcade:CartPoleHard', 4096, 32,
         {'bootstrap_time_limits': False}))
    config = theirs['config']
    self.assertEqual((theirs['program'], config['ENV_NAME'],
                      config['TOTAL_TIMESTEPS'], config['EVAL_EPISODES'],
                      config['NUM_ENVS'] * config['NUM_STEPS'],
                      config['OBS_SIZE'], config['PARTIAL']),
                     ('popgym_arcade_ppo', 'CartPoleHard', 4096, 32, 2048,
                      128, False))
    runs = report['CartPoleHard']['runs']
    self.assertEqual([r['speed_over_popgym_arcade'] for r in runs['ours']],
                     [3.0, 3.1])
    self.assertIn('LayerNorm trunk', report['setting'])

  def test_a_budget_must_be_whole_updates(self):
    for steps in (2048, 8192):
      self.assertTrue(popgym_arcade_peer.whole_updates(steps), steps)
    for steps in (0, 1_000, 3_000):
      self.assertFalse(popgym_arcade_peer.whole_updates(steps), steps)

  def test_its_ppo_plays_every_game_but_autoencode(self):
    self.assertLen(popgym_arcade_peer.PLAYABLE, 27)
    self.assertIn('CartPoleHard', popgym_arcade_peer.PLAYABLE)
    self.assertFalse(any(i.startswith('AutoEncode')
                         for i in popgym_arcade_peer.PLAYABLE))


if __name__ == '__main__':
  absltest.main()
