"""Tests for experiments/storage/workdir_lock.py."""

import os
import signal
import subprocess
import sys
import time

from absl.testing import absltest

from experiments.storage import workdir_lock

_HOLD = '''
import sys, time
from experiments.storage import workdir_lock
lock = workdir_lock.WorkdirLock(sys.argv[1]).acquire()
print('held', flush=True)
time.sleep(600)
'''


class WorkdirLockTest(absltest.TestCase):

  def test_second_holder_is_refused_naming_the_first_until_it_dies(self):
    workdir = self.create_tempdir().full_path
    holder = subprocess.Popen([sys.executable, '-c', _HOLD, workdir],
                              stdout=subprocess.PIPE, text=True)
    try:
      self.assertEqual(holder.stdout.readline().strip(), 'held')
      with self.assertRaisesRegex(
          workdir_lock.WorkdirLocked,
          rf'in use by pid {holder.pid} on host .*another --workdir'):
        workdir_lock.WorkdirLock(workdir).acquire()
    finally:
      holder.send_signal(signal.SIGKILL)  # No clean-up: the OS frees it.
      holder.wait()
    with workdir_lock.WorkdirLock(workdir):
      with open(os.path.join(workdir, workdir_lock.LOCK_FILE)) as f:
        self.assertIn(f'"pid": {os.getpid()}', f.read())

  def test_released_lock_can_be_taken_again(self):
    workdir = self.create_tempdir().full_path
    lock = workdir_lock.WorkdirLock(workdir).acquire()
    with self.assertRaises(workdir_lock.WorkdirLocked):
      workdir_lock.WorkdirLock(workdir, 'comparison').acquire()
    lock.release()
    start = time.monotonic()
    workdir_lock.WorkdirLock(workdir).acquire().release()
    self.assertLess(time.monotonic() - start, 5)


if __name__ == '__main__':
  absltest.main()
