"""Tests for experiments/api.py: the command line's runs from Python."""

import dataclasses
import inspect
import json
import os
import shutil
import subprocess
import sys

from absl import flags
import numpy as np
import pytest

from environments import registry as env_registry
from experiments import api
from experiments import train
from experiments.driver import results
from experiments.setup import settings as settings_lib
from experiments.setup import train_settings

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# A tiny run: REINFORCE on Catch, compiled, no export.
_TINY = dict(agent='reinforce', env='catch', num_episodes=64, batch_size=8,
             eval_episodes=5, periodic_eval_episodes=2, export_tflite=False)
# What differs between two runs of the same settings: timings, the
# machine's record, where the files are.
_TIMINGS = results.CIRCUMSTANCE_KEYS + ('tflite_path',)


def _without_timings(result: dict) -> dict:
  return {k: v for k, v in result.items() if k not in _TIMINGS}


@pytest.fixture(scope='module')
def api_run(tmp_path_factory):
  """(workdir, result) of the tiny run trained through the API."""
  workdir = str(tmp_path_factory.mktemp('api') / 'run')
  return workdir, api.train(workdir=workdir, progress=False, **_TINY).result


def test_train_settings_are_the_train_flags_with_their_defaults():
  for field in dataclasses.fields(train_settings.TrainSettings):
    if field.name in ('config', 'env_config'):
      continue  # --config.<key> namespaces, defined per --agent and --env.
    assert field.name in flags.FLAGS, field.name
    default = field.default
    flag_default = flags.FLAGS[field.name].default
    if field.name == 'imports':
      flag_default = tuple(flag_default or ())
    assert flag_default == default, field.name
  signature = inspect.signature(api.train).parameters
  assert set(train_settings.names()) <= set(signature)
  assert signature['agent'].default == 'ppo'


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_the_api_and_the_command_line_make_the_same_run(api_run, tmp_path):
  workdir, result = api_run
  with open(os.path.join(workdir, 'result.json')) as f:
    assert json.load(f) == result
  cli_workdir = str(tmp_path / 'cli')
  argv = ['train', f'--workdir={cli_workdir}', '--noprogress'] + [
      f'--{k}={v}' if not isinstance(v, bool) else f'--{"" if v else "no"}{k}'
      for k, v in _TINY.items()]
  saved = flags.FLAGS.flag_values_dict()
  try:
    flags.FLAGS.unparse_flags()
    flags.FLAGS(argv)
    train.main(['train'])
  finally:
    flags.FLAGS.unparse_flags()
    flags.FLAGS(['train'])
    for name, value in saved.items():
      flags.FLAGS[name].value = value
  with open(os.path.join(cli_workdir, 'result.json')) as f:
    from_cli = json.load(f)
  assert _without_timings(from_cli) == _without_timings(result)
  for log in ('train.csv', 'eval.csv'):
    with open(os.path.join(workdir, log)) as a, \
        open(os.path.join(cli_workdir, log)) as b:
      rows_api, rows_cli = a.read().splitlines(), b.read().splitlines()
    header = rows_api[0].split(',')
    kept = [i for i, name in enumerate(header)
            if not name.startswith('perf/') and name != 'wall_seconds']
    pick = lambda rows: [[r.split(',')[i] for i in kept] for r in rows]
    assert pick(rows_api) == pick(rows_cli), log


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_a_finished_run_is_returned_as_saved(api_run):
  workdir, result = api_run
  assert api.train(workdir=workdir, progress=False,
                   **_TINY).result == result


