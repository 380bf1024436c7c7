r"""AlphaZero's connect four against MCTS with random playouts, seed by seed.

Trains `--seeds` seeds of the preset `alphazero_connect_four` (self-play,
side by side in one program) and plays each seed `--games` games against
`mcts-200` (pgx's connect four; 200 simulations of uniformly random
playouts a move), the agent's side drawn per game, three ways:

  * `search`: the agent plays its search (the preset's simulations,
    without self-play's exploration: `--eval_policy=search`);
  * `deep_search`: the same search with `DEEP_SIMULATIONS` simulations
    (`api.evaluate(..., search_settings={'num_simulations': ...})`);
  * `greedy`: the network alone, the exported model's play.

The score is won + ½ drawn.

  python -m benchmarks.connect_four --seeds=3 \
      --output=benchmarks/alphazero_connect_four_learning.json
"""

import json
import os
import time
from typing import Any, Dict, Optional

from absl import flags
import numpy as np

from benchmarks import fingerprints
from experiments import api
from experiments.cli import help_text
from experiments.storage import atomic_files

PRESET = 'alphazero_connect_four'
ENV = 'pgx:connect_four'
OPPONENT = 'mcts-200'
DEEP_SIMULATIONS = 128
# Each way of playing: its protocol and its search settings.
WAYS = {'search': ('search', None),
        'deep_search': ('search', {'num_simulations': DEEP_SIMULATIONS}),
        'greedy': ('greedy', None)}

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('seeds', 'games', 'num_steps', 'workdir'),
               'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('seeds', 3, 'Seeds, trained side by side.',
                       lower_bound=1)
  flags.DEFINE_integer('games', 200, f'Games of each seed against '
                       f'{OPPONENT}, each way of playing.', lower_bound=1)
  flags.DEFINE_integer('num_steps', None, 'Training steps; default: the '
                       'preset\'s.', lower_bound=1)
  flags.DEFINE_string('workdir', '/tmp/benchmarks/connect_four',
                      'Where the run trains (a finished one is measured '
                      'again, not retrained).')
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


def outcomes(returns: np.ndarray) -> Dict[str, Any]:
  """Games won, drawn and lost, and the score (won + ½ drawn, a share)."""
  returns = np.asarray(returns)
  won, drawn = int((returns > 0).sum()), int((returns == 0).sum())
  return {'games': int(returns.size), 'won': won, 'drawn': drawn,
          'lost': int((returns < 0).sum()),
          'score': (won + 0.5 * drawn) / returns.size}


def seed_result(run: Any, seed: int, games: int) -> Dict[str, Any]:
  """One seed's games against the opponent, each way of playing."""
  policy = run.policy(seed)
  return {'seed': seed, **{
      way: outcomes(api.evaluate(policy, episodes=games, protocol=protocol,
                                 seed=seed, search_settings=search).returns)
      for way, (protocol, search) in WAYS.items()}}


def measure(seeds: int, games: int, num_steps: Optional[int],
            workdir: str) -> Dict[str, Any]:
  """Trains (or reads) the run and measures every seed."""
  settings = dict(agent='alphazero', preset=PRESET, env=ENV,
                  num_seeds=seeds, env_config={'opponent': OPPONENT},
                  eval_policy='search', export_tflite=False,
                  eval_episodes=games)
  if num_steps:
    settings['num_steps'] = num_steps
  run = api.train(workdir=workdir, progress=False, announce=False,
                  **settings)
  start = time.perf_counter()
  config = run.config
  results = [seed_result(run, config.seed + i, games)
             for i in range(seeds)]
  program = run.lane_results[0]  # The seeds share one program's time.
  return {'alphazero_connect_four': results, 'settings': dict(
      settings, num_steps=config.num_steps,
      agent_config=config.to_dict()['agent_config'],
      network=config.network, hidden_sizes=config.hidden_sizes),
          'deep_simulations': DEEP_SIMULATIONS,
          'wall_seconds': program['wall_seconds'],
          'time_account': program['time_account'],
          'measure_seconds': time.perf_counter() - start,
          'measured': {'commit': fingerprints.commit(),
                       'code': fingerprints.code_hashes([
                           'agents/alphazero.py', 'agents/search.py',
                           'environments/pgx_adapter.py',
                           'environments/two_player.py',
                           'environments/board_opponents.py'])}}


def main(argv):
  del argv
  f = flags.FLAGS
  text = json.dumps(measure(f.seeds, f.games, f.num_steps,
                            os.path.expanduser(f.workdir)), indent=1)
  print(text)
  if f.output:
    atomic_files.write_bytes(f.output, (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
