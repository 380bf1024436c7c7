"""Tests for benchmarks/connect_four.py (its arithmetic; the run is the
benchmark's)."""

import numpy as np

from benchmarks import connect_four


def test_outcomes_count_games_and_score_a_draw_as_half():
  got = connect_four.outcomes(np.array([1.0, 1.0, 0.0, -1.0]))
  assert got == {'games': 4, 'won': 2, 'drawn': 1, 'lost': 1,
                 'score': 0.625}


def test_every_way_of_playing_is_a_protocol_with_its_search():
  assert connect_four.WAYS['search'] == ('search', None)
  assert connect_four.WAYS['deep_search'] == (
      'search', {'num_simulations': connect_four.DEEP_SIMULATIONS})
  assert connect_four.WAYS['greedy'] == ('greedy', None)
