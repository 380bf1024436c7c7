"""Tests for experiments/driver/workdir.py."""

import json
import os

from absl.testing import absltest

from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.storage import workdir_format


class WorkdirTest(absltest.TestCase):

  def test_config_round_trips_with_its_format(self):
    workdir = self.create_tempdir().full_path
    config = config_lib.ExperimentConfig(env='catch', num_episodes=5)
    workdir_lib.prepare(config, workdir)
    with open(os.path.join(workdir, 'config.json')) as f:
      self.assertEqual(json.load(f)['workdir_format'], workdir_format.FORMAT)
    self.assertEqual(workdir_lib.load_config(workdir), config)

  def test_workdirs_of_earlier_versions_are_refused(self):
    for loop, version in (('python', None), ('compiled', None),
                          ('compiled', 3)):
      workdir = self.create_tempdir().full_path
      config = config_lib.ExperimentConfig(env='catch', loop=loop)
      saved = config.to_dict()
      if version is not None:
        saved['workdir_format'] = version
      with open(os.path.join(workdir, 'config.json'), 'w') as f:
        json.dump(saved, f)
      for call in (lambda: workdir_lib.load_config(workdir),
                   lambda: workdir_lib.prepare(config, workdir)):
        with self.assertRaisesRegex(
            build_lib.ExperimentError,
            rf'another version.*format {version or 1}, this one reads '
            rf'{workdir_format.FORMAT}\): train again in a new --workdir, '
            rf'or read it with the release that wrote it\.$'):
          call()

  def test_unreadable_config_is_named(self):
    workdir = self.create_tempdir().full_path
    path = os.path.join(workdir, 'config.json')
    for text in ('{"agent": "reinf', '[]'):
      with open(path, 'w') as f:
        f.write(text)
      for call in (lambda: workdir_lib.load_config(workdir),
                   lambda: workdir_lib.prepare(
                       config_lib.ExperimentConfig(), workdir)):
        with self.assertRaisesRegex(build_lib.ExperimentError,
                                    f'{path} cannot be read.*Restore'):
          call()

  def test_config_with_bad_values_is_named(self):
    workdir = self.create_tempdir().full_path
    saved = config_lib.ExperimentConfig(env='catch').to_dict()
    saved.update(workdir_format=workdir_format.FORMAT, num_steps=-3)
    with open(os.path.join(workdir, 'config.json'), 'w') as f:
      json.dump(saved, f)
    with self.assertRaisesRegex(build_lib.ExperimentError,
                                'config.json does not describe.*num_steps'):
      workdir_lib.load_config(workdir)

  def test_checkpoints_without_config_refuse_to_resume(self):
    workdir = self.create_tempdir().full_path
    os.makedirs(os.path.join(workdir, 'checkpoints', '1200'))
    with self.assertRaisesRegex(build_lib.ExperimentError,
                                'config.json is missing but .*checkpoints '
                                'holds checkpoints.*Restore config.json'):
      workdir_lib.prepare(config_lib.ExperimentConfig(), workdir)
    self.assertFalse(os.path.exists(os.path.join(workdir, 'config.json')))

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

  def test_litter_of_a_killed_process_is_removed_and_nothing_else(self):
    workdir = self.create_tempdir().full_path
    checkpoints = os.path.join(workdir, 'checkpoints')
    litter = [os.path.join(checkpoints, '20480.orbax-checkpoint-tmp'),
              os.path.join(checkpoints, '4.orbax-checkpoint-tmp-1700000000'),
              os.path.join(workdir, '.unverified-999999999-catch.tflite')]
    kept = [os.path.join(checkpoints, '20480'),
            os.path.join(checkpoints, 'my.orbax-checkpoint-tmp'),
            os.path.join(workdir, '.unverified-999999999-catch.txt'),
            os.path.join(workdir, f'.unverified-{os.getppid()}-x.tflite'),
            os.path.join(workdir, 'catch.tflite')]
    for path in litter[:2] + kept[:2]:
      os.makedirs(path)
    for path in litter[2:] + kept[2:]:
      with open(path, 'w') as f:
        f.write('x')
    config = config_lib.ExperimentConfig(env='catch')
    self.assertEqual(workdir_lib.remove_litter(config, workdir), [
        'checkpoints/20480.orbax-checkpoint-tmp',
        'checkpoints/4.orbax-checkpoint-tmp-1700000000',
        '.unverified-999999999-catch.tflite'])
    self.assertFalse([p for p in litter if os.path.exists(p)])
    self.assertTrue(all(os.path.exists(p) for p in kept))  # A live pid too.


if __name__ == '__main__':
  absltest.main()
