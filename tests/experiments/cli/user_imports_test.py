"""Tests for experiments/cli/user_imports.py."""

from absl.testing import absltest

from experiments.cli import user_imports


class FromArgvTest(absltest.TestCase):

  def test_reads_both_spellings_and_the_last_one_wins(self):
    self.assertEqual(user_imports.from_argv(['prog', '--imports=a.b,c']),
                     ['a.b', 'c'])
    self.assertEqual(user_imports.from_argv(['prog', '--imports', 'x']),
                     ['x'])
    self.assertEqual(user_imports.from_argv(
        ['prog', '--imports=a', '--imports=b']), ['b'])
    self.assertEqual(user_imports.from_argv(['prog', '--agent=ppo']), [])


if __name__ == '__main__':
  absltest.main()
