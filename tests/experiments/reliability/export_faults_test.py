"""Export faults through the command line: a model takes its final name only
after it is verified (a failing one leaves nothing and keeps a good one),
and a diverged or running workdir is not exported."""

import os
import signal
import time

import jax
import numpy as np
import pytest

from experiments.storage import workdir_lock

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


def _poisoned(state):
  """The loop state with every float of its learner NaN."""
  return state._replace(learner=jax.tree.map(
      lambda x: np.full_like(x, np.nan) if np.issubdtype(
          np.asarray(x).dtype, np.floating) else x, state.learner))


def test_ctrl_c_while_the_libraries_load_is_one_line(cli, tmp_path):
  # Half a second in, the command is importing JAX and TensorFlow (more
  # than a second here): one line and status 130, as after it starts.
  process = cli.start('export_tflite', f'--workdir={tmp_path}')
  time.sleep(0.5)
  process.send_signal(signal.SIGINT)
  _, stderr = process.communicate(timeout=60)
  assert process.returncode == 130, stderr
  assert 'Traceback' not in stderr, stderr
  assert stderr.strip().splitlines()[-1].startswith('Interrupted'), stderr


def test_failed_verification_publishes_nothing_and_keeps_the_good_model(
    cli, tmp_path):
  workdir = str(tmp_path / 'run')
  done = cli.run('train', '--env=catch', '--agent=ppo', '--num_steps=8000',
                 '--eval_episodes=20', '--progress=false',
                 f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  model = os.path.join(workdir, 'catch.tflite')
  with open(model, 'rb') as f:
    good = f.read()
  # Ctrl-C once the export is under way: one line, exit 130, no model.
  process = cli.start('export_tflite', f'--workdir={workdir}',
                      '--verify_games=5', f'--output={workdir}/again.tflite')
  for line in process.stderr:  # After any library's start-up lines.
    if line.startswith('Exporting the run in'):
      break
  process.send_signal(signal.SIGINT)
  _, stderr = process.communicate(timeout=60)
  assert process.returncode == 130, stderr
  assert 'Traceback' not in stderr, stderr
  assert stderr.strip().splitlines()[-1].startswith('Interrupted: nothing '
                                                    'was exported')
  assert not os.path.exists(os.path.join(workdir, 'again.tflite'))
  cli.rewrite_checkpoint(workdir, _poisoned,
                         cli.checkpoint_steps(workdir)[-1] + 1)
  for flags, name in (((), 'catch.tflite'),
                      (('--quantize=dynamic',), 'catch_dynamic.tflite')):
    failed = cli.run('export_tflite', f'--workdir={workdir}',
                     '--verify_games=5', *flags)
    assert failed.returncode == 1, failed.stderr
    assert 'NaN or infinite' in failed.stderr and name in failed.stderr
    assert len(failed.stderr.splitlines()) < 15, failed.stderr
  with open(model, 'rb') as f:
    assert f.read() == good
  assert sorted(n for n in os.listdir(workdir) if 'tflite' in n) == [
      'catch.tflite']


def test_a_diverged_or_running_workdir_is_not_exported(cli, tmp_path):
  workdir = str(tmp_path / 'diverged')
  diverged = cli.run('train', '--env=catch', '--num_episodes=256',
                     '--batch_size=8', '--learning_rate=1e6',
                     '--max_abs_param=10', '--eval_episodes=5',
                     '--progress=false', f'--workdir={workdir}')
  assert diverged.returncode == 1, diverged.stderr
  # Held as training holds it: export waits its turn, writing nothing.
  lock = workdir_lock.WorkdirLock(workdir).acquire()
  try:
    locked = cli.run('export_tflite', f'--workdir={workdir}')
  finally:
    lock.release()
  assert locked.returncode == 1, locked.stderr
  assert f'in use by pid {os.getpid()}' in locked.stderr
  refused = cli.run('export_tflite', f'--workdir={workdir}')
  assert refused.returncode == 1, refused.stderr
  message = [line for line in refused.stderr.strip().splitlines()
             if not line.startswith('Exporting the run in')]
  assert len(message) == 1, refused.stderr
  assert 'not exported: Seed 0 diverged at environment step' in message[0]
  assert 'result.json' in message[0]
  assert not [n for n in os.listdir(workdir) if 'tflite' in n]


def test_an_output_that_cannot_be_written_is_named_before_any_work(
    cli, tmp_path):
  a_file = tmp_path / 'a_file'
  a_file.write_text('x')
  for output, problem in (
      (f'{a_file}/x.tflite', f'{a_file} is a file, not a folder'),
      (str(tmp_path), 'is a directory: name the .tflite file')):
    refused = cli.run('export_tflite', f'--workdir={tmp_path / "no_run"}',
                      f'--output={output}')
    assert refused.returncode == 1, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f'FATAL --output={output}'), line
    assert problem in line, line
