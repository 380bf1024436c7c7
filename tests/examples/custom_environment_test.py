"""examples/custom_environment.py: a user's JAX environment, trained in the
compiled loop, exported, and compared and reported on."""

import json
import os

import pytest

from tests.examples import conftest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


def test_trains_in_the_compiled_loop_and_exports(tmp_path):
  workdir = str(tmp_path / 'corridor')
  result = conftest.train_result(conftest.run(
      'experiments.train', '--imports=examples.custom_environment',
      '--env=corridor', '--agent=ppo', '--num_steps=30000',
      '--eval_episodes=50', f'--workdir={workdir}', '--noprogress'), workdir)
  assert result['loop'] == 'compiled'
  # The shortest walk of the default corridor is 7 steps.
  assert result['eval_mean_episode_length'] == 7.0
  assert result['tflite']['mean_episode_length'] == 7.0
  assert result['tflite']['max_abs_diff'] < 1e-5
  with open(os.path.join(workdir, 'config.json')) as f:
    assert json.load(f)['imports'] == ['examples.custom_environment']
  # A fresh process exports the workdir: it imports the run's own modules.
  export = conftest.output_json(conftest.run(
      'experiments.export_tflite', f'--workdir={workdir}',
      '--verify_games=10', f'--output={tmp_path}/again.tflite'))
  assert export['mean_episode_length'] == 7.0


def test_python_loop_takes_it_through_its_dm_env_face(tmp_path):
  result = conftest.train_result(conftest.run(
      'experiments.train', '--imports=examples.custom_environment',
      '--env=corridor', '--agent=reinforce', '--loop=python',
      '--num_episodes=64', '--eval_episodes=5', '--noexport_tflite',
      f'--workdir={tmp_path}/python', '--noprogress'), f'{tmp_path}/python')
  assert result['loop'] == 'python' and result['episodes'] == 64


def test_without_imports_the_name_is_unknown_and_says_how(tmp_path):
  process = conftest.run('experiments.train', '--env=corridor',
                         f'--workdir={tmp_path}/x', '--noprogress')
  assert process.returncode != 0
  assert "Unknown environment 'corridor'" in process.stderr
  assert '--imports' in process.stderr
  assert not os.path.exists(tmp_path / 'x')
