"""A write error (a full disk) stops the run with earlier files intact, and a
rerun resumes. The disk is "full" for files over a size limit (RLIMIT_FSIZE:
writes past it fail with EFBIG, as ENOSPC would)."""

import os
import resource
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


def _small_files_only():
  resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_write_error_stops_the_run_and_a_rerun_finishes(cli, tmp_path):
  workdir = str(tmp_path / 'run')
  flags = ('train', *cli.FAST, '--num_steps=20000', f'--workdir={workdir}')
  full = subprocess.run([sys.executable, '-m', 'experiments.' + flags[0],
                         *flags[1:]], cwd=cli.REPO, capture_output=True,
                        text=True, timeout=600, preexec_fn=_small_files_only,
                        check=False)
  assert full.returncode != 0
  assert 'File too large' in full.stderr or 'EFBIG' in full.stderr, (
      full.stderr[-2000:])
  assert not os.path.exists(os.path.join(workdir, 'result.json'))
  with open(os.path.join(workdir, 'config.json')) as f:
    assert f.read().endswith('}\n')  # Whole, never half-written.
  done = cli.run(*flags)
  assert done.returncode == 0, done.stderr
  assert cli.strict_json(os.path.join(workdir, 'result.json'))[
      'status'] == 'finished'
