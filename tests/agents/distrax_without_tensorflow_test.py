"""Training never loads TensorFlow; exporting gives the same model bytes
whether TFP saw TensorFlow or not (`agents/distrax_without_tensorflow.py`).

Each case runs in a fresh process: what a process has imported is the point.
"""

import os
import subprocess
import sys

from absl.testing import absltest
import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Runs `experiments.train` as `python -m` would, after `PRELUDE`, and prints
# at exit whether TensorFlow was ever imported.
_TRAIN = '''
import atexit, runpy, sys
{prelude}
atexit.register(lambda: print('tensorflow loaded:',
                              'tensorflow' in sys.modules))
sys.argv = ['train'] + sys.argv[1:]
runpy.run_module('experiments.train', run_name='__main__', alter_sys=True)
'''
_TINY_RUN = ('--agent=ppo', '--env=plane_strike', '--preset=none',
             '--num_steps=256', '--num_envs=4', '--config.unroll_length=16',
             '--eval_episodes=2', '--noprogress')


def _python(code: str, *args: str) -> str:
  process = subprocess.run(
      [sys.executable, '-c', code, *args], capture_output=True, text=True,
      cwd=_REPO, env=dict(os.environ, PYTHONPATH=_REPO), check=False)
  assert process.returncode == 0, process.stderr[-3000:]
  return process.stdout


class DistraxWithoutTensorflowTest(absltest.TestCase):

  def test_rlax_loads_without_tensorflow(self):
    out = _python('import sys, agents, rlax, distrax; '
                  'print(sorted(m for m in sys.modules '
                  "if m.split('.')[0] == 'tensorflow'))")
    self.assertEqual(out.strip(), '[]')

  @pytest.mark.slow
  def test_training_without_export_never_loads_tensorflow(self):
    workdir = self.create_tempdir().full_path
    out = _python(_TRAIN.format(prelude=''), *_TINY_RUN,
                  '--noexport_tflite', f'--workdir={workdir}')
    self.assertIn('tensorflow loaded: False', out)

  @pytest.mark.slow
  def test_export_is_the_same_model_when_tfp_loads_tensorflow(self):
    # distrax imported before `agents` could hide TensorFlow: TFP loads
    # TensorFlow and takes its docstring-copying path.
    models = []
    for prelude in ('import distrax\nassert "tensorflow" in sys.modules',
                    ''):
      workdir = self.create_tempdir().full_path
      out = _python(_TRAIN.format(prelude=prelude), *_TINY_RUN,
                    '--export_check_episodes=2', f'--workdir={workdir}')
      self.assertIn('tensorflow loaded: True', out)
      with open(os.path.join(workdir, 'planestrike.tflite'), 'rb') as f:
        models.append(f.read())
    self.assertEqual(models[0], models[1])


if __name__ == '__main__':
  absltest.main()
