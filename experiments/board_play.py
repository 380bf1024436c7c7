"""A two-player board game against an exported policy, in the terminal.

pgx's tic-tac-toe, connect four, othello and 9x9 go
(`environments.pgx_adapter`), as the model was trained on them: you and
the agent take turns on one board. In othello a player with no move
passes (the game's last action); yours is played for you. In go either
player may pass at any time; two passes in a row end the game, scored by
area with pgx's komi.
The agent runs the `.tflite` model on the board from its side (its marks,
then yours: the observation it learned from) and plays the most probable
legal move; the model gives illegal moves probability 0 itself.

`play` (`experiments.play --game=pgx:<id>`) runs the loop; `BoardGame` is
the game's logic, with no I/O.
"""

import dataclasses
import re
from typing import Callable, Dict, Optional

import jax
import numpy as np

from agents import greedy
from environments import pgx_adapter

Policy = Callable[[np.ndarray], np.ndarray]  # Observation -> [A] probs.


@dataclasses.dataclass(frozen=True)
class Layout:
  """How a game's moves are typed and its board drawn.

  Attributes:
    rows, columns: the board's size.
    drop: a move names a column (a piece drops to its lowest empty cell,
      connect four); else a cell, column letter then row number.
    passes: the action after the board's cells is a pass (othello: legal
      only to a player with no other move).
    pass_any_time: the pass is legal at any time (go).
    blocked: why an empty cell the rules refuse is refused.
  """
  rows: int
  columns: int
  drop: bool
  passes: bool = False
  pass_any_time: bool = False
  blocked: str = ''

  @property
  def pass_action(self) -> Optional[int]:
    return self.rows * self.columns if self.passes else None

  @property
  def letters(self) -> str:
    return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[:self.columns]

  @property
  def example(self) -> str:
    return 'C' if self.drop else 'B2'

  @property
  def prompt(self) -> str:
    last = self.letters[-1]
    what = (f'column A-{last}' if self.drop else
            f'column A-{last} + row 1-{self.rows}')
    passing = ' or pass' if self.pass_any_time else ''
    return f'Your move ({what}, e.g. {self.example}{passing}; q quits): '

  @property
  def expected(self) -> str:
    last = self.letters[-1]
    if self.drop:
      return f'type a column letter A-{last}, e.g. C (q quits)'
    passing = ', or pass' if self.pass_any_time else ''
    return (f'type a column letter A-{last} then a row number '
            f'1-{self.rows}, e.g. B2{passing} (q quits)')


# The games a person plays here: those of `pgx_adapter.PLAYABLE_TWO_PLAYER_IDS`
# with a board drawn as a grid of cells (not animal shogi's moving pieces).
LAYOUTS: Dict[str, Layout] = {
    'tic_tac_toe': Layout(rows=3, columns=3, drop=False),
    'connect_four': Layout(rows=6, columns=7, drop=True),
    'othello': Layout(rows=8, columns=8, drop=False, passes=True,
                      blocked='that move turns no disc'),
    'go_9x9': Layout(rows=9, columns=9, drop=False, passes=True,
                     pass_any_time=True,
                     blocked='a stone there would have no liberty, or '
                     'retake a ko at once'),
}
GAMES = tuple(f'pgx:{name}' for name in LAYOUTS)


class InvalidMove(ValueError):
  """A typed move that cannot be played; the message says why."""


def game_id(game: str) -> str:
  """'pgx:tic_tac_toe' -> 'tic_tac_toe'; other names are refused, listing
  the games played here."""
  name = game[len('pgx:'):] if game.startswith('pgx:') else None
  if name not in LAYOUTS:
    raise ValueError(f'--game={game!r} is not a board game played here; '
                     f'the games: plane_strike, {", ".join(GAMES)}.')
  return name


def move_name(action: int, layout: Layout) -> str:
  """Action index -> what a person types: 'C' (a column) or 'B2' (a
  cell, row by row); 'pass' in a game with passes."""
  if action == layout.pass_action:
    return 'pass'
  if layout.drop:
    return layout.letters[action]
  row, column = divmod(action, layout.columns)
  return f'{layout.letters[column]}{row + 1}'


def parse_move(text: str, layout: Layout) -> int:
  """What a person typed ('c', ' B 2 ') -> action index."""
  compact = ''.join(text.split()).upper()
  if not compact:
    raise InvalidMove(f'Empty input: {layout.expected}.')
  if layout.passes and compact == 'PASS':
    return layout.pass_action
  pattern = r'([A-Z])' if layout.drop else r'([A-Z])(\d+)'
  match = re.fullmatch(pattern, compact)
  if not match:
    raise InvalidMove(f'{text.strip()!r} is not a move: {layout.expected}.')
  letter = match.group(1)
  if letter not in layout.letters:
    raise InvalidMove(f'{compact} is off the board: {layout.expected}.')
  column = layout.letters.index(letter)
  if layout.drop:
    return column
  row = int(match.group(2))
  if not 1 <= row <= layout.rows:
    raise InvalidMove(f'{compact} is off the board: {layout.expected}.')
  return (row - 1) * layout.columns + column


