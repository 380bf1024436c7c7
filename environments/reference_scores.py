"""Reference scores of our games: what a run's score is, and its yardsticks.

A comparison scores each run by one number of its final greedy evaluation
(`result.json`) and normalises it between a weak and a strong reference, so
that scores of different games can be aggregated: 0 is the weak reference,
1 the strong one, on every game (even where fewer is better, as strikes in
Plane Strike).
Each game's entry in `environments.registry` names its reference score.
"""

import dataclasses
from typing import Optional

import numpy as np


@dataclasses.dataclass(frozen=True)
class ReferenceScore:
  """How one game is scored and normalised.

  Attributes:
    metric: the evaluation quantity that is the score: `mean_return` or
      `mean_episode_length` (`result.json` stores it as `eval_<metric>`,
      `eval.csv` as `<metric>`).
    label: what the score counts, for tables and plot axes.
    low: the weak reference (normalised to 0), e.g. a random player, or a
      simple heuristic where random play is so weak that every learner
      would land near 1.
    high: the strong reference (normalised to 1), e.g. the best known player.
    source: where the references come from.
    random_play: the mean score of uniformly random play (legal moves only,
      where the game masks them), measured with the game's default
      settings; None where not measured. A run whose final score is no
      better is warned about (`experiments.driver.collapse`).
    low_name: what the weak reference is, in a few words (for reports and
      plot legends).
    high_name: what the strong reference is, likewise.
  """
  metric: str
  label: str
  low: float
  high: float
  source: str
  random_play: Optional[float] = None
  low_name: str = 'weak reference'
  high_name: str = 'strong reference'

  def normalise(self, scores: np.ndarray) -> np.ndarray:
    """Maps `low` to 0 and `high` to 1 (linear, so means commute)."""
    return (np.asarray(scores, np.float64) - self.low) / (self.high - self.low)

  def scale(self) -> str:
    """What 0 and 1 are, e.g. '0: hunt-and-target play (20.88), 1: exact
    Bayes-greedy play (11.93)'."""
    return (f'0: {self.low_name} ({self.low:g}), '
            f'1: {self.high_name} ({self.high:g})')

  @property
  def higher_is_better(self) -> bool:
    return self.high > self.low


# Measured (`environments.plane_strike_players`, 100,000 games each;
# benchmarks/plane_strike_reference_players.json, whose command is in
# benchmarks/reference_players.py). The weak reference is hunt-and-target
# play, not random play: random play (57.8) is so weak that against it the
# agents of docs/comparing.md's run score 0.92-0.99, though their raw
# scores run from 12.4 to 15.5 strikes.
PLANE_STRIKE = ReferenceScore(
    metric='mean_episode_length', label='strikes per game', low=20.88,
    high=11.93,
    source='hunt-and-target play, a random untried neighbour of a hit '
    'while there is one, else a random untried cell (20.88); greedy play '
    'on the exact Bayesian posterior over the 115 plane placements '
    '(11.93); both measured over 100,000 games',
    random_play=57.8, low_name='hunt-and-target play',
    high_name='exact Bayes-greedy play')
CATCH = ReferenceScore(
    metric='mean_return', label='return', low=-1.0, high=1.0,
    source='the range of returns: every ball missed (-1), every ball '
    'caught (1)', low_name='every ball missed',
    high_name='every ball caught',
    # Uniformly random actions on the JAX core, 100,000 episodes (one jitted,
    # vmapped scan; keys split from PRNGKey(0)): mean -0.602, standard error
    # 0.0025.
    random_play=-0.602)
CARTPOLE = ReferenceScore(
    metric='mean_return', label='return', low=22.3, high=500.0,
    source='uniformly random actions (22.3, mean of 100,000 episodes of '
    'the JAX core), the 500-step cap (500)', random_play=22.3,
    low_name='random actions', high_name='the 500-step cap')


def above_random_play(random_play: float, high: float, high_name: str,
                      measured: str) -> ReferenceScore:
  """A game scored by its return between uniformly random play (measured,
  as `measured` says) and `high` (e.g. the largest return possible)."""
  return ReferenceScore(
      metric='mean_return', label='return', low=random_play, high=high,
      source=f'uniformly random actions ({random_play:g}, {measured}), '
      f'{high_name} ({high:g})', random_play=random_play,
      low_name='random actions', high_name=high_name)
