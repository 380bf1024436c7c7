"""Tests for experiments/driver/workdir.py."""

import json
import os

from absl.testing import absltest

from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


class WorkdirTest(absltest.TestCase):

  def test_config_round_trips_with_its_format(self):
    workdir = self.create_tempdir().full_path
    config = config_lib.ExperimentConfig(env='catch', num_episodes=5)
    workdir_lib.prepare(config, workdir)
    with open(os.path.join(workdir, 'config.json')) as f:
      self.assertEqual(json.load(f)['workdir_format'], workdir_lib.FORMAT)
    self.assertEqual(workdir_lib.load_config(workdir), config)

  def test_python_loop_workdir_of_an_earlier_version_is_refused(self):
    workdir = self.create_tempdir().full_path
    config = config_lib.ExperimentConfig(env='catch', loop='python')
    with open(os.path.join(workdir, 'config.json'), 'w') as f:
      json.dump(config.to_dict(), f)  # As written before formats existed.
    for call in (lambda: workdir_lib.load_config(workdir),
                 lambda: workdir_lib.prepare(config, workdir)):
      with self.assertRaisesRegex(build_lib.ExperimentError,
                                  r'earlier version.*format 1, now 2.*'
                                  r'python-loop.*new --workdir'):
        call()

  def test_compiled_loop_workdir_of_an_earlier_version_is_taken(self):
    workdir = self.create_tempdir().full_path
    config = config_lib.ExperimentConfig(env='catch')
    saved = config.to_dict()
    del saved['network'], saved['imports']  # Not known to format 1.
    with open(os.path.join(workdir, 'config.json'), 'w') as f:
      json.dump(saved, f)
    self.assertEqual(workdir_lib.load_config(workdir), config)
    workdir_lib.prepare(config, workdir)  # Rewritten in today's format.
    with open(os.path.join(workdir, 'config.json')) as f:
      self.assertEqual(json.load(f)['workdir_format'], workdir_lib.FORMAT)

  def test_missing_config_names_the_directory(self):
    with self.assertRaisesRegex(FileNotFoundError, 'No config.json'):
      workdir_lib.load_config(self.create_tempdir().full_path)

  def test_seed_directories_and_export_names(self):
    one = config_lib.ExperimentConfig()
    many = config_lib.ExperimentConfig(num_seeds=2)
    self.assertEqual(workdir_lib.seed_workdir(one, '/w', 0), '/w')
    self.assertEqual(workdir_lib.seed_workdir(many, '/w', 1), '/w/seed_1')
    self.assertEqual(workdir_lib.export_filename('plane_strike'),
                     'planestrike.tflite')
    self.assertEqual(workdir_lib.export_filename('gym:CartPole-v1'),
                     'gymcartpolev1.tflite')


if __name__ == '__main__':
  absltest.main()
