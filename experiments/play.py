"""Plays Plane Strike, or a two-player board game, against an exported
policy in the terminal.

The game of the TensorFlow Lite Android example: you and the agent each have
an 8x8 board with one hidden plane (8 cells, placed by the reference
sampler). You strike first, then turns alternate; the first to hit all 8
cells of the other's plane wins. The agent runs the `.tflite` model on its
view of your board (0 untried, 1 hit, -1 miss) and strikes the most
probable untried cell, as the app does.

Type a strike as a column letter A-H then a row number 1-8, e.g. `C5`
(case and spaces are ignored: ` c 5 ` is C5); `q` or `quit` leaves.

  python -m experiments.play --agent_model=runs/default/planestrike.tflite

`--game=pgx:tic_tac_toe`, `pgx:connect_four`, `pgx:othello` or
`pgx:go_9x9` plays that game against a model trained on it (e.g. by `--agent=alphazero`): you and
the agent take turns on one board, you first unless `--agent_first`
(`experiments.board_play`).

  python -m experiments.train --agent=alphazero --env=pgx:tic_tac_toe \
      --workdir=runs/tic_tac_toe
  python -m experiments.play --game=pgx:tic_tac_toe \
      --agent_model=runs/tic_tac_toe/pgxtictactoe.tflite
"""

import os
import re
import sys
from typing import Callable, Optional, Tuple

from absl import app
from absl import flags
from absl import logging
import jax
import numpy as np

from agents import greedy
from environments import plane_strike
from experiments import board_play
from experiments.cli import help_text
from experiments.driver import workdir as workdir_lib
from experiments.export import litert_policies
from experiments.setup import extras

SIZE = 8
COLUMNS = 'ABCDEFGH'
PROMPT = 'Your strike (column A-H + row 1-8, e.g. C5; q quits): '
_EXPECTED = 'type a column letter A-H and a row number 1-8, e.g. C5 (q quits)'
_FIX = ('run ./run.sh, which writes runs/default/planestrike.tflite, or '
        'export one with `python -m experiments.export_tflite --workdir=...`')

Policy = Callable[[np.ndarray], np.ndarray]  # [8, 8] board -> [64] probs.


class InvalidStrike(ValueError):
  """A typed strike that cannot be played; the message says why."""


def cell_name(cell: int) -> str:
  """Action index (row * 8 + col) -> coordinate such as 'C5'."""
  row, col = divmod(cell, SIZE)
  return f'{COLUMNS[col]}{row + 1}'


def parse_cell(text: str) -> int:
  """Coordinate such as 'C5', ' c 5 ' -> action index (row * 8 + col)."""
  compact = ''.join(text.split()).upper()
  if not compact:
    raise InvalidStrike(f'Empty input: {_EXPECTED}.')
  match = re.fullmatch(r'([A-Z])(\d+)', compact)
  if not match:
    raise InvalidStrike(f'{text.strip()!r} is not a coordinate: {_EXPECTED}.')
  letter, row = match.group(1), int(match.group(2))
  if letter not in COLUMNS or not 1 <= row <= SIZE:
    raise InvalidStrike(f'{compact} is off the board: columns are A-H and '
                        f'rows 1-8, e.g. C5.')
  return (row - 1) * SIZE + COLUMNS.index(letter)


