"""Tests for experiments/driver/run.py with an agent that plans and learns
a two-player game by self-play (AlphaZero on pgx's tic-tac-toe)."""

import csv
import json
import os

from absl.testing import absltest
import numpy as np
import pytest

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.setup import config as config_lib


def _config(**overrides):
  settings = dict(
      agent='alphazero', env='pgx:tic_tac_toe',
      env_kwargs={'opponent': 'minimax', 'max_steps': 9},
      agent_config=agent_registry.make_config(
          'alphazero', num_simulations=4, batch_size=8, unroll_length=8,
          num_minibatches=2),
      hidden_sizes=(16,), num_steps=1024, eval_every_steps=512,
      periodic_eval_episodes=20, eval_episodes=40,
      checkpoint_every_updates=8, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


def _rows(path):
  with open(path, newline='') as f:
    return list(csv.DictReader(f))


@pytest.mark.slow  # Compiles the search into the training program (~10 s).
class SelfPlayTest(absltest.TestCase):

  def test_trains_evaluates_and_exports_against_the_opponent(self):
    workdir = self.create_tempdir().full_path
    driver.run_experiment(_config(export_tflite=True), workdir,
                          progress=False, announce=False)
    with open(os.path.join(workdir, 'result.json')) as f:
      result = json.load(f)
    # Against perfect play a game is lost (-1) or drawn (0), never won.
    self.assertBetween(result['eval_mean_return'], -1.0, 0.0)
    evaluations = _rows(os.path.join(workdir, 'eval.csv'))
    self.assertLen(evaluations, 2)
    for row in evaluations:
      self.assertBetween(float(row['mean_return']), -1.0, 0.0)
    training = _rows(os.path.join(workdir, 'train.csv'))
    entropy = [float(r['train/search_policy_entropy']) for r in training
               if r.get('train/search_policy_entropy')]
    self.assertTrue(entropy and np.all(np.isfinite(entropy)))
    # The exported model's games are against the opponent too: the agent
    # moves at most 5 times, and never beats perfect play.
    exported = result['tflite']
    self.assertLessEqual(exported['mean_return'], 0.0)
    self.assertLessEqual(exported['mean_episode_length'], 5.0)
    self.assertLessEqual(exported['max_abs_diff'], exported['tolerance'])

  def test_resumes_bit_for_bit(self):
    whole = self.create_tempdir().full_path
    driver.run_experiment(_config(), whole, progress=False, announce=False)
    halves = self.create_tempdir().full_path
    driver.run_experiment(_config(num_steps=512), halves, progress=False,
                          announce=False)
    driver.run_experiment(_config(), halves, progress=False, announce=False)
    learning = lambda path: [
        {k: v for k, v in row.items() if not k.startswith('perf/')}
        for row in _rows(os.path.join(path, 'train.csv'))]
    self.assertEqual(learning(whole), learning(halves))


if __name__ == '__main__':
  absltest.main()
