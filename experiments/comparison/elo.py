"""Elo ratings from games between players (a ladder of checkpoints).

`ratings` fits Bradley-Terry strengths to the games' scores (a win 1, a
draw ½) by Hunter's MM iteration (Hunter, 2004), each pair of players
also credited one virtual draw (a weak prior, as BayesElo's: a player
that won every game gets a finite rating), and states them on the Elo
scale (400 points: odds of 10 to 1), the `anchor` player at 0.
`intervals` resamples each pair's games (a parametric bootstrap of its
won/drawn/lost shares, the prior's draw counted as half a win and half a
loss, so that a clean sweep is not redrawn as one every time) and refits:
percentile intervals of each rating.
"""

from typing import Dict, Mapping, Sequence, Tuple

import numpy as np

# One virtual draw per pair that met: half a point to each side.
PRIOR_DRAWS = 1.0
_ELO = 400.0 / np.log(10.0)  # Elo points per unit of log-strength.


Outcomes = Tuple[int, int, int]  # Won, drawn, lost: the first player's.


def _scores(players: Sequence[str],
            games: Mapping[Tuple[str, str], Outcomes]
           ) -> Tuple[np.ndarray, np.ndarray]:
  """`(points [P, P], games [P, P])`: points i scored against j (with the
  prior's draws), and the games between them."""
  index = {name: i for i, name in enumerate(players)}
  points = np.zeros((len(players),) * 2)
  played = np.zeros((len(players),) * 2)
  for (a, b), (won, drawn, lost) in games.items():
    i, j = index[a], index[b]
    total = won + drawn + lost + PRIOR_DRAWS
    points[i, j] += won + 0.5 * (drawn + PRIOR_DRAWS)
    points[j, i] += lost + 0.5 * (drawn + PRIOR_DRAWS)
    played[i, j] += total
    played[j, i] += total
  return points, played


def _fit(points: np.ndarray, played: np.ndarray,
         iterations: int = 2000) -> np.ndarray:
  """Log-strengths maximising the Bradley-Terry likelihood (MM updates)."""
  wins = points.sum(axis=1)
  strength = np.ones(len(wins))
  for _ in range(iterations):
    pair = played / (strength[:, None] + strength[None, :])
    new = wins / np.maximum(pair.sum(axis=1), 1e-300)
    new /= np.exp(np.mean(np.log(np.maximum(new, 1e-300))))
    if np.allclose(new, strength, rtol=1e-10, atol=0.0):
      strength = new
      break
    strength = new
  return np.log(np.maximum(strength, 1e-300))


def ratings(players: Sequence[str],
            games: Mapping[Tuple[str, str], Outcomes],
            anchor: str) -> Dict[str, float]:
  """Each player's Elo rating, `anchor` at 0, from `games`: for a pair
  `(a, b)`, a's games won, drawn and lost against b. Every player must
  have met another (else ValueError naming it)."""
  players = list(players)
  if anchor not in players:
    raise ValueError(f'anchor {anchor!r} is not a player; players: '
                     f'{", ".join(players)}.')
  points, played = _scores(players, games)
  alone = [p for p, n in zip(players, played.sum(axis=1)) if n == 0]
  if alone:
    raise ValueError(f'no games of {", ".join(alone)}: every player needs '
                     f'games against another to be rated.')
  log_strength = _fit(points, played)
  elo = _ELO * (log_strength - log_strength[players.index(anchor)])
  return dict(zip(players, elo.tolist()))


def intervals(players: Sequence[str],
              games: Mapping[Tuple[str, str], Outcomes], anchor: str,
              resamples: int = 200, level: float = 0.95,
              seed: int = 0) -> Dict[str, Tuple[float, float]]:
  """Percentile intervals (`level`) of each rating: each pair's games
  redrawn `resamples` times from its won/drawn/lost shares (with the
  prior's draw, half a win and half a loss), refitted."""
  rng = np.random.default_rng(seed)
  pairs = list(games)
  drawn = {name: [] for name in players}
  for _ in range(resamples):
    resampled = {}
    for pair in pairs:
      counts = np.asarray(games[pair], float)
      total = int(counts.sum())
      shares = counts + [0.5 * PRIOR_DRAWS, 0.0, 0.5 * PRIOR_DRAWS]
      resampled[pair] = tuple(rng.multinomial(total, shares / shares.sum()))
    for name, value in ratings(players, resampled, anchor).items():
      drawn[name].append(value)
  tail = 100 * (1 - level) / 2
  return {name: (float(np.percentile(values, tail)),
                 float(np.percentile(values, 100 - tail)))
          for name, values in drawn.items()}
