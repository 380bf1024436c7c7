r"""An Elo ladder of a two-player run's checkpoints: does self-play improve?

Plays every pair of the run's kept checkpoints, and each checkpoint
against the game's opponents (`random` by default; `mcts-<N>`, and
`minimax` for tic-tac-toe), `--games` games a pair, each side drawn per
game; fits Elo ratings to the scores (`experiments.comparison.elo`: a
win 1, a draw ½, one virtual draw per pair) with the first opponent at 0
and 95% intervals from resampled games; prints the ladder and writes it
to the workdir (`ladder.json`, `ladder.csv`).

A run keeps its 2 newest checkpoints unless told otherwise:

  python -m experiments.train --agent=alphazero --env=pgx:tic_tac_toe \
      --num_steps=200000 --keep_checkpoints=0 \
      --checkpoint_every_updates=40 --workdir=runs/ttt_ladder
  python -m experiments.ladder --workdir=runs/ttt_ladder \
      --opponents=random,minimax

`--eval_policy` is how every checkpoint acts: `sampled` (the default), or
`greedy` or `search` (the agent's search, without exploration), under
which two checkpoints replay the same two games (one per side) every
time: their ratings come without intervals.
"""

import csv
import io
import os
import sys
from typing import Any, Dict, List

from absl import app
from absl import flags
from absl import logging

from environments import two_player
from experiments.cli import help_text
from experiments.comparison import elo
from experiments.driver import checkpoint_games
from experiments.loops import evaluation
from experiments.setup import build as build_lib
from experiments.storage import atomic_files
from experiments.storage import checkpointing

LADDER_JSON, LADDER_CSV = 'ladder.json', 'ladder.csv'
LADDER_PROTOCOLS = ('sampled', 'greedy', 'search')

FLAG_GROUPS = {'Ladder': ('workdir', 'seed', 'games', 'opponents',
                          'eval_policy')}


def _define_flags() -> None:
  # Defined only when run as a program, as tests import this module.
  flags.DEFINE_string('workdir', None, 'The training run, which kept '
                      'several checkpoints (--keep_checkpoints=0).')
  flags.DEFINE_integer('seed', None, 'Which seed of a several-seed run '
                       '(default: the run\'s).')
  flags.DEFINE_integer('games', 100, 'Games of each pair.', lower_bound=1)
  flags.DEFINE_list('opponents', ['random'], 'The game\'s opponents to '
                    'rate beside the checkpoints (random, mcts-<N>, minimax '
                    'for tic-tac-toe); the first is rated 0. Empty: the '
                    'oldest checkpoint is.')
  flags.DEFINE_enum('eval_policy', 'sampled', LADDER_PROTOCOLS,
                    'How every checkpoint acts.')


def ladder(workdir: str, games: int = 100, opponents=('random',),
           eval_policy: str = 'sampled', seed=None) -> Dict[str, Any]:
  """Plays the ladder's games and rates the players; the ladder as
  `ladder.json` holds it (also written to `workdir`).

  Raises:
    build_lib.ExperimentError: a workdir that cannot be laddered, a bad
      opponent or protocol (named, with what works).
  """
  if eval_policy not in LADDER_PROTOCOLS:
    raise build_lib.ExperimentError(
        f'--eval_policy must be one of {", ".join(LADDER_PROTOCOLS)}; got '
        f'{eval_policy!r}.')
  if isinstance(games, bool) or not isinstance(games, int) or games < 1:
    raise build_lib.ExperimentError(f'--games must be a positive integer; '
                                    f'got {games!r}.')
  players = checkpoint_games.players(workdir, seed)
  for name in opponents:
    try:
      two_player.check_opponent(name, players.core.env_id)
    except ValueError as e:
      raise build_lib.ExperimentError(f'--opponents: {e}') from e
  why = build_lib.protocol_refusal(players.built.config,
                                   players.built.environment_spec,
                                   eval_policy)
  if why:
    raise build_lib.ExperimentError(f'--eval_policy={eval_policy}: {why}.')
  players = checkpoint_games.restore(players, workdir)
  results = checkpoint_games.play_all(players, games, tuple(opponents),
                                      evaluation.Protocol(eval_policy))
  names = [f'step {step}' for step in sorted(players.params)]
  names += list(opponents)
  anchor = opponents[0] if opponents else names[0]
  ratings = elo.ratings(names, results, anchor)
  # Greedy or searching checkpoints replay the same games (one per side):
  # their counts repeat those games, and resampling them means nothing.
  intervals = (elo.intervals(names, results, anchor)
               if eval_policy == 'sampled' else
               {name: (None, None) for name in names})
  played = {name: 0 for name in names}
  for (a, b), outcomes in results.items():
    played[a] += sum(outcomes)
    played[b] += sum(outcomes)
  result = {
      'workdir': workdir, 'env': players.built.config.env,
      'agent': players.built.config.agent, 'games_per_pair': games,
      'eval_policy': eval_policy, 'anchor': anchor,
      'prior_draws_per_pair': elo.PRIOR_DRAWS,
      'players': [{'player': name, 'elo': ratings[name],
                   'elo_low': intervals[name][0],
                   'elo_high': intervals[name][1], 'games': played[name]}
                  for name in names],
      'games': [{'player': a, 'opponent': b, 'won': w, 'drawn': d,
                 'lost': l} for (a, b), (w, d, l) in results.items()]}
  atomic_files.write_json(os.path.join(workdir, LADDER_JSON), result)
  atomic_files.write_bytes(os.path.join(workdir, LADDER_CSV),
                           _csv(result['players']).encode())
  return result


def _csv(rows: List[Dict[str, Any]]) -> str:
  out = io.StringIO()
  writer = csv.DictWriter(out, fieldnames=list(rows[0]))
  writer.writeheader()
  writer.writerows(rows)
  return out.getvalue()


def render(result: Dict[str, Any]) -> str:
  """The ladder for a terminal: one line per player, by rating."""
  sampled = result['eval_policy'] == 'sampled'
  lines = [f'Elo ladder of {result["agent"]} on {result["env"]}: '
           f'{result["games_per_pair"]} games a pair, '
           f'{result["eval_policy"]} play, {result["anchor"]} at 0' + (
               ' (95% intervals from resampled games).' if sampled else
               ' (no intervals: the checkpoints replay the same games).'),
           f'{"player":<16}{"Elo":>8}  {"95% interval":<18}{"games":>7}']
  for row in sorted(result['players'], key=lambda r: -r['elo']):
    interval = (f'[{row["elo_low"]:.0f}, {row["elo_high"]:.0f}]'
                if row['elo_low'] is not None else '—')
    lines.append(f'{row["player"]:<16}{row["elo"]:>8.0f}  {interval:<18}'
                 f'{row["games"]:>7}')
  lines.append(f'Written to {os.path.join(result["workdir"], LADDER_JSON)} '
               f'and {LADDER_CSV}.')
  return '\n'.join(lines)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}.')
  if not flags.FLAGS.workdir:
    raise app.UsageError('--workdir is required: the training run whose '
                         'checkpoints play.')
  if not flags.FLAGS['verbosity'].present:
    logging.set_verbosity(logging.WARNING)
  try:
    result = ladder(flags.FLAGS.workdir, flags.FLAGS.games,
                    tuple(flags.FLAGS.opponents), flags.FLAGS.eval_policy,
                    flags.FLAGS.seed)
  except build_lib.ExperimentError as e:
    raise app.UsageError(str(e)) from e
  except checkpointing.CheckpointError as e:
    sys.exit(f'FATAL {e}')
  print(render(result))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
