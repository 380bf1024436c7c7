"""Workdir faults through the command line: concurrent launches,
damaged checkpoints, corrupt files and a lost config.json."""

import json
import os
import shutil
import signal

import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_STEPS = ('--num_steps=30000', '--checkpoint_every_updates=32')


@pytest.fixture(scope='module', name='finished')
def finished_fixture(cli, tmp_path_factory):
  """A finished short run with two checkpoints kept (read-only: copy it)."""
  workdir = str(tmp_path_factory.mktemp('finished') / 'run')
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  assert len(cli.checkpoint_steps(workdir)) == 2
  return workdir


def _copy(workdir: str, tmp_path) -> str:
  target = str(tmp_path / 'copy')
  shutil.copytree(workdir, target)
  os.remove(os.path.join(target, 'result.json'))
  return target


def test_second_train_on_a_workdir_is_refused_naming_the_holder(cli,
                                                                 tmp_path):
  workdir = str(tmp_path / 'run')
  first = cli.start('train', *cli.FAST, '--num_steps=100000000',
                    f'--workdir={workdir}')
  try:
    cli.wait_for(lambda: os.path.exists(os.path.join(workdir, 'config.json')),
                 what='the first run to start')
    second = cli.run('train', *cli.FAST, '--num_steps=100000000',
                     f'--workdir={workdir}')
    assert second.returncode == 1
    assert f'in use by pid {first.pid}' in second.stderr, second.stderr
    assert 'another --workdir' in second.stderr
  finally:
    first.send_signal(signal.SIGKILL)
    first.wait()
  # That the OS drops a dead holder's lock: storage/workdir_lock_test.py.


def test_second_compare_on_a_workdir_is_refused(cli, tmp_path):
  workdir = str(tmp_path / 'comparison')
  flags = ('--agents=ppo', '--envs=catch', '--seeds=1',
           '--num_steps=100000000', '--progress=false',
           f'--workdir={workdir}')
  first = cli.start('compare', *flags)
  try:
    cli.wait_for(lambda: os.path.exists(
        os.path.join(workdir, 'comparison.json')), what='compare to start')
    second = cli.run('compare', *flags)
    assert second.returncode == 1
    assert 'comparison workdir' in second.stderr
    assert f'in use by pid {first.pid}' in second.stderr, second.stderr
  finally:
    first.send_signal(signal.SIGKILL)
    first.wait()