def test_bad_input_is_named_before_anything_is_written(tmp_path):
  workdir = str(tmp_path / 'never')
  cases = [
      (dict(agent='sarsa'), r'--agent: .*reinforce'),
      (dict(env='chess'), r'--env: .*plane_strike'),
      (dict(agent='ppo', config={'learning_rat': 1e-3}),
       r"--config: Unknown config key\(s\) \['learning_rat'\].*Valid keys"),
      (dict(env_config={'board_size': 3}),
       r'--env_config.board_size=3: plane_strike refuses'),
      (dict(num_step=10), r"Unknown setting\(s\) \['num_step'\]. Valid: "
                          r'agent, env'),
      (dict(seed=-1), r'--seed: must be between 0 and 2\^63 - 1; got -1'),
      (dict(seed=2**63), r'--seed: must be between 0 and 2\^63 - 1'),
      (dict(seed=2**63 - 1, num_seeds=2), r'the last of num_seeds=2'),
      (dict(learning_rate=float('nan')), r'--learning_rate: must be a '
                                         r'finite number'),
      # A shorthand of an agent config key is checked by the config, and
      # named as its flag.
      (dict(agent='ppo', learning_rate=-1e-3),
       r'--learning_rate: PPOConfig.learning_rate must be > 0'),
      (dict(batch_size=0), r'--batch_size: must be >= 1; got 0'),
      (dict(hidden_sizes=(64, 0)), r'--hidden_sizes: must be positive'),
      (dict(preset='fast'), r'--preset: Unknown preset'),
      (dict(loop='python', num_seeds=2), r'num_seeds needs loop=compiled'),
      (dict(imports=['no_such_module_xyz']),
       r"cannot import module 'no_such_module_xyz'"),
  ]
  for settings, message in cases:
    with pytest.raises(api.UsageError, match=message):
      api.train(workdir=workdir, progress=False, **settings)
  # Each keyword is of its flag's type, in its flag's bounds.
  cases = [
      (dict(num_steps=True), r'--num_steps: must be an integer >= 1'),
      (dict(num_steps='abc'), r'--num_steps: must be an integer >= 1'),
      (dict(export_tflite='no'), r'--export_tflite: must be True or False'),
      (dict(num_envs=0), r'--num_envs: must be >= 1; got 0'),
      (dict(hidden_sizes=64), r'--hidden_sizes: must be positive'),
      (dict(checkpoint_every_seconds='10'),
       r'--checkpoint_every_seconds: must be a finite number'),
      (dict(eval_epsilon=1.5), r'--eval_epsilon: must be between 0 and 1'),
      (dict(agent='dqn', eval_policy='greedy', eval_epsilon=0.1),
       r'--eval_epsilon: applies to --eval_policy=epsilon_greedy only'),
      (dict(env=3), r'--env: a name \(a string\) is needed'),
  ]
  for settings, message in cases:
    with pytest.raises(api.UsageError, match=message):
      api.train(workdir=workdir, progress=False, **settings)
  for call, message in (
      (lambda: api.compare(workdir, agents='ppo'),
       r"--agents: a list of names is needed, e.g. \['ppo'\]"),
      (lambda: api.compare(workdir, envs='catch'), r'--envs: a list'),
      (lambda: api.sweep(workdir, held_out_seeds=-1),
       r'--held_out_seeds: must be >= 0; got -1'),
      (lambda: api.sweep(workdir, seeds=0), r'--seeds: must be >= 1; got 0'),
      (lambda: api.sweep(workdir, seeds='3'),
       r'--seeds: must be an integer >= 1; got'),
      (lambda: api.compare(workdir, bootstrap_reps=10),
       r'--bootstrap_reps: must be >= 100; got 10'),
      (lambda: api.compare(workdir, launcher='slurm'),
       r'--launcher: one of local, ray'),
      (lambda: api.compare(workdir, eval_point=3),
       r"Unknown setting\(s\) \['eval_point'\]. Valid: .*eval_points"),
      (lambda: api.compare(workdir, agents=['dqn2']), r'dqn2'),
      (lambda: api.sweep(workdir, config=None),
       r'--config: a mapping of key to value is needed'),
      (lambda: api.sweep(workdir, grid='learning_rate:1e-3'),
       r"--grid: a list of names is needed, e.g. \['learning_rate:1e-3'\]"),
      (lambda: api.sweep(workdir, grid={'learning_rat': [1e-3]}),
       r'learning_rat'),
      (lambda: api.export(workdir, export='app'),
       r"--export: one of plain, trainable; got 'app'"),
      (lambda: api.export(workdir, verify_games=0),
       r'--verify_games: must be >= 1; got 0'),
      (lambda: api.export(workdir), r'--workdir: No config.json'),
      (lambda: api.load_policy(workdir), r'--workdir: No config.json')):
    with pytest.raises(api.UsageError, match=message):
      call()
  # Settings are keywords: a second positional value is no setting.
  with pytest.raises(TypeError, match='positional argument'):
    api.sweep(workdir, 'dqn')  # pylint: disable=too-many-function-args
  assert not os.path.exists(workdir)


def test_the_keyword_bounds_are_the_flags_bounds():
  declared = train_settings.TrainSettings
  for name in train_settings.names():
    if name in ('config', 'env_config'):
      continue
    parser = flags.FLAGS[name].parser
    assert (getattr(parser, 'lower_bound', None) ==
            settings_lib.bounds(declared, 'lower').get(name)), name
    upper = getattr(parser, 'upper_bound', None)
    assert upper == settings_lib.bounds(declared, 'upper').get(name), name


