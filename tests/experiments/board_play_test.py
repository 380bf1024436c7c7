"""Board games against an exported model: logic in process, CLI by stdin."""

import re

from absl import app
import jax
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import dm_env_wrapper
from environments import pgx_adapter
from environments import specs
from experiments import board_play
from experiments import play
from experiments.export import tflite as export_tflite
from tests import commands

TIC_TAC_TOE = board_play.LAYOUTS['tic_tac_toe']
CONNECT_FOUR = board_play.LAYOUTS['connect_four']
OTHELLO = board_play.LAYOUTS['othello']
GO = board_play.LAYOUTS['go_9x9']


class _Prefers:
  """A policy whose probabilities fall along `order` (its first legal
  move is the one it plays); records what it is shown."""

  def __init__(self, order, num_actions):
    self.probabilities = np.zeros(num_actions, np.float32)
    self.probabilities[list(order)] = np.linspace(1.0, 0.5, len(order))
    self.seen = []

  def __call__(self, observation):
    self.seen.append(np.asarray(observation))
    return self.probabilities


def test_moves_round_trip_and_accept_case_and_spaces():
  assert [board_play.parse_move(board_play.move_name(a, TIC_TAC_TOE),
                                TIC_TAC_TOE) for a in range(9)] == list(
                                    range(9))
  assert board_play.parse_move(' b 2 ', TIC_TAC_TOE) == 4
  assert board_play.parse_move('c3', TIC_TAC_TOE) == 8
  assert board_play.parse_move('g', CONNECT_FOUR) == 6
  assert board_play.move_name(2, CONNECT_FOUR) == 'C'
  assert board_play.parse_move('d3', OTHELLO) == 19
  assert board_play.move_name(64, OTHELLO) == 'pass'
  assert board_play.parse_move(' Pass ', OTHELLO) == 64
  with pytest.raises(board_play.InvalidMove, match="'pass' is not a move"):
    board_play.parse_move('pass', TIC_TAC_TOE)


@pytest.mark.parametrize('layout,text,message', [
    (TIC_TAC_TOE, '', 'Empty input: type a column letter A-C then a row'),
    (TIC_TAC_TOE, 'D1', 'D1 is off the board'),
    (TIC_TAC_TOE, 'A4', 'A4 is off the board'),
    (TIC_TAC_TOE, 'hello', "'hello' is not a move"),
    (CONNECT_FOUR, 'A1', "'A1' is not a move: type a column letter A-G"),
    (CONNECT_FOUR, 'H', 'H is off the board'),
])
def test_bad_moves_are_explained(layout, text, message):
  with pytest.raises(board_play.InvalidMove, match=re.escape(message)):
    board_play.parse_move(text, layout)


def test_unknown_games_list_the_games():
  with pytest.raises(ValueError, match='plane_strike, pgx:tic_tac_toe, '
                     'pgx:connect_four, pgx:othello, pgx:go_9x9'):
    board_play.game_id('pgx:animal_shogi')


def test_you_win_a_row_the_agent_leaves_open():
  # The agent takes the corners 2, 6, 8 first; you take the top row.
  agent = _Prefers([8, 6, 5], 9)
  game = board_play.BoardGame(agent, 'pgx:tic_tac_toe')
  assert not game.agent_to_move
  for move in (0, 1):
    game.person_move(move)
    game.agent_move()
  with pytest.raises(board_play.InvalidMove, match='that cell is taken'):
    game.person_move(8)
  game.person_move(2)
  assert game.winner == 'you'
  # The agent saw the board from its side: its marks in plane 0.
  first_seen = agent.seen[0]
  assert first_seen[0, 0, 1] == 1 and first_seen[..., 0].sum() == 0


def test_the_agent_moves_first_and_wins_a_column():
  agent = _Prefers([0, 1, 3, 6, 2], 7)
  game = board_play.BoardGame(agent, 'pgx:connect_four', agent_first=True)
  assert game.agent_to_move
  with pytest.raises(board_play.InvalidMove, match='agent\'s move'):
    game.person_move(3)
  for _ in range(3):
    assert game.agent_move() == 0
    game.person_move(6)
  assert game.agent_move() == 0
  assert game.winner == 'the agent'
  assert 'O' in game.render() and 'X' in game.render()


def test_a_full_column_is_refused_naming_the_legal_moves():
  # You and the agent fill column A in turn: no four in a row.
  game = board_play.BoardGame(_Prefers([0, 1], 7), 'pgx:connect_four')
  for _ in range(3):
    game.person_move(0)
    assert game.agent_move() == 0
  with pytest.raises(board_play.InvalidMove,
                     match='A: that column is full; legal moves: B C D E F '
                     'G'):
    game.person_move(0)


def test_a_draw_is_nobodys():
  # X: 0 2 3 7 8 (yours), O: 1 4 5 6: a full board, no line.
  agent = _Prefers([4, 1, 5, 6], 9)
  game = board_play.BoardGame(agent, 'pgx:tic_tac_toe')
  for move in (0, 2, 3, 7, 8):
    game.person_move(move)
    if game.winner is None:
      game.agent_move()
  assert game.winner == 'nobody'


