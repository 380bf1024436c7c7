"""A sweep's trials in one compiled program: each lane is the run of its
configuration; a diverging trial stops alone; bad trials are refused."""

import dataclasses
import json
import os

from absl.testing import absltest
import jax
import numpy as np
import pytest

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _config(**kwargs) -> config_lib.ExperimentConfig:
  values = dict(
      agent='ppo', env='catch', num_episodes=None, num_steps=2048,
      agent_config=agent_registry.make_config('ppo', unroll_length=16,
                                              batch_size=4),
      eval_episodes=5, eval_every_episodes=0, export_tflite=False,
      num_seeds=2,
      trials=({'learning_rate': 1e-3, 'discount': 0.9},
              {'learning_rate': 3e-4, 'discount': 0.99}))
  values.update(kwargs)
  return config_lib.ExperimentConfig(**values)


def _read(path):
  with open(path) as f:
    return json.load(f)


@pytest.mark.slow
class TrialsTest(absltest.TestCase):

  def test_a_trial_lane_is_the_run_of_its_configuration(self):
    root = self.create_tempdir().full_path
    sweep = _config()
    out = driver.run_experiment(sweep, os.path.join(root, 'sweep'),
                                progress=False)
    self.assertEqual([(r['trial'], r['seed']) for r in out['seeds']],
                     [(0, 0), (0, 1), (1, 0), (1, 1)])
    lane = _read(os.path.join(root, 'sweep', 'trial_1', 'seed_1',
                              'result.json'))
    self.assertEqual(lane['trial_values'],
                     {'discount': 0.99, 'learning_rate': 3e-4})
    self.assertEqual(lane['agent_config']['discount'], 0.99)
    single = dataclasses.replace(
        sweep, trials=(), num_seeds=1, seed=1,
        agent_config=sweep.trial_config(1))
    driver.run_experiment(single, os.path.join(root, 'single'),
                          progress=False)
    in_sweep = driver.restored_loop(
        build_lib.build(sweep), os.path.join(root, 'sweep')).actor_params(3)
    alone = driver.restore_actor_params(build_lib.build(single),
                                        os.path.join(root, 'single'))
    for a, b in zip(jax.tree.leaves(in_sweep), jax.tree.leaves(alone)):
      np.testing.assert_allclose(a, b, atol=1e-5)

  def test_a_diverging_trial_stops_alone(self):
    workdir = self.create_tempdir().full_path
    config = _config(num_seeds=1, max_abs_param=20.0,
                     trials=({'learning_rate': 1e-3},
                             {'learning_rate': 1e3}))
    out = driver.run_experiment(config, workdir, progress=False)
    calm, wild = out['seeds']
    self.assertEqual(calm['status'], 'finished')
    self.assertGreaterEqual(calm['env_steps'], 2048)
    self.assertEqual(wild['status'], 'diverged')
    self.assertEqual(wild['divergence']['metric'], 'max_abs_param')
    self.assertNotIn('eval_mean_return', wild)

  def test_bad_trials_are_refused_naming_the_key(self):
    with self.assertRaisesRegex(ValueError, r"'batch_size' cannot vary "
                                r"inside one program.*learning_rate"):
      _config(trials=({'batch_size': 8},))
    with self.assertRaisesRegex(ValueError, r'trials\[1\].*discount must be '
                                r'in \[0, 1\]'):
      _config(trials=({'discount': 0.9}, {'discount': 1.5}))
    with self.assertRaisesRegex(ValueError, 'every trial sets the same keys'):
      _config(trials=({'discount': 0.9}, {'learning_rate': 1e-3}))
    with self.assertRaisesRegex(ValueError, 'must be a number'):
      _config(trials=({'discount': '0.9'},))
    with self.assertRaisesRegex(ValueError, 'need loop=compiled'):
      _config(loop='python', num_seeds=1)


if __name__ == '__main__':
  absltest.main()