def test_damaged_newest_checkpoint_falls_back_to_the_previous(
    cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  older, newest = cli.checkpoint_steps(workdir)
  for root, _, files in os.walk(os.path.join(workdir, 'checkpoints',
                                             str(newest))):
    for name in files:
      with open(os.path.join(root, name), 'r+b') as f:
        f.truncate(os.path.getsize(f.name) // 2)
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  # One warning line, naming the checkpoint and why; no library output.
  (warning,) = [line for line in done.stderr.splitlines()
                if 'is damaged' in line or 'Traceback' in line or
                line.startswith(('E1', 'ERROR'))]
  assert f'Checkpoint {newest} in {workdir}/checkpoints is damaged (' in (
      warning), warning
  assert f'resumes from checkpoint {older}' in warning
  assert 'restore_error.txt' in warning
  expected = cli.strict_json(os.path.join(finished, 'result.json'))
  result = cli.strict_json(os.path.join(workdir, 'result.json'))
  assert cli.metrics(result) == cli.metrics(expected)  # Bit for bit.
  assert os.listdir(os.path.join(workdir, 'damaged_checkpoints'))


def test_a_restated_default_resumes(cli, finished, tmp_path):
  """`finished` ran without --num_envs: its config.json holds the default
  it resolved to, PPO's batch of 4 sequences, so --num_envs=4 is the same
  run; so it is for a config.json that left the default unset (None)."""
  assert cli.strict_json(os.path.join(finished, 'config.json'))[
      'num_envs'] == 4
  workdir = _copy(finished, tmp_path)
  config_path = os.path.join(workdir, 'config.json')
  config = cli.strict_json(config_path)
  with open(config_path, 'w', encoding='utf-8') as f:
    json.dump(dict(config, num_envs=None), f)
  done = cli.run('train', *cli.FAST, '--num_steps=32000',
                 '--checkpoint_every_updates=32', '--num_envs=4',
                 '--env_config.rows=10', f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  assert 'resuming at environment step 30,208' in ' '.join(
      done.stderr.split())  # The settings are wrapped at 79 columns.
  result = cli.strict_json(os.path.join(workdir, 'result.json'))
  assert result['env_steps'] > 30208 and result['num_envs'] == 4


def test_other_settings_are_refused_naming_only_the_differing_keys(
    cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  done = cli.run('train', *cli.FAST, *_STEPS, '--config.learning_rate=0.003',
                 '--num_envs=2', f'--workdir={workdir}')
  assert done.returncode == 1
  (line,) = done.stderr.strip().splitlines()
  assert line == (
      f"FATAL --workdir '{workdir}' holds a different experiment: "
      f"agent_config.learning_rate (--config.learning_rate): saved 0.00025, "
      f"now 0.003; num_envs: saved 4, now 2. To resume it, rerun "
      f"with the settings it was started with ({workdir}/config.json); to "
      f"train these, use a new --workdir. (--helpshort lists the flags)"), (
          line)
  assert 'clip_epsilon' not in line  # Not the whole config.


def test_no_restorable_checkpoint_names_the_directory(cli, finished,
                                                      tmp_path):
  workdir = _copy(finished, tmp_path)
  for step in cli.checkpoint_steps(workdir):
    shutil.rmtree(os.path.join(workdir, 'checkpoints', str(step), 'state'))
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 1
  assert 'No checkpoint in' in done.stderr
  assert 'Move that directory aside' in done.stderr
  assert len(done.stderr.splitlines()) < 10, done.stderr  # No traceback.


def test_a_result_json_that_is_a_directory_is_named(cli, finished,
                                                    tmp_path):
  workdir = _copy(finished, tmp_path)
  os.makedirs(os.path.join(workdir, 'result.json'))
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 1
  assert f'FATAL {workdir}/result.json: Is a directory' in done.stderr
  assert 'disk space' not in done.stderr


def test_corrupt_config_json_is_named(cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  with open(os.path.join(workdir, 'config.json'), 'w') as f:
    f.write('{"agent": "pp')
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 1
  assert f'{workdir}/config.json cannot be read' in done.stderr
  exported = cli.run('export_tflite', f'--workdir={workdir}')
  assert exported.returncode == 1
  assert 'config.json cannot be read' in exported.stderr


def test_deleted_config_json_beside_checkpoints_refuses_to_resume(
    cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  os.remove(os.path.join(workdir, 'config.json'))
  done = cli.run('train', *cli.FAST, *_STEPS, '--config.learning_rate=0.1',
                 f'--workdir={workdir}')
  assert done.returncode == 1
  assert 'config.json is missing but' in done.stderr
  assert 'Restore config.json' in done.stderr
  assert not os.path.exists(os.path.join(workdir, 'config.json'))


def test_torn_log_tails_are_cut_back_on_resume(cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  for name in ('train.csv', 'eval.csv'):
    with open(os.path.join(workdir, name), 'a') as f:
      f.write('9999999,0.12')  # What a power loss leaves: half a row.
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  assert 'train.csv' in done.stderr and 'torn' in done.stderr.lower()
  for name in ('train.csv', 'eval.csv'):
    with open(os.path.join(workdir, name)) as f, open(
        os.path.join(finished, name)) as g:
      assert f.read() == g.read()


def test_unreadable_row_in_the_middle_is_named_with_its_line(
    cli, finished, tmp_path):
  workdir = _copy(finished, tmp_path)
  path = os.path.join(workdir, 'train.csv')
  with open(path) as f:
    lines = f.readlines()
  assert len(lines) >= 3  # Header and rows: line 2 is not the tail.
  lines[1] = 'garbage,row\n'
  with open(path, 'w') as f:
    f.writelines(lines)
  done = cli.run('train', *cli.FAST, *_STEPS, f'--workdir={workdir}')
  assert done.returncode == 1
  assert f'{path}' in done.stderr and 'line 2' in done.stderr, done.stderr


def test_corrupt_comparison_json_is_named_by_report(cli, tmp_path):
  workdir = tmp_path / 'comparison'
  workdir.mkdir()
  (workdir / 'comparison.json').write_text('{"agents": [')
  done = cli.run('report', f'--workdir={workdir}')
  assert done.returncode == 1
  assert f'{workdir}/comparison.json cannot be read' in done.stderr
