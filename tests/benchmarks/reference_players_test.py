"""Plane Strike's reference scores are the measured players' means."""

from benchmarks import reference_players
from benchmarks.pages import markdown
from environments import reference_scores


def test_references_are_the_measured_means():
  measured = markdown.load('plane_strike_reference_players.json')
  players = measured['plane_strike_players']
  reference = reference_scores.PLANE_STRIKE
  assert reference.low == round(players['hunt_and_target']['mean'], 2)
  assert reference.high == round(players['bayes_greedy']['mean'], 2)
  assert reference.random_play == round(players['random_untried']['mean'], 1)


def test_measure_reports_every_player():
  figures = reference_players.measure(games=20, seed=0)
  assert set(figures['plane_strike_players']) == {
      'random_untried', 'hunt_and_target', 'bayes_greedy'}
  for player in figures['plane_strike_players'].values():
    assert 8 <= player['min'] <= player['mean'] <= player['max'] <= 64
  assert set(figures['measured']['code']) == set(reference_players.CODE)
