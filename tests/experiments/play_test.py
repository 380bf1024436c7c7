"""Plane Strike against an exported model: logic in process, CLI by stdin."""

import re

from absl import app
import jax
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import plane_strike
from environments import registry as env_registry
from environments import specs
from experiments.export import litert_policies
from experiments.export import tflite as export_tflite
from experiments import play
from tests import commands

_CELLS = [f'{c}{r}' for r in range(1, 9) for c in 'ABCDEFGH']  # Row-major.
# Invalid inputs first (each must be refused without losing the turn), then
# every cell in order: the game must end before the input runs out.
_INVALID = ['hello', 'J9', '', 'A1', 'a1', ' c 2 ']
_GAME_INPUT = '\n'.join(_INVALID + _CELLS) + '\n'
_WINNER = re.compile(r'(You win|The agent wins)! Strikes: you (\d+), '
                     r'agent (\d+)\.')


@pytest.fixture(scope='module')
def model_path(tmp_path_factory):
  """An untrained REINFORCE policy exported as the app's model."""
  env = env_registry.make_environment('plane_strike')
  spec = specs.make_environment_spec(env)
  agent = agent_registry.make_agent(
      'reinforce', agent_registry.make_config('reinforce'), spec,
      env_registry.hidden_sizes('plane_strike', {}))
  params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
  path = str(tmp_path_factory.mktemp('model') / 'planestrike.tflite')
  with open(path, 'wb') as f:
    f.write(export_tflite.to_tflite(agent, params, spec))
  return path


def _run(stdin, *flags):
  return commands.run('experiments.play', *flags, input=stdin)


@pytest.fixture(scope='module')
def full_game(model_path):
  result = _run(_GAME_INPUT, '--agent_model', model_path, '--seed', '0')
  assert result.returncode == 0, result.stderr[-2000:]
  return result.stdout


class _StubPolicy:
  """Fixed probabilities; records the boards it is shown."""

  def __init__(self, probabilities):
    self.probabilities = np.asarray(probabilities, np.float32)
    self.boards = []

  def __call__(self, board):
    self.boards.append(np.array(board))
    return self.probabilities


def _plane_cells(state):
  return [int(c) for c in np.flatnonzero(np.asarray(state.plane))]


# Logic, in process.


def test_parse_cell_accepts_case_and_spaces():
  assert play.parse_cell('C5') == 4 * 8 + 2
  assert play.parse_cell(' c 5 ') == 34
  assert play.parse_cell('a1') == 0
  assert play.parse_cell('H8\n') == 63
  assert [play.parse_cell(play.cell_name(c)) for c in range(64)] == list(
      range(64))


@pytest.mark.parametrize('text, message', [
    ('J9', 'J9 is off the board: columns are A-H and rows 1-8'),
    ('a0', 'A0 is off the board'), ('I1', 'I1 is off the board'),
    ('B10', 'B10 is off the board'),
    ('hello', "'hello' is not a coordinate: type a column letter A-H"),
    ('5C', "'5C' is not a coordinate"), ('AA1', "'AA1' is not a coordinate"),
    ('', 'Empty input: type a column letter A-H and a row number 1-8'),
    ('   ', 'Empty input')])
def test_parse_cell_explains_bad_input(text, message):
  with pytest.raises(play.InvalidStrike, match=re.escape(message)):
    play.parse_cell(text)


def test_agent_strikes_argmax_among_untried_cells():
  # Cell 0 is always most probable; after it, the agent must go on to the
  # next most probable untried cell, never repeat.
  probabilities = np.linspace(0.5, 0.0, 64)
  policy = _StubPolicy(probabilities)
  game = play.Game(policy, seed=0)
  cells = [game.agent_move()[0] for _ in range(5)]
  assert cells == [0, 1, 2, 3, 4]
  # It sees its view of the person's board: 0 untried, 1 hit, -1 miss.
  plane = np.asarray(game.person.plane).reshape(-1)
  last = policy.boards[-1].reshape(-1)
  np.testing.assert_array_equal(last[:4], np.where(plane[:4], 1.0, -1.0))
  assert np.all(last[4:] == 0)


def test_repeated_strike_is_refused_and_not_counted():
  game = play.Game(_StubPolicy(np.ones(64)), seed=0)
  game.strike_agent_board(9)
  with pytest.raises(play.InvalidStrike, match='B2 was already struck'):
    game.strike_agent_board(9)
  assert game.strikes == (1, 0)


def test_win_detection_for_both_sides():
  game = play.Game(_StubPolicy(np.ones(64)), seed=3)
  cells = _plane_cells(game.agent)
  for cell in cells[:-1]:
    assert game.strike_agent_board(cell)
    assert game.winner is None
  assert game.strike_agent_board(cells[-1])
  assert game.winner == 'you' and game.strikes == (8, 0)
  with pytest.raises(play.InvalidStrike, match='game is over'):
    game.agent_move()
  # An agent that knows your plane (the first key of PRNGKey(seed)'s split)
  # wins in 8 strikes.
  person_key, _ = jax.random.split(jax.random.PRNGKey(3))
  plane = plane_strike.PlaneStrike().reset(person_key)[0].plane
  cheat = play.Game(_StubPolicy(np.asarray(plane, np.float32).reshape(-1)), 3)
  for _ in range(8):
    assert cheat.agent_move()[1]
  assert cheat.winner == 'the agent'


def test_seed_fixes_both_planes():
  planes = lambda seed: [_plane_cells(s) for s in (
      play.Game(_StubPolicy(np.ones(64)), seed).person,
      play.Game(_StubPolicy(np.ones(64)), seed).agent)]
  assert planes(0) == planes(0)
  assert planes(0) != planes(1)
  assert planes(0)[0] != planes(0)[1]


