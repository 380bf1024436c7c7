"""Tests for experiments/comparison/programs.py."""

from experiments.comparison import programs


def _seconds(result):
  return result.get('seconds')


def test_seeds_of_one_program_count_once():
  shared = [{'seconds': 40.0, 'num_seeds': 3}, {'seconds': 42.0,
                                                'num_seeds': 3},
            {'seconds': 42.0, 'num_seeds': 3}]
  assert programs.once_per_program(shared, _seconds) == 42.0
  assert programs.count(shared) == 1


def test_seeds_trained_alone_add_up():
  alone = [{'seconds': 10.0}, {'seconds': 12.5, 'num_seeds': 1}]
  assert programs.once_per_program(alone, _seconds) == 22.5
  assert programs.count(alone) == 2


def test_mixed_and_unrecorded():
  results = [{'seconds': 30.0, 'num_seeds': 2}, {'seconds': 30.0,
                                                 'num_seeds': 2},
             {'seconds': 5.0}, {'num_seeds': 1}]  # The last: not recorded.
  assert programs.once_per_program(results, _seconds) == 35.0
  assert programs.count(results) == 3
  assert programs.once_per_program([], _seconds) == 0.0
  assert programs.count([]) == 0