def test_a_workdir_that_is_a_file_is_named(tmp_path):
  path = tmp_path / 'run'
  path.write_text('not a directory')
  with pytest.raises(api.UsageError, match=r"--workdir .* is a file, not a "
                     r'directory'):
    api.train(workdir=str(path), progress=False, **_TINY)


def test_a_divergence_limit_below_the_initial_weights_is_named(tmp_path):
  workdir = str(tmp_path / 'run')
  with pytest.raises(api.UsageError, match=r'--max_abs_param=0.01 is below '
                     r'the largest initial parameter magnitude'):
    api.train(workdir=workdir, progress=False, max_abs_param=0.01, **_TINY)
  assert not os.path.exists(os.path.join(workdir, 'train.csv'))


def _copy_editing(workdir, copy, name, edit):
  """A copy of the run `workdir` at `copy`, its JSON file `name` edited."""
  shutil.copytree(workdir, copy, ignore=shutil.ignore_patterns('.lock'))
  path = os.path.join(copy, name)
  with open(path) as f:
    data = json.load(f)
  edit(data)
  with open(path, 'w') as f:
    json.dump(data, f)


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_a_copied_workdir_names_its_own_model(api_run, tmp_path):
  workdir, _ = api_run
  copy = str(tmp_path / 'copy')
  _copy_editing(workdir, copy, 'result.json', lambda result: result.update(
      tflite_path=os.path.join(workdir, 'model.tflite')))
  again = api.train(workdir=copy, progress=False, **_TINY).result
  assert again['tflite_path'] == os.path.join(os.path.abspath(copy),
                                              'model.tflite')


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_an_unknown_env_config_key_in_config_json_is_named(api_run,
                                                           tmp_path):
  workdir, _ = api_run
  copy = str(tmp_path / 'edited')
  _copy_editing(workdir, copy, 'config.json', lambda config: config.update(
      env_kwargs={'no_such_key': 1}))
  with pytest.raises(api.UsageError, match=r'config.json does not describe '
                     r'a run .*no_such_key'):
    api.export(copy)


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_a_missing_imports_module_is_named_and_the_run_kept(api_run, tmp_path):
  workdir, _ = api_run
  moved = str(tmp_path / 'moved')
  os.makedirs(moved)
  with open(os.path.join(workdir, 'config.json')) as f:
    config = json.load(f)
  config['imports'] = ['my_lab.no_such_module']
  with open(os.path.join(moved, 'config.json'), 'w') as f:
    json.dump(config, f)
  with pytest.raises(api.UsageError) as error:
    api.export(moved)
  message = str(error.value)
  assert "cannot import module 'my_lab.no_such_module'" in message
  assert 'PYTHONPATH' in message and 'intact' in message
  assert 'new --workdir' not in message


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_load_policy_plays_the_trained_greedy_policy(api_run):
  workdir, result = api_run
  policy = api.load_policy(workdir)
  environment = env_registry.make_environment('catch', seed=0)
  timestep = environment.reset()
  action = policy(timestep.observation)
  assert np.shape(action) == () and 0 <= int(action) < 3
  batch = np.stack([timestep.observation] * 4)
  np.testing.assert_array_equal(policy(batch), [action] * 4)
  assert result['eval_mean_return'] >= -1


@pytest.mark.slow
def test_export_verifies_the_model_as_the_command_does(api_run):
  workdir, _ = api_run
  report = api.export(workdir, verify_games=5)
  assert os.path.exists(report['tflite_path'])
  assert report['max_abs_diff'] < 1e-5


@pytest.mark.slow
def test_an_imports_file_path_works_from_any_directory(tmp_path):
  """A user's module named by its file, from outside the checkout (where
  dm-haiku's own `examples` package is importable too)."""
  path = os.path.join(_REPO, 'examples', 'custom_environment.py')
  workdir = str(tmp_path / 'corridor')
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  process = subprocess.run(
      [sys.executable, '-m', 'experiments.train', f'--imports={path}',
       '--env=corridor', '--agent=reinforce', '--num_episodes=16',
       '--batch_size=8', '--eval_episodes=2', '--noexport_tflite',
       f'--workdir={workdir}', '--noprogress'],
      capture_output=True, text=True, cwd=str(tmp_path), env=env,
      check=False)
  assert process.returncode == 0, process.stderr[-3000:]
  with open(os.path.join(workdir, 'config.json')) as f:
    assert json.load(f)['imports'] == [path]