def test_othello_passes_and_refuses_moves_that_turn_nothing():
  # The agent plays cells in a fixed shuffled order, you the last legal
  # cell each turn: in this game each side has to pass once.
  order = list(np.random.RandomState(2).permutation(64)) + [64]
  game = board_play.BoardGame(_Prefers(order, 65), 'pgx:othello')
  with pytest.raises(board_play.InvalidMove,
                     match='A1: that move turns no disc; legal moves: D3 '
                     'C4 F5 E6'):
    game.person_move(0)
  with pytest.raises(board_play.InvalidMove,
                     match='pass: you have a move, so you cannot pass'):
    game.person_move(64)
  with pytest.raises(board_play.InvalidMove, match='that cell is taken'):
    game.person_move(27)  # D4, a disc of the opening.
  written = []
  winner = board_play.play(
      game, read=lambda prompt: board_play.move_name(
          int(np.flatnonzero(game.legal)[-1]), OTHELLO),
      write=written.append)
  text = '\n'.join(written)
  assert 'You have no move: you pass.' in text
  assert 'Agent plays pass.' in text
  assert winner in ('you', 'the agent', 'nobody')
  assert text.endswith({'you': 'You win!', 'the agent': 'The agent wins.',
                        'nobody': 'A draw.'}[winner])


def test_go_refuses_a_stone_without_liberty_and_ends_at_two_passes():
  # You (black, first) play I9 and H9; the agent takes B1 and A2 around
  # A1, then passes when you do.
  game = board_play.BoardGame(_Prefers([1, 9, 81], 82), 'pgx:go_9x9')
  assert 'or pass' in GO.prompt
  assert board_play.parse_move('pass', GO) == 81
  assert board_play.parse_move('i9', GO) == 80
  for move in ('I9', 'H9'):
    game.person_move(board_play.parse_move(move, GO))
    game.agent_move()
  with pytest.raises(board_play.InvalidMove, match='that cell is taken'):
    game.person_move(1)
  with pytest.raises(board_play.InvalidMove,
                     match='A1: a stone there would have no liberty, or '
                     'retake a ko at once; legal moves: C1 D1 E1 F1 G1 H1 '
                     'I1 B2 C2 D2 E2 F2 and 65 more.'):
    game.person_move(0)
  written = []
  winner = board_play.play(game, read=lambda prompt: 'pass',
                           write=written.append)
  text = '\n'.join(written)
  assert 'You play pass.' in text and 'Agent plays pass.' in text
  # Area: the agent's 2 stones and A1 against your 2 stones; white (the
  # agent, second) also gets pgx's komi of 7.5.
  assert winner == 'the agent' and text.endswith('The agent wins.')


@pytest.fixture(scope='module')
def model_path(tmp_path_factory):
  """An untrained AlphaZero policy on tic-tac-toe, exported."""
  core = pgx_adapter.make_core('tic_tac_toe')
  spec = specs.make_environment_spec(dm_env_wrapper.DmEnvironment(core))
  agent = agent_registry.make_agent(
      'alphazero', agent_registry.make_config('alphazero'), spec)
  params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
  path = str(tmp_path_factory.mktemp('model') / 'pgxtictactoe.tflite')
  with open(path, 'wb') as f:
    f.write(export_tflite.to_tflite(agent, params, spec))
  return path


@pytest.mark.slow
def test_cli_plays_a_game_to_its_end(model_path):
  # Every cell in order, a bad move and a taken cell among them: the game
  # ends (a win, a loss or a draw) before the input runs out.
  moves = ['Z9', 'A1', 'A1'] + [f'{c}{r}' for r in (1, 2, 3)
                                for c in 'ABC']
  result = commands.run('experiments.play', '--game=pgx:tic_tac_toe',
                        f'--agent_model={model_path}',
                        input='\n'.join(moves) + '\n')
  assert result.returncode == 0, result.stderr[-2000:]
  out = result.stdout
  assert 'Z9 is off the board' in out
  assert 'that cell is taken' in out
  assert re.search(r'^(You win!|The agent wins\.|A draw\.)$', out,
                   re.MULTILINE), out[-1500:]
  assert 'Agent plays' in out


def test_a_model_of_another_game_is_refused(model_path):
  with pytest.raises(app.UsageError, match=re.escape(
      "not the pgx:connect_four float32 [1, 6, 7, 2] -> [1, 7]")):
    play.play_board_game('pgx:connect_four', model_path, False, 0)


def test_a_missing_model_says_how_to_train_one(tmp_path):
  with pytest.raises(app.UsageError, match=re.escape(
      '--env=pgx:tic_tac_toe --workdir=runs/tic_tac_toe`, which writes '
      'runs/tic_tac_toe/pgxtictactoe.tflite')):
    play.play_board_game('pgx:tic_tac_toe', str(tmp_path / 'no.tflite'),
                         False, 0)
