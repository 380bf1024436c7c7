"""A write error (a full disk) stops the run in one line with earlier files
intact, and a rerun cleans up what the failed run left and resumes.

The disk is "full" for files over a size limit (RLIMIT_FSIZE: writes past it
fail with EFBIG, as ENOSPC would), and, where this process may mount a small
tmpfs (root with CAP_SYS_ADMIN), truly full (ENOSPC)."""

import os
import resource
import subprocess
import sys

import pytest

from experiments.storage import checkpointing

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_FLAGS = ('--num_steps=20000',)


def _checkpoints(workdir: str) -> list:
  """What the checkpoint directory holds, less its lock file."""
  return sorted(n for n in os.listdir(os.path.join(workdir, 'checkpoints'))
                if n != checkpointing.LOCK_FILE)


def _files_up_to(limit: int):
  def set_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
  return set_limit


def _run_limited(cli, limit: int, *flags: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, '-m', 'experiments.train', *cli.FAST, *_FLAGS,
       *flags], cwd=cli.REPO, capture_output=True, text=True, timeout=600,
      preexec_fn=_files_up_to(limit), check=False)


def _library_noise(stderr: str) -> list:
  """Lines no user should see: tracebacks and libraries' log lines."""
  return [line for line in stderr.splitlines()
          if line.startswith(('Traceback', 'E1', 'W1', 'ERROR:', '  File ',
                              'Exception ignored', 'future:'))]


def _one_fatal_line(stderr: str) -> str:
  (fatal,) = [line for line in stderr.splitlines()
              if line.startswith('FATAL')]
  assert stderr.rstrip().endswith(fatal), stderr[-2000:]
  assert not _library_noise(stderr), stderr[-3000:]
  return fatal


def test_a_checkpoint_write_error_is_one_line_and_a_rerun_resumes(cli,
                                                                  tmp_path):
  """Orbax's write fails (its files exceed the limit; the logs do not)."""
  workdir = str(tmp_path / 'run')
  full = _run_limited(cli, 16384, f'--workdir={workdir}')
  assert full.returncode == 1
  fatal = _one_fatal_line(full.stderr)
  assert fatal.startswith(f'FATAL checkpoint 20480 could not be written in '
                          f'{workdir}/checkpoints: file too large (EFBIG); '
                          f'files written before are intact'), fatal
  assert 'rerun the same command to resume' in fatal
  assert not os.path.exists(os.path.join(workdir, 'result.json'))
  with open(os.path.join(workdir, 'config.json')) as f:
    assert f.read().endswith('}\n')  # Whole, never half-written.
  # What the failed save and a killed export left, and what is not theirs.
  unfinished = _checkpoints(workdir)
  assert unfinished == ['20480.orbax-checkpoint-tmp'], unfinished
  litter = os.path.join(workdir, '.unverified-999999999-catch.tflite')
  kept = [os.path.join(workdir, name) for name in (
      'notes.orbax-checkpoint-tmp', '.unverified-notes.txt')]
  for path in [litter] + kept:
    with open(path, 'w') as f:
      f.write('x')
  done = cli.run('train', *cli.FAST, *_FLAGS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  (removed,) = [line for line in done.stderr.splitlines()
                if line.startswith('Removed')]
  assert removed == (
      f'Removed what a killed process left unfinished in {workdir}: '
      f'checkpoints/20480.orbax-checkpoint-tmp, '
      f'.unverified-999999999-catch.tflite.'), removed
  assert not os.path.exists(litter)
  assert all(os.path.exists(path) for path in kept)
  assert cli.checkpoint_steps(workdir) == [20480]
  assert _checkpoints(workdir) == ['20480']
  assert cli.strict_json(os.path.join(workdir, 'result.json'))[
      'status'] == 'finished'


def test_a_log_write_error_names_the_file(cli, tmp_path):
  """The TensorBoard events file is the first to pass a small limit."""
  workdir = str(tmp_path / 'run')
  full = _run_limited(cli, 4096, f'--workdir={workdir}')
  assert full.returncode == 1
  fatal = _one_fatal_line(full.stderr)
  assert fatal.startswith(f"FATAL [Errno 27] File too large: "
                          f"'{workdir}/tensorboard/events.out."), fatal
  assert 'Files written before are intact' in fatal


@pytest.fixture(name='small_disk')
def small_disk_fixture(tmp_path):
  """A 120 KiB tmpfs: a run's logs fit, its first checkpoint does not."""
  mount = tmp_path / 'disk'
  mount.mkdir()
  made = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=120k', 'tmpfs',
                         str(mount)], capture_output=True, check=False)
  if made.returncode != 0:
    pytest.skip(f'cannot mount a tmpfs here: {made.stderr.decode()[:200]}')
  try:
    yield mount
  finally:
    subprocess.run(['umount', str(mount)], check=False)


def test_a_full_disk_is_named_in_one_line(cli, small_disk):
  workdir = str(small_disk / 'run')
  full = cli.run('train', *cli.FAST, *_FLAGS, f'--workdir={workdir}')
  assert full.returncode == 1
  fatal = _one_fatal_line(full.stderr)
  assert fatal == (
      f'FATAL checkpoint 20480 could not be written in {workdir}/checkpoints: '
      f'no space left on device (ENOSPC); files written before are intact '
      f'(no checkpoint was complete before it); free space and rerun the '
      f'same command to resume.'), fatal
