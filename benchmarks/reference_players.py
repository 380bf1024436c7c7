r"""Plane Strike's scripted players measured: the game's reference scores.

Each player of `environments.plane_strike_players` (a random untried
cell; hunt-and-target; greedy on the exact Bayesian posterior) plays
`--games` games of the JAX core, game j placed and played from
`fold_in(PRNGKey(--seed), j)`, all at once; strikes per game, their mean
and its standard error. `environments.reference_scores.PLANE_STRIKE`
takes its references from this JSON (a test holds them equal).

  python -m benchmarks.reference_players --games=100000 \
      --output=benchmarks/plane_strike_reference_players.json
"""

import json
import time
from typing import Any, Dict

from absl import flags
import jax
import numpy as np

from benchmarks import fingerprints
from environments import plane_strike_players
from experiments.cli import help_text
from experiments.storage import atomic_files

# The code the figures come from (their JSON's `measured` block).
CODE = ('environments/plane_strike.py', 'environments/plane_strike_players.py')

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('games', 'seed'), 'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('games', 100_000, 'Games per player.', lower_bound=1)
  flags.DEFINE_integer('seed', 0, 'Games j use fold_in(PRNGKey(seed), j).')
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


def measure(games: int, seed: int) -> Dict[str, Any]:
  """Every player's strikes per game over `games` games."""
  players = {}
  for name, player in plane_strike_players.players().items():
    start = time.perf_counter()
    strikes = plane_strike_players.play(player, games,
                                        jax.random.PRNGKey(seed))
    players[name] = {
        'mean': float(strikes.mean()),
        'standard_error': float(strikes.std(ddof=1) / np.sqrt(games)),
        'median': float(np.median(strikes)),
        'min': int(strikes.min()), 'max': int(strikes.max()),
        'seconds': time.perf_counter() - start}
  return {'plane_strike_players': players, 'games': games, 'seed': seed,
          'board_size': 8,
          'measured': {'commit': fingerprints.commit(),
                       'code': fingerprints.code_hashes(list(CODE))}}


def main(argv):
  del argv
  f = flags.FLAGS
  text = json.dumps(measure(f.games, f.seed), indent=1)
  print(text)
  if f.output:
    atomic_files.write_bytes(f.output, (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
