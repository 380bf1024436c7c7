"""Tests for experiments/ladder.py (and experiments/driver/
checkpoint_games.py): an Elo ladder of a self-play run's checkpoints."""

import csv
import json
import os

import pytest

from agents import registry as agent_registry
from experiments import ladder
from experiments.driver import checkpoint_games
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _config(**overrides):
  settings = dict(
      agent='alphazero', env='pgx:tic_tac_toe',
      agent_config=agent_registry.make_config(
          'alphazero', num_simulations=4, batch_size=8, unroll_length=8,
          num_minibatches=2),
      hidden_sizes=(16,), num_steps=2048, eval_every_steps=0,
      eval_episodes=8, checkpoint_every_updates=8, keep_checkpoints=0,
      checkpoint_every_seconds=3600.0, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
  """A tic-tac-toe run that kept its 4 checkpoints (every 8 updates)."""
  path = str(tmp_path_factory.mktemp('ladder'))
  driver.run_experiment(_config(), path, progress=False)
  return path


@pytest.mark.slow  # Trains a self-play run (~10 s of compiling).
def test_every_kept_checkpoint_is_rated_and_written(workdir):
  result = ladder.ladder(workdir, games=6, opponents=('random', 'mcts-4'))
  players = [row['player'] for row in result['players']]
  assert players == ['step 512', 'step 1024', 'step 1536', 'step 2048',
                     'random', 'mcts-4']
  rows = {row['player']: row for row in result['players']}
  assert rows['random']['elo'] == 0.0
  for row in result['players']:
    assert row['elo_low'] <= row['elo'] <= row['elo_high']
  # Six pairs of checkpoints and eight games against opponents, 6 each.
  assert len(result['games']) == 6 + 8
  for game in result['games']:
    assert game['won'] + game['drawn'] + game['lost'] == 6
  assert rows['step 512']['games'] == 6 * 5
  with open(os.path.join(workdir, ladder.LADDER_JSON)) as f:
    assert json.load(f)['players'] == result['players']
  with open(os.path.join(workdir, ladder.LADDER_CSV), newline='') as f:
    assert [row['player'] for row in csv.DictReader(f)] == players
  shown = ladder.render(result)
  assert 'Elo ladder of alphazero on pgx:tic_tac_toe: 6 games a pair' in shown
  assert shown.splitlines()[-1].startswith('Written to ')


@pytest.mark.slow
def test_perfect_play_never_loses_to_a_checkpoint(workdir):
  # The games are counted from the checkpoint's side: against minimax it
  # never wins. Greedy play replays its games: no intervals.
  result = ladder.ladder(workdir, games=4, opponents=('minimax',),
                         eval_policy='greedy')
  for game in result['games']:
    if game['opponent'] == 'minimax':
      assert game['won'] == 0, game
  assert all(row['elo_low'] is None for row in result['players'])
  assert 'no intervals' in ladder.render(result)


@pytest.mark.slow
def test_bad_opponents_and_protocols_are_named(workdir):
  with pytest.raises(build_lib.ExperimentError,
                     match=r"--opponents: opponent: 'perfect' .*valid: "
                           r"random, mcts-<N>"):
    ladder.ladder(workdir, games=2, opponents=('perfect',))
  with pytest.raises(build_lib.ExperimentError,
                     match='--eval_policy must be one of sampled, greedy, '
                           'search'):
    ladder.ladder(workdir, games=2, eval_policy='epsilon_greedy')
  with pytest.raises(build_lib.ExperimentError,
                     match='--games must be a positive integer; got 0'):
    ladder.ladder(workdir, games=0)


def test_a_run_without_kept_checkpoints_says_how_to_keep_them(tmp_path):
  workdir_lib.prepare(_config(num_steps=512), str(tmp_path))
  with pytest.raises(build_lib.ExperimentError,
                     match=r'keeps 0 checkpoint\(s\).*--keep_checkpoints=0'):
    ladder.ladder(str(tmp_path), games=2)


def test_a_one_player_run_is_refused(tmp_path):
  config = config_lib.ExperimentConfig(agent='reinforce', env='catch',
                                       num_episodes=8, export_tflite=False)
  workdir_lib.prepare(config, str(tmp_path))
  with pytest.raises(build_lib.ExperimentError, match='a one-player game'):
    ladder.ladder(str(tmp_path), games=2)


@pytest.mark.slow  # Trains twice (~20 s of compiling).
def test_resuming_keeps_the_checkpoints_the_run_kept(tmp_path):
  path = str(tmp_path)
  driver.run_experiment(_config(num_steps=1024, checkpoint_every_updates=4),
                        path, progress=False)
  kept = checkpoint_games.checkpoint_steps(path)
  assert len(kept) == 4
  # Resumed without --keep_checkpoints: as the run was started (every one).
  driver.run_experiment(_config(num_steps=1536, checkpoint_every_updates=4,
                                keep_checkpoints=None), path, progress=False)
  assert checkpoint_games.checkpoint_steps(path)[:4] == kept
  with open(os.path.join(path, 'config.json')) as f:
    assert json.load(f)['keep_checkpoints'] == 0
