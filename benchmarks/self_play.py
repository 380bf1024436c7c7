r"""AlphaZero's tic-tac-toe against a perfect player, seed by seed.

Trains `--seeds` seeds of the preset `alphazero_tic_tac_toe` (self-play,
in one program) and measures each seed's exported policy, the network
without search, two ways:

  * `--games` games against the perfect player (`minimax`: random among
    the best moves), the agent's side drawn per game: wins, draws, losses;
  * exactly (`board_opponents.tic_tac_toe_audit`): the policy's move in
    every position it meets from either side against every line a perfect
    player may choose; no suboptimal position means it never loses to one.

  python -m benchmarks.self_play --seeds=5 \
      --output=benchmarks/alphazero_tic_tac_toe_learning.json
"""

import json
import os
import time
from typing import Any, Dict, Optional

from absl import flags
import numpy as np

from benchmarks import fingerprints
from environments import board_opponents
from experiments import api
from experiments.cli import help_text
from experiments.storage import atomic_files

PRESET = 'alphazero_tic_tac_toe'
ENV = 'pgx:tic_tac_toe'
OPPONENT = 'minimax'

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('seeds', 'games', 'num_steps', 'workdir'),
               'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('seeds', 5, 'Seeds, trained side by side.',
                       lower_bound=1)
  flags.DEFINE_integer('games', 400, 'Games of each seed against the '
                       'perfect player.', lower_bound=1)
  flags.DEFINE_integer('num_steps', None, 'Training steps; default: the '
                       'preset\'s.', lower_bound=1)
  flags.DEFINE_string('workdir', '/tmp/benchmarks/self_play',
                      'Where the run trains (a finished one is measured '
                      'again, not retrained).')
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


def seed_result(run: Any, seed: int, games: int) -> Dict[str, Any]:
  """One seed's games against the perfect player and its audit."""
  policy = run.policy(seed)
  episodes = api.evaluate(policy, episodes=games, seed=seed)
  returns = np.asarray(episodes.returns)
  audit = board_opponents.tic_tac_toe_audit(policy.predict)
  return {'seed': seed, 'games': games,
          'won': int((returns > 0).sum()), 'drawn': int((returns == 0).sum()),
          'lost': int((returns < 0).sum()),
          'positions': audit['positions'],
          'suboptimal': audit['suboptimal']}


def measure(seeds: int, games: int, num_steps: Optional[int],
            workdir: str) -> Dict[str, Any]:
  """Trains (or reads) the run and measures every seed."""
  settings = dict(agent='alphazero', preset=PRESET, env=ENV,
                  num_seeds=seeds, env_config={'opponent': OPPONENT},
                  export_tflite=False, eval_episodes=games)
  if num_steps:
    settings['num_steps'] = num_steps
  start = time.perf_counter()
  run = api.train(workdir=workdir, progress=False, announce=False,
                  **settings)
  seconds = time.perf_counter() - start
  config = run.config
  results = [seed_result(run, config.seed + i, games)
             for i in range(seeds)]
  return {'alphazero_tic_tac_toe': results, 'settings': dict(
      settings, num_steps=config.num_steps,
      agent_config=config.to_dict()['agent_config'],
      network=config.network, hidden_sizes=config.hidden_sizes),
          'train_and_measure_seconds': seconds,
          'measured': {'commit': fingerprints.commit(),
                       'code': fingerprints.code_hashes([
                           'agents/alphazero.py',
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
