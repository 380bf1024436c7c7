"""Checks a trainable TFLite export, and fine-tunes it as an app would.

`verify_trainable` runs the model's signatures in the LiteRT interpreter and
holds them to JAX: `infer` against the policy, K `train` calls against the
same K steps in JAX, and a fresh interpreter given the weights back
(`set_weights`, and `save`/`restore` where the interpreter has the Flex
delegate) against the trained one. `fine_tune` plays games through the
interpreter, learning from them with `train`, and measures greedy play
before and after.
"""

import os
import tempfile
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

import dm_env
import numpy as np
import optax

from agents import agent as agent_lib
from agents import greedy
from agents import returns as returns_lib
from environments import specs
from experiments.export import tflite
from experiments.export import trainable as trainable_export
from experiments.storage import atomic_files

# Max |w_tflite - w_jax| after the K verified `train` steps, by optimizer.
# Gradients differ by float32 rounding (XNNPACK and XLA sum in different
# orders). SGD passes that on scaled by the learning rate: under 1e-6 on
# runs/default's policy. Adam divides by the root of the squared gradients,
# so where a gradient is near zero its rounding error becomes a step-sized
# error: 2.7e-6 from untrained weights, 6.9e-5 after 5 steps from
# runs/default's trained policy (on weights whose step was 2.4e-4).
WEIGHT_TOLERANCES = types.MappingProxyType({'sgd': 1e-5, 'adam': 1e-4})
# Game: (boards [T, *obs], actions [T], rewards [T]).
Game = Tuple[np.ndarray, np.ndarray, np.ndarray]


def play(policy: Callable[[np.ndarray], np.ndarray],
         environment_spec: specs.EnvironmentSpec,
         environment: dm_env.Environment, num_games: int,
         rng: Optional[np.random.Generator] = None) -> List[Game]:
  """Plays `num_games` with `policy` (observation -> probabilities).

  Greedy among legal actions, as the app plays, or sampled from the legal
  probabilities with `rng` (exploration while learning).
  """
  games = []
  for _ in range(num_games):
    timestep = environment.reset()
    boards, actions, rewards = [], [], []
    while not timestep.last():
      board = np.asarray(timestep.observation, np.float32)
      probabilities = np.asarray(policy(board), np.float64)
      legal = greedy.legal_mask(environment_spec, board)
      if rng is None:
        action = int(greedy.greedy_actions(probabilities, legal))
      else:
        weights = np.where(legal, probabilities, 0.0) + legal * 1e-12
        action = int(rng.choice(len(weights), p=weights / weights.sum()))
      timestep = environment.step(action)
      boards.append(board)
      actions.append(action)
      rewards.append(float(timestep.reward))
    games.append((np.stack(boards), np.asarray(actions, np.int32),
                  np.asarray(rewards, np.float32)))
  return games


