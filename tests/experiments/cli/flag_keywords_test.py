"""Tests for experiments/cli/flag_keywords.py."""

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver

from experiments.cli import flag_keywords

flags.DEFINE_integer('flag_keywords_test_steps', 5, 'A test flag.')
flags.DEFINE_string('flag_keywords_test_name', 'a', 'A test flag.')


def _command(flag_keywords_test_steps=1, flag_keywords_test_name='z',
             not_a_flag=None, namespace=None):
  del flag_keywords_test_steps, flag_keywords_test_name, not_a_flag
  del namespace


class FlagKeywordsTest(absltest.TestCase):

  def test_parameters_that_are_flags_get_the_flags_values(self):
    with flagsaver.flagsaver(flag_keywords_test_steps=7):
      self.assertEqual(
          flag_keywords.flag_keywords(_command, namespace={'k': 1}),
          {'flag_keywords_test_steps': 7, 'flag_keywords_test_name': 'a',
           'namespace': {'k': 1}})

  def test_given_values_win(self):
    self.assertEqual(flag_keywords.flag_keywords(
        _command, flag_keywords_test_name='b')['flag_keywords_test_name'],
                     'b')


if __name__ == '__main__':
  absltest.main()