class BoardGame:
  """One game between a person and a policy on pgx's own core, whose
  rules (legal moves, wins, draws) decide; pure logic, no I/O."""

  def __init__(self, policy: Policy, game: str, agent_first: bool = False,
               seed: int = 0):
    self.name = game_id(game)
    self.layout = LAYOUTS[self.name]
    self._policy = policy
    self._core = pgx_adapter.make_core(self.name)
    self._step = jax.jit(self._core.step)
    self._state, self._timestep = self._core.reset(jax.random.PRNGKey(seed))
    first = int(self._core.current_player(self._state))
    self._agent = first if agent_first else 1 - first
    self._winner = None

  @property
  def observation_shape(self):
    return tuple(self._core.observation_spec().shape)

  @property
  def num_actions(self) -> int:
    return int(self._core.action_spec().num_values)

  @property
  def agent_to_move(self) -> bool:
    return int(self._core.current_player(self._state)) == self._agent

  @property
  def legal(self) -> np.ndarray:
    """bool `[A]` the moves of the player to move."""
    return np.asarray(self._core.legal_action_mask(self._state))

  @property
  def winner(self) -> Optional[str]:
    """'you', 'the agent', 'nobody' (a draw), or None while it goes on."""
    return self._winner

  def _move(self, action: int) -> None:
    mover_is_agent = self.agent_to_move
    self._state, self._timestep = self._step(self._state, np.int32(action))
    if int(self._timestep.step_type) == 2:  # dm_env.StepType.LAST.
      reward = float(self._timestep.reward)  # The mover's.
      self._winner = ('nobody' if reward == 0 else
                      'the agent' if (reward > 0) == mover_is_agent else
                      'you')

  def person_move(self, action: int) -> None:
    """Your move; refused (nothing played) if it is not legal now."""
    if self._winner is not None:
      raise InvalidMove('The game is over.')
    if self.agent_to_move:
      raise InvalidMove('It is the agent\'s move.')
    if not self.legal[action]:
      raise InvalidMove(f'{move_name(action, self.layout)}: '
                        f'{self._why_illegal(action)}; legal moves: '
                        f'{self.legal_names()}.')
    self._move(action)

  def agent_move(self) -> int:
    """The agent's move: the model's most probable legal move."""
    if self._winner is not None or not self.agent_to_move:
      raise InvalidMove('It is not the agent\'s move.')
    probabilities = np.asarray(
        self._policy(np.asarray(self._timestep.observation))).reshape(-1)
    action = int(greedy.greedy_actions(probabilities, self.legal))
    self._move(action)
    return action

  @property
  def must_pass(self) -> bool:
    """The player to move has no move but to pass."""
    legal = self.legal
    return (self.layout.passes and bool(legal[self.layout.pass_action]) and
            int(legal.sum()) == 1)

  def _why_illegal(self, action: int) -> str:
    if self.layout.drop:
      return 'that column is full'
    if action == self.layout.pass_action:
      return 'you have a move, so you cannot pass'
    row, column = divmod(action, self.layout.columns)
    board = np.asarray(self._timestep.observation)[..., :2]  # Now.
    if board[row, column].any():
      return 'that cell is taken'
    return self.layout.blocked

  def legal_names(self, most: int = 12) -> str:
    """The legal moves, by name; past `most`, the first ones and a
    count of the rest (a go board's are dozens)."""
    names = [move_name(a, self.layout) for a in np.flatnonzero(self.legal)]
    if len(names) <= most:
      return ' '.join(names)
    return f'{" ".join(names[:most])} and {len(names) - most} more'

  def render(self) -> str:
    """The board: X yours, O the agent's, . empty."""
    board = np.asarray(self._timestep.observation) > 0.5  # Mover's side.
    agent_plane = 0 if self.agent_to_move else 1
    rows = ['   ' + ' '.join(self.layout.letters)]
    for r in range(self.layout.rows):
      marks = ['O' if board[r, c, agent_plane] else
               'X' if board[r, c, 1 - agent_plane] else '.'
               for c in range(self.layout.columns)]
      rows.append(f'{r + 1:2d} ' + ' '.join(marks))
    rows.append('X you   O the agent   . empty')
    return '\n'.join(rows)


def play(game: BoardGame, read: Callable[[str], str] = input,
         write: Callable[[str], None] = print, echo: bool = False
        ) -> Optional[str]:
  """Runs the game on `read`/`write`; returns the winner ('you', 'the
  agent', 'nobody'), or None if you leave first (`q`, EOF, Ctrl-C).
  `echo` repeats each typed line, so piped transcripts read like a
  session."""
  prompt = game.layout.prompt
  write(game.render())
  while game.winner is None:
    if game.agent_to_move:
      write(f'Agent plays {move_name(game.agent_move(), game.layout)}.')
      write(game.render())
      continue
    if game.must_pass:
      game.person_move(game.layout.pass_action)
      write('You have no move: you pass.')
      if game.winner is not None:
        write(game.render())
      continue
    try:
      line = read(prompt)
    except (EOFError, KeyboardInterrupt):
      write('\nInput ended: leaving the game unfinished.')
      return None
    if echo:
      write(line)
    if line.strip().lower() in ('q', 'quit'):
      write('You left the game.')
      return None
    try:
      action = parse_move(line, game.layout)
      game.person_move(action)
    except InvalidMove as e:
      write(str(e))
      continue
    write(f'\nYou play {move_name(action, game.layout)}.')
    if game.winner is not None:
      write(game.render())
  write({'you': 'You win!', 'the agent': 'The agent wins.',
         'nobody': 'A draw.'}[game.winner])
  return game.winner