def training_batch(games: List[Game], discount: float
                  ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
  """A `train` batch of whole games: discounted returns minus their mean
  (REINFORCE with the batch-mean baseline)."""
  returns = np.concatenate([returns_lib.episode_returns(r, discount)
                            for _, _, r in games])
  return (np.concatenate([b for b, _, _ in games]),
          np.concatenate([a for _, a, _ in games]),
          (returns - returns.mean()).astype(np.float32))


def mean_game_length(games: List[Game]) -> float:
  """Mean moves per game (Plane Strike: strikes to find the plane)."""
  return float(np.mean([len(a) for _, a, _ in games]))


def verify_trainable(path: str, agent: agent_lib.Agent,
                     params: agent_lib.Params,
                     environment_spec: specs.EnvironmentSpec,
                     optimizer: optax.GradientTransformation,
                     environment: dm_env.Environment, num_updates: int = 5,
                     games_per_update: int = 8, discount: float = 0.5,
                     seed: int = 0,
                     weight_tolerance: float = WEIGHT_TOLERANCES['sgd']
                    ) -> Dict[str, Any]:
  """Holds the model's signatures to JAX (see the module docstring).

  Raises:
    ValueError: if `infer` or the trained weights leave their tolerance, or
      a fresh interpreter given the weights back does not infer the same.
  """
  model = trainable_export.TrainableTFLitePolicy(path)
  rng = np.random.default_rng(seed)
  games = play(model, environment_spec, environment,
               num_updates * games_per_update, rng)
  batches = [training_batch(games[i:i + games_per_update], discount)
             for i in range(0, len(games), games_per_update)]
  boards = np.concatenate([b for b, _, _ in batches])
  expected = np.asarray(agent.deployable_policy(params, boards))
  infer_diff = float(np.max(np.abs(
      np.stack([model(b) for b in boards]) - expected)))
  if infer_diff > tflite.TOLERANCE:
    raise ValueError(f'{path}: infer differs from JAX by {infer_diff:.3g}.')
  losses = [model.train(*batch) for batch in batches]
  weights = model.get_weights()
  reference, reference_losses = trainable_export.reference_weights(
      agent, params, optimizer, batches)
  weight_diff = max(float(np.max(np.abs(weights[n] - reference[n])))
                    for n in reference)
  if weight_diff > weight_tolerance:
    raise ValueError(f'{path}: weights after {num_updates} train steps '
                     f'differ from JAX by {weight_diff:.3g} > '
                     f'{weight_tolerance:g}.')
  trained = np.stack([model(b) for b in boards])
  fresh = trainable_export.TrainableTFLitePolicy(path)
  fresh.set_weights(weights)
  if not np.array_equal(np.stack([fresh(b) for b in boards]), trained):
    raise ValueError(f'{path}: set_weights does not reproduce infer.')
  return {
      'signatures': list(trainable_export.SIGNATURES),
      'infer_max_abs_diff': infer_diff,
      'train_steps_checked': num_updates,
      'boards_per_step': [len(b) for b, _, _ in batches],
      'weights_max_abs_diff': weight_diff,
      'weights_tolerance': weight_tolerance,
      'loss_max_abs_diff': float(np.max(np.abs(
          np.asarray(losses) - np.asarray(reference_losses)))),
      'set_weights_reproduces_infer': True,
      'save_restore': _check_save_restore(path, model, boards, trained),
      'size_bytes': os.path.getsize(path),
  }


def export_and_verify_trainable(agent: agent_lib.Agent,
                                params: agent_lib.Params,
                                environment_spec: specs.EnvironmentSpec,
                                path: str,
                                optimizer: optax.GradientTransformation,
                                environment: dm_env.Environment,
                                weight_tolerance: float,
                                discount: float = 0.5
                               ) -> Dict[str, Any]:
  """Writes the trainable model to `path` atomically, then verifies it.

  Raises:
    ValueError: as `verify_trainable`; the file is left for inspection.
  """
  atomic_files.write_bytes(path, trainable_export.to_trainable_tflite(
      agent, params, environment_spec, optimizer))
  return verify_trainable(path, agent, params, environment_spec, optimizer,
                          environment, discount=discount,
                          weight_tolerance=weight_tolerance)


def _check_save_restore(path: str,
                        model: trainable_export.TrainableTFLitePolicy,
                        boards: np.ndarray, trained: np.ndarray) -> str:
  """'reproduces infer', or why it could not run here (no Flex delegate)."""
  with tempfile.TemporaryDirectory() as directory:
    checkpoint = os.path.join(directory, 'weights.ckpt')
    try:
      model.save(checkpoint)
      fresh = trainable_export.TrainableTFLitePolicy(path)
      fresh.restore(checkpoint)
    except RuntimeError as e:
      if 'Flex' not in str(e):
        raise
      return ('not run: this LiteRT interpreter has no Flex delegate for '
              'the Save/Restore ops')
    if not np.array_equal(np.stack([fresh(b) for b in boards]), trained):
      raise ValueError(f'{path}: save then restore does not reproduce infer.')
  return 'reproduces infer'


def fine_tune(path: str, environment_spec: specs.EnvironmentSpec,
              make_environment: Callable[[int], dm_env.Environment],
              num_games: int = 300, games_per_update: int = 16,
              discount: float = 0.5, eval_games: int = 200,
              seed: int = 0) -> Dict[str, Any]:
  """Learns from `num_games` played through the interpreter, as an app would.

  `make_environment(s)` gives environment seed `s`'s games: seed `seed`
  trains, and the same `seed + 1` games measure greedy play before and after.
  """
  model = trainable_export.TrainableTFLitePolicy(path)
  before = mean_game_length(play(model, environment_spec,
                                 make_environment(seed + 1), eval_games))
  environment = make_environment(seed)
  rng = np.random.default_rng(seed)
  losses = []
  for _ in range(num_games // games_per_update):
    games = play(model, environment_spec, environment, games_per_update, rng)
    losses.append(model.train(*training_batch(games, discount)))
  after = mean_game_length(play(model, environment_spec,
                                make_environment(seed + 1), eval_games))
  return {'games': num_games // games_per_update * games_per_update,
          'updates': len(losses), 'eval_games': eval_games,
          'mean_episode_length_before': before,
          'mean_episode_length_after': after}
