"""Interruptions through the command line: SIGTERM, Ctrl-C and
kill -9 lose at most the work since the last checkpoint, and every loop
resumes to the result of an uninterrupted run."""

import os
import random
import signal
import threading
import time

import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

# Compiled loop: 3-9 s of training on a 2-core CPU, long enough to be
# interrupted after a checkpoint a second in.
_COMPILED = ('--env=catch', '--agent=ppo', '--num_steps=250000',
             '--eval_episodes=20', '--export_tflite=false',
             '--progress=false', '--checkpoint_every_seconds=1')
# Python loop: REINFORCE's batches of 16 episodes straddle checkpoints.
_PYTHON = ('--env=catch', '--agent=reinforce', '--loop=python',
           '--num_episodes=800', '--eval_episodes=20',
           '--export_tflite=false', '--progress=false',
           '--checkpoint_every_seconds=1')


def _reference(cli, tmp_path_factory, flags):
  workdir = str(tmp_path_factory.mktemp('reference') / 'run')
  return cli.train(workdir, *flags, optimised=True)[1]


@pytest.fixture(scope='module', name='compiled_reference')
def compiled_reference_fixture(cli, tmp_path_factory):
  return _reference(cli, tmp_path_factory, _COMPILED)


@pytest.fixture(scope='module', name='python_reference')
def python_reference_fixture(cli, tmp_path_factory):
  return _reference(cli, tmp_path_factory, _PYTHON)


def _interrupt(cli, flags, workdir, signum, after_checkpoints=1):
  """Starts training, sends `signum` once `after_checkpoints` exist;
  returns (exit code, stderr)."""
  process = cli.start('train', *flags, f'--workdir={workdir}',
                      optimised=True)
  cli.wait_for(lambda: process.poll() is not None or
               len(cli.checkpoint_steps(workdir)) >= after_checkpoints,
               what='a checkpoint')
  assert process.poll() is None, process.communicate()[1]
  before = cli.checkpoint_steps(workdir)
  process.send_signal(signum)
  _, stderr = process.communicate(timeout=120)
  return process.returncode, stderr, before


def test_sigterm_checkpoints_exits_nonzero_and_resumes_bit_for_bit(
    cli, tmp_path, compiled_reference):
  """SIGTERM (Ctrl-C takes the same path: tests/experiments/driver)."""
  signum = signal.SIGTERM
  workdir = str(tmp_path / 'run')
  code, stderr, before = _interrupt(cli, _COMPILED, workdir, signum)
  assert code == 128 + signum, stderr
  name = signal.Signals(signum).name
  assert f'Stopped by {name}; checkpoint saved' in stderr
  assert cli.checkpoint_steps(workdir)[-1] > before[-1]  # Saved on the way.
  assert not os.path.exists(os.path.join(workdir, 'result.json'))
  _, result = cli.train(workdir, *_COMPILED, optimised=True)
  assert cli.metrics(result) == cli.metrics(compiled_reference)


def test_first_checkpoint_comes_soon_after_compilation(cli, tmp_path):
  workdir = str(tmp_path / 'run')
  process = cli.start('train', '--env=catch', '--agent=ppo',
                      '--num_steps=100000000', '--progress=false',
                      f'--workdir={workdir}')  # Default intervals.
  try:
    start = time.monotonic()
    cli.wait_for(lambda: process.poll() is not None or
                 cli.checkpoint_steps(workdir), timeout=90,
                 what='the first checkpoint')
    assert process.poll() is None, process.communicate()[1]
    # Start-up and compilation take ~15 s here, the first stretch 10 s.
    assert time.monotonic() - start < 60
  finally:
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_python_loop_resume_continues_the_same_episodes(cli, tmp_path,
                                                        python_reference):
  workdir = str(tmp_path / 'run')
  code, stderr, _ = _interrupt(cli, _PYTHON, workdir, signal.SIGTERM)
  assert code == 128 + signal.SIGTERM, stderr
  _, result = cli.train(workdir, *_PYTHON, optimised=True)
  assert cli.metrics(result) == cli.metrics(python_reference)


@pytest.mark.slow
def test_chaos_kill_9_at_random_moments_then_resume(cli, tmp_path,
                                                   compiled_reference):
  """Two kill -9 at random moments (starting, compiling, training,
  saving...), then a run to the end: the result of an uninterrupted run."""
  workdir = str(tmp_path / 'run')
  rng = random.Random(1234)
  for _ in range(2):
    process = cli.start('train', *_COMPILED, f'--workdir={workdir}',
                        optimised=True)
    time.sleep(rng.uniform(3, 14))
    process.send_signal(signal.SIGKILL)
    process.communicate()
  _, result = cli.train(workdir, *_COMPILED, optimised=True)
  assert cli.metrics(result) == cli.metrics(compiled_reference)


def test_ctrl_c_again_exits_130_at_once_and_the_run_resumes(cli, tmp_path):
  """Ctrl-C, then (once the run says it is stopping) Ctrl-C again and again:
  it lands in training, in the stop's checkpoint (held until written) or
  while exiting; every way, exit status 130 within seconds, no traceback,
  and a workdir the same command resumes and finishes."""
  workdir = str(tmp_path / 'run')
  process = cli.start('train', *_COMPILED, f'--workdir={workdir}',
                      optimised=True)
  lines = []
  reader = threading.Thread(target=lambda: lines.extend(process.stderr))
  reader.start()
  cli.wait_for(lambda: process.poll() is not None or
               cli.checkpoint_steps(workdir), what='a checkpoint')
  assert process.poll() is None, ''.join(lines)
  process.send_signal(signal.SIGINT)
  cli.wait_for(lambda: process.poll() is not None or
               any('SIGINT received' in line for line in lines),
               what='the first Ctrl-C to be taken')
  start = time.monotonic()
  while process.poll() is None and time.monotonic() - start < 60:
    process.send_signal(signal.SIGINT)
    time.sleep(0.02)
  process.wait(timeout=60)
  reader.join(timeout=60)
  stderr = ''.join(lines)
  assert process.returncode == 130, stderr
  assert time.monotonic() - start < 15, stderr
  assert 'Traceback' not in stderr and 'E1' not in stderr, stderr
  assert lines[-1].startswith(('Interrupted.', 'Stopped by SIGINT',
                               'Ctrl-C again')), stderr
  assert cli.checkpoint_steps(workdir), 'a checkpoint to resume from'
  done = cli.run('train', *_COMPILED, f'--workdir={workdir}',
                 optimised=True)
  assert done.returncode == 0, done.stderr
  assert 'resuming at environment step' in done.stderr
  assert cli.strict_json(os.path.join(workdir, 'result.json'))[
      'status'] == 'finished'