class Game:
  """Both sides of one game; pure logic, no I/O.

  `person` holds your plane and the agent's strikes on it; `agent` holds the
  agent's plane and your strikes. Each is a `PlaneStrikeState` stepped by
  the game's own `PlaneStrike` core, so hits and misses follow its rules.
  """

  def __init__(self, policy: Policy, seed: int = 0):
    self._policy = policy
    self._core = plane_strike.PlaneStrike(SIZE)
    self._step = jax.jit(self._core.step)
    person_key, agent_key = jax.random.split(jax.random.PRNGKey(seed))
    self.person, _ = self._core.reset(person_key)
    self.agent, _ = self._core.reset(agent_key)

  def _strike(self, state: plane_strike.PlaneStrikeState, cell: int
             ) -> Tuple[plane_strike.PlaneStrikeState, bool]:
    state, _ = self._step(state, np.int32(cell))
    return state, bool(np.asarray(state.board).reshape(-1)[cell] == 1)

  def strike_agent_board(self, cell: int) -> bool:
    """Your strike on the agent's board; True on a hit."""
    if self.winner is not None:
      raise InvalidStrike(f'The game is over: {self.winner} won.')
    board = np.asarray(self.agent.board).reshape(-1)
    if board[cell] != 0:
      raise InvalidStrike(
          f'{cell_name(cell)} was already struck '
          f'({"hit" if board[cell] > 0 else "miss"}): pick an untried cell '
          f'(shown as .).')
    self.agent, hit = self._strike(self.agent, cell)
    return hit

  def agent_move(self) -> Tuple[int, bool]:
    """The agent strikes the argmax of its policy among untried cells."""
    if self.winner is not None:
      raise InvalidStrike(f'The game is over: {self.winner} won.')
    board = np.asarray(self.person.board)
    probabilities = np.asarray(self._policy(board)).reshape(-1)
    untried = board.reshape(-1) == 0
    cell = int(greedy.greedy_actions(probabilities, untried))
    self.person, hit = self._strike(self.person, cell)
    return cell, hit

  @property
  def winner(self) -> Optional[str]:
    """'you', 'the agent', or None while neither plane is found."""
    if int(self.agent.hits) == plane_strike.PLANE_CELLS:
      return 'you'
    if int(self.person.hits) == plane_strike.PLANE_CELLS:
      return 'the agent'
    return None

  @property
  def strikes(self) -> Tuple[int, int]:
    """(your strikes, the agent's strikes)."""
    return int(self.agent.steps), int(self.person.steps)

  def render(self, reveal: bool = False) -> str:
    """Both boards side by side; the agent's plane shows only if `reveal`."""
    sides = [(self.person, True, 'Your board', 'Agent'),
             (self.agent, reveal, "Agent's board", 'You')]
    columns = []
    for state, show_plane, title, striker in sides:
      board, plane = np.asarray(state.board), np.asarray(state.plane)
      rows = [title, '   ' + ' '.join(COLUMNS)]
      for r in range(SIZE):
        marks = ['X' if v > 0 else 'o' if v < 0 else
                 '#' if show_plane and p else '.'
                 for v, p in zip(board[r], plane[r])]
        rows.append(f'{r + 1:2d} ' + ' '.join(marks))
      rows.append(f'{striker}: strikes {int(state.steps)}, '
                  f'hits {int(state.hits)}/{plane_strike.PLANE_CELLS}')
      columns.append(rows)
    lines = [f'{left:<30}{right}'.rstrip() for left, right in zip(*columns)]
    lines.append('# plane   X hit   o miss   . untried')
    return '\n'.join(lines)


def play(game: Game, read: Callable[[str], str] = input,
         write: Callable[[str], None] = print, echo: bool = False
        ) -> Optional[str]:
  """Runs the game loop on `read`/`write`; returns the winner, if any.

  `echo` repeats each typed line, so piped transcripts read like a session.
  EOF, Ctrl-C or `q` leave the game early and reveal the agent's plane.
  """
  write(game.render())
  while game.winner is None:
    try:
      line = read(PROMPT)
    except (EOFError, KeyboardInterrupt):
      write('\nInput ended: leaving the game unfinished.')
      write(game.render(reveal=True))
      return None
    if echo:
      write(line)
    if line.strip().lower() in ('q', 'quit'):
      write('You left the game.')
      write(game.render(reveal=True))
      return None
    try:
      cell = parse_cell(line)
      hit = game.strike_agent_board(cell)
    except InvalidStrike as e:
      write(str(e))
      continue
    write(f'\nYou strike {cell_name(cell)}: {"hit" if hit else "miss"}.')
    if game.winner is None:
      cell, hit = game.agent_move()
      write(f'Agent strikes {cell_name(cell)}: {"hit" if hit else "miss"}.')
    write(game.render(reveal=game.winner is not None))
  yours, agents = game.strikes
  write(f'{"You win" if game.winner == "you" else "The agent wins"}! '
        f'Strikes: you {yours}, agent {agents}.')
  return game.winner


