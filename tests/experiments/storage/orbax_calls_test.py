"""Tests for experiments/storage/orbax_calls.py."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from absl.testing import absltest

from experiments.storage import orbax_calls

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


class OrbaxCallTest(absltest.TestCase):
  """What happens around each Orbax operation (`OrbaxCall`)."""

  def test_ctrl_c_is_held_until_the_operation_returns(self):
    # Python's own Ctrl-C handler, whatever an earlier test in this worker
    # left installed: the held Ctrl-C is re-raised through it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    self.addCleanup(signal.signal, signal.SIGINT, previous)
    reached = []
    with self.assertRaises(KeyboardInterrupt):
      with orbax_calls.OrbaxCall('testing'):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        reached.append(True)  # Not interrupted inside.
    self.assertEqual(reached, [True])

  def test_ctrl_c_again_inside_exits_at_once_with_130(self):
    code = textwrap.dedent("""
        import os, signal, time
        from experiments.storage import orbax_calls
        with orbax_calls.OrbaxCall('writing checkpoint 7 in /x'):
          os.kill(os.getpid(), signal.SIGINT)
          os.kill(os.getpid(), signal.SIGINT)
          time.sleep(5)
        print('not reached')
    """)
    done = subprocess.run([sys.executable, '-c', code], capture_output=True,
                          text=True, check=False, timeout=120,
                          cwd=_REPO)
    self.assertEqual(done.returncode, 130)
    self.assertEqual(done.stdout, '')
    self.assertEqual(done.stderr.strip(), (
        'Ctrl-C again while writing checkpoint 7 in /x: stopped at once. '
        'Files written before are intact (a checkpoint being written is '
        'dropped); run the same command again to resume.'))

  def test_output_is_replayed_on_success_and_dropped_on_failure(self):
    code = textwrap.dedent("""
        import os
        from experiments.storage import orbax_calls
        with orbax_calls.OrbaxCall('ok'):
          os.write(2, b'kept\\n')
        try:
          with orbax_calls.OrbaxCall('failing'):
            os.write(2, b'library noise\\n')
            raise ValueError('x')
        except ValueError:
          pass
        with orbax_calls.OrbaxCall('failing') as call:
          os.write(2, b'more noise\\n')
          call.drop_output(settle=False)
    """)
    done = subprocess.run([sys.executable, '-c', code], capture_output=True,
                          text=True, check=False, timeout=120,
                          cwd=_REPO)
    self.assertEqual((done.returncode, done.stderr), (0, 'kept\n'))


if __name__ == '__main__':
  absltest.main()
