"""What the export tests share: small Plane Strike training workdirs,
each loop's trained once per test process, and boards to train an
exported model on."""

import atexit
import functools
import shutil
import tempfile

from absl.testing import absltest
import numpy as np

from tests import commands


@functools.lru_cache(maxsize=None)
def _trained(loop: str) -> str:
  workdir = tempfile.mkdtemp()
  atexit.register(shutil.rmtree, workdir, ignore_errors=True)
  train = commands.run('experiments.train', f'--workdir={workdir}',
                       '--num_episodes=32', '--eval_episodes=5',
                       '--noexport_tflite', '--noprogress', f'--loop={loop}')
  assert train.returncode == 0, train.stderr[-2000:]
  return workdir


def copy(loop: str) -> str:
  """A fresh copy of the workdir trained in `loop` (its caller's to write
  in and remove), so that one test's exports never meet another's."""
  workdir = tempfile.mkdtemp()
  shutil.copytree(_trained(loop), workdir, dirs_exist_ok=True)
  return workdir


class CopyTest(absltest.TestCase):
  """Tests that export from their class's own copy (`cls.workdir`) of the
  workdir trained in its `LOOP`."""
  LOOP = 'compiled'

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.workdir = copy(cls.LOOP)

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.workdir)
    super().tearDownClass()


def training_batch(num_boards: int, seed: int = 0):
  """`(boards, actions, returns)`: random boards with their first cell
  untried, actions striking it, and random returns."""
  rng = np.random.default_rng(seed)
  boards = rng.choice([-1.0, 0.0, 1.0], size=(num_boards, 8, 8))
  boards[:, 0, 0] = 0.0
  return (boards.astype(np.float32), np.zeros(num_boards, np.int32),
          rng.normal(size=num_boards).astype(np.float32))