def check_contract(policy: litert_policies.TFLitePolicy, path: str,
                   observation_shape=(SIZE, SIZE),
                   num_actions: int = SIZE * SIZE,
                   game: str = 'Plane Strike', fix: str = _FIX) -> None:
  """Raises `app.UsageError` unless the model maps one float32
  observation of `observation_shape` to `num_actions` float32
  probabilities (Plane Strike's: [1, 8, 8] -> [1, 64])."""
  (i_type, i_shape), (o_type, o_shape) = (
      (np.dtype(d['dtype']).name, [int(n) for n in d['shape']])
      for d in (policy.input_details, policy.output_details))
  want_in, want_out = [1, *observation_shape], [1, num_actions]
  if (i_type, i_shape, o_type, o_shape) != (
      'float32', want_in, 'float32', want_out):
    raise app.UsageError(
        f'--agent_model {path!r} maps {i_type} {i_shape} -> {o_type} '
        f'{o_shape}, not the {game} float32 {want_in} -> {want_out}; '
        f'{fix}.')


def load_policy(path: Optional[str], fix: str = _FIX
               ) -> litert_policies.TFLitePolicy:
  """The model at `path`, or `app.UsageError` naming --agent_model (its
  contract is checked by `check_contract`)."""
  if not path:
    raise app.UsageError(f'--agent_model is required: the .tflite policy to '
                         f'play against; {fix}.')
  if not os.path.isfile(path):
    raise app.UsageError(f'--agent_model {path!r} is not a file; {fix}.')
  try:
    return litert_policies.TFLitePolicy(path)
  except (ValueError, RuntimeError) as e:  # What LiteRT raises.
    raise app.UsageError(f'--agent_model {path!r} cannot be loaded as a '
                         f'one-input, one-output .tflite model ({e}); '
                         f'{fix}.') from e


def _board_game_fix(game: str) -> str:
  """How to get a model of board game `game`."""
  workdir = f'runs/{board_play.game_id(game)}'
  return (f'train and export one, e.g. `python -m experiments.train '
          f'--agent=alphazero --env={game} --workdir={workdir}`, which '
          f'writes {workdir}/{workdir_lib.export_filename(game)}')


def play_board_game(game: str, path: Optional[str], agent_first: bool,
                    seed: int) -> Optional[str]:
  """`board_play.play` of `game` against the model at `path`."""
  fix = _board_game_fix(game)
  policy = load_policy(path, fix)
  board = board_play.BoardGame(policy, game, agent_first, seed)
  check_contract(policy, path, board.observation_shape, board.num_actions,
                 game, fix)
  print(f'{game}: you are X, the agent O; '
        f'{"the agent moves" if agent_first else "you move"} first. '
        f'Type a move as {board.layout.example!r}; q quits.\n')
  return board_play.play(board, echo=not sys.stdin.isatty())


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {'Game': ('game', 'agent_model', 'agent_first', 'seed')}


def _define_flags() -> None:
  # Defined only when run as a program, as tests import this module.
  flags.DEFINE_string('agent_model', None,
                      'Exported .tflite policy to play against, e.g. '
                      'runs/default/planestrike.tflite.')
  flags.DEFINE_string('game', 'plane_strike',
                      f'The game: plane_strike, or a two-player board game '
                      f'({", ".join(board_play.GAMES)}) against a model '
                      f'trained on it.')
  flags.DEFINE_boolean('agent_first', False,
                       'Board games: the agent moves first (else you do).')
  flags.DEFINE_integer('seed', 0, 'Seeds both hidden planes (Plane Strike; '
                       'the board games draw nothing).')


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}.')
  try:
    extras.require('export', 'Playing an exported model',
                   modules=('ai_edge_litert',))
  except extras.MissingExtra as e:
    raise app.UsageError(str(e)) from e
  if not flags.FLAGS['verbosity'].present:
    logging.set_verbosity(logging.WARNING)  # JAX's backend notes, as train.
  game = flags.FLAGS.game
  if game != 'plane_strike':
    try:
      board_play.game_id(game)
    except ValueError as e:
      raise app.UsageError(str(e)) from e
    play_board_game(game, flags.FLAGS.agent_model, flags.FLAGS.agent_first,
                    flags.FLAGS.seed)
    return
  if flags.FLAGS.agent_first:
    raise app.UsageError('--agent_first is for board games: in Plane '
                         'Strike you strike first.')
  policy = load_policy(flags.FLAGS.agent_model)
  check_contract(policy, flags.FLAGS.agent_model)
  print('Plane Strike: find the 8 cells of the agent\'s hidden plane before '
        'it finds yours.\nStrike by typing a column letter and a row '
        'number, e.g. C5; q quits.\n')
  play(Game(policy, flags.FLAGS.seed), echo=not sys.stdin.isatty())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
