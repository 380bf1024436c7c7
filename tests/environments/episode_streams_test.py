"""Tests for `environments.episode_streams`."""

from absl.testing import absltest

from environments import episode_streams


class EpisodeSeedTest(absltest.TestCase):

  def test_one_seed_per_stream_and_episode(self):
    seeds = {episode_streams.episode_seed(s, e)
             for s in range(3) for e in range(3)}
    self.assertLen(seeds, 9)
    self.assertEqual(episode_streams.episode_seed(4, 2),
                     episode_streams.episode_seed(4, 2))
    for seed in seeds:
      self.assertBetween(seed, 0, 2**32 - 1)

  def test_negative_episode_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'episode'):
      episode_streams.episode_seed(0, -1)


if __name__ == '__main__':
  absltest.main()