def test_render_hides_the_agent_plane_until_revealed():
  game = play.Game(_StubPolicy(np.ones(64)), seed=0)
  right = lambda text: ''.join(line[30:] for line in text.splitlines()[:-1])
  assert right(game.render()).count('#') == 0
  assert right(game.render(reveal=True)).count('#') == 8
  left = ''.join(line[:30] for line in game.render().splitlines()[:-1])
  assert left.count('#') == 8  # Your own plane is always shown.


def _reader(lines):
  """`input` stand-in: `lines`, then EOFError."""
  feed = iter(lines)

  def read(prompt):
    del prompt
    try:
      return next(feed)
    except StopIteration:
      raise EOFError from None
  return read


def test_quit_reveals_and_eof_ends_cleanly():
  for lines, message in ((['B2', ' Q '], 'You left the game.'),
                         (['B2'], 'Input ended')):
    written = []
    game = play.Game(_StubPolicy(np.ones(64)), seed=0)
    assert play.play(game, _reader(lines), written.append) is None
    assert message in '\n'.join(written)
    assert game.strikes == (1, 1)
    assert written[-1] == game.render(reveal=True)


def test_bad_models_are_usage_errors(tmp_path):
  garbage = tmp_path / 'garbage.tflite'
  garbage.write_bytes(b'not a model')
  missing = str(tmp_path / 'missing.tflite')
  for path, message in ((None, 'is required'),
                        (missing, "'.*' is not a file"),
                        (str(tmp_path), "'.*' is not a file"),
                        (str(garbage), "'.*' cannot be loaded")):
    with pytest.raises(app.UsageError, match=f'--agent_model {message}.*run'):
      play.load_policy(path)

  class WrongShape:
    input_details = {'shape': np.array([1, 10, 5]), 'dtype': np.int32}
    output_details = {'shape': np.array([1, 3]), 'dtype': np.float32}
  with pytest.raises(app.UsageError,
                     match=r'int32 \[1, 10, 5\] -> float32 \[1, 3\], not'):
    play.check_contract(WrongShape(), 'catch.tflite')


# The CLI, through stdin: a few subprocesses (about 3 s each).


def test_cli_refuses_bad_input_and_goes_on(full_game):
  # Each input is echoed, answered in one line, then prompted for again.
  expected = [
      'hello', "'hello' is not a coordinate: type a column letter A-H and "
      'a row number 1-8, e.g. C5 (q quits).',
      'J9', 'J9 is off the board: columns are A-H and rows 1-8, e.g. C5.',
      '', 'Empty input: type a column letter A-H and a row number 1-8, '
      'e.g. C5 (q quits).',
      'A1']
  assert ''.join(play.PROMPT + expected[i] + '\n' + expected[i + 1] + '\n'
                 for i in range(0, 6, 2)) + play.PROMPT + 'A1\n' in full_game
  assert (f'{play.PROMPT}a1\nA1 was already struck (' in full_game and
          f'pick an untried cell (shown as .).\n{play.PROMPT} c 2 \n\n'
          'You strike C2: ' in full_game)


def test_cli_plays_a_full_game(full_game, model_path):
  winner = _WINNER.search(full_game)
  assert winner, full_game[-3000:]
  yours = re.findall(r'^You strike (\w\d+): (hit|miss)\.$', full_game, re.M)
  agents = re.findall(r'^Agent strikes (\w\d+): (hit|miss)\.$', full_game,
                      re.M)
  assert (len(yours), len(agents)) == (int(winner[2]), int(winner[3]))
  assert len({c for c, _ in agents}) == len(agents)  # Never twice.
  assert full_game.count('Your board') == len(yours) + 1  # Every turn.
  *hidden, revealed = full_game.split('Your board')[1:]
  hidden_right = ''.join(l[30:] for b in hidden for l in b.splitlines())
  assert '#' not in hidden_right and '#' in revealed
  # The same game through the logic API: same strikes, only untried cells.
  game = play.Game(litert_policies.TFLitePolicy(model_path), seed=0)
  for (cell, outcome), (agent_cell, agent_outcome) in zip(
      yours, agents + [(None, None)]):
    assert game.strike_agent_board(play.parse_cell(cell)) == (
        outcome == 'hit')
    if game.winner is None:
      before = np.asarray(game.person.board).reshape(-1).copy()
      played, hit = game.agent_move()
      assert before[played] == 0
      assert (play.cell_name(played), hit) == (agent_cell,
                                                agent_outcome == 'hit')
  expected = 'You win' if game.winner == 'you' else 'The agent wins'
  assert (winner[1], game.strikes) == (expected, (len(yours), len(agents)))


def test_cli_same_seed_same_transcript(full_game, model_path):
  again = _run(_GAME_INPUT, '--agent_model', model_path, '--seed', '0')
  assert again.stdout == full_game


def test_cli_eof_mid_game_exits_cleanly(model_path):
  result = _run('A1\nB1\n', f'--agent_model={model_path}')
  assert result.returncode == 0, result.stderr[-2000:]
  assert 'Input ended: leaving the game unfinished.' in result.stdout
  assert result.stdout.count('You strike') == 2
  assert 'Traceback' not in result.stderr


def test_cli_bad_model_path_names_the_flag(tmp_path):
  result = _run('', '--agent_model', str(tmp_path / 'nope.tflite'))
  assert result.returncode != 0
  assert '--agent_model' in result.stderr
  assert 'python -m experiments.export_tflite' in result.stderr
