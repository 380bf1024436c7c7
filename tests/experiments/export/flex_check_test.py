"""Tests for experiments/export/flex_check.py and flex_side/save_restore.py.

The real checks need the side env (scripts/setup_flex_env.sh, or
$FLEX_PYTHON); without it they skip, unless REQUIRE_FLEX=1 (test.sh) makes
that a failure. A fake side Python (a shell script) stands in for the
failures the real one should never show.
"""

import ast
import json
import os
import pathlib
import sys
from unittest import mock

import pytest
from absl.testing import absltest

from experiments.export import flex_check
from tests import commands
from tests.experiments.export import trained_workdir

_SCRIPT = pathlib.Path(flex_check.__file__).parent / 'flex_side' / (
    'save_restore.py')
# What the fake side Python prints when restore gives other weights.
_MISMATCH = {'interpreter': 'fake', 'boards': 1, 'train_steps': 3,
             'losses': [0.0] * 3, 'train_changed_infer': True,
             'identical': False, 'max_abs_diff': 0.25,
             'restore_changed_infer': True, 'weights_identical': False,
             'weights_max_abs_diff': 0.01, 'checkpoint_bytes': 1}


def _require_flex() -> None:
  """Skips without a Flex interpreter, or fails if REQUIRE_FLEX=1."""
  if flex_check.flex_python() is None:
    if os.environ.get('REQUIRE_FLEX') == '1':
      pytest.fail(f'REQUIRE_FLEX=1, but {flex_check.NO_FLEX_REASON}')
    pytest.skip(flex_check.NO_FLEX_REASON)


def _batch():
  return trained_workdir.training_batch(16)


def _fake_python(directory, body: str) -> str:
  """An executable that takes the side Python's arguments and runs `body`."""
  path = os.path.join(directory, 'fake-python')
  with open(path, 'w') as f:
    f.write(f'#!/bin/sh\n{body}\n')
  os.chmod(path, 0o755)
  return path


def _mismatch_python(directory) -> str:
  return _fake_python(directory, f"echo '{json.dumps(_MISMATCH)}'")


@pytest.mark.slow
def test_restore_in_a_fresh_interpreter_reproduces_trained_infer(
    trainable_model):
  _require_flex()
  batch = _batch()
  result = flex_check.check_save_restore(trainable_model.path, batch[0][:8],
                                         batch)
  assert result['checked'] and result['identical']
  assert result['max_abs_diff'] == 0.0
  assert result['train_steps'] == 3
  assert result['interpreter'].startswith('tensorflow')


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_a_check_without_training_proves_nothing_and_fails(trainable_model):
  _require_flex()
  batch = _batch()
  with pytest.raises(ValueError, match='proves nothing'):
    flex_check.check_save_restore(trainable_model.path, batch[0][:4], batch,
                                  train_steps=0)


def test_without_a_flex_interpreter_nothing_is_checked(tmp_path,
                                                       monkeypatch):
  monkeypatch.setenv(flex_check.PYTHON_ENV_VAR, str(tmp_path / 'missing'))
  assert flex_check.flex_python() is None
  expected = {'checked': False,
              'reason': 'no Flex interpreter: run scripts/setup_flex_env.sh'}
  batch = _batch()
  assert flex_check.check_save_restore('m.tflite', batch[0],
                                       batch) == expected
  # Plays no games (it has no model or environment to play them with).
  assert flex_check.check_trainable_export('m.tflite', None, None,
                                           0.5) == expected


def test_flex_python_overrides_the_side_env(tmp_path, monkeypatch):
  fake = _mismatch_python(tmp_path)
  monkeypatch.setenv(flex_check.PYTHON_ENV_VAR, fake)
  assert flex_check.flex_python() == fake


def test_a_restore_that_differs_raises(tmp_path):
  with pytest.raises(ValueError, match='does not reproduce.*0.25'):
    flex_check.check_save_restore('m.tflite', _batch()[0], _batch(),
                                  python=_mismatch_python(tmp_path))


def test_a_failed_side_process_raises_with_its_stderr(tmp_path):
  python = _fake_python(tmp_path, 'echo "FlexSave exploded" >&2; exit 3')
  with pytest.raises(RuntimeError, match=r'(?s)exit 3.*FlexSave exploded'):
    flex_check.check_save_restore('m.tflite', _batch()[0], _batch(),
                                  python=python)


def test_a_side_process_past_its_timeout_raises(tmp_path):
  python = _fake_python(tmp_path, 'exec sleep 30')
  with pytest.raises(RuntimeError, match='took over 0.5 s'):
    flex_check.check_save_restore('m.tflite', _batch()[0], _batch(),
                                  python=python, timeout_s=0.5)


def test_side_script_imports_only_numpy_tensorflow_and_the_stdlib():
  """The side env holds nothing else (no project, no JAX)."""
  tree = ast.parse(_SCRIPT.read_text())
  modules = {alias.name.split('.')[0] for node in ast.walk(tree)
             if isinstance(node, ast.Import) for alias in node.names}
  modules |= {node.module.split('.')[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom)}
  assert modules - set(sys.stdlib_module_names) == {'numpy', 'tensorflow'}


def _run(module, *args, env=None):
  """`python -m module args` in this process, with `env` set meanwhile."""
  with mock.patch.dict(os.environ, env or {}):
    return commands.run(module, *args)


@pytest.mark.slow
class ExportCommandTest(trained_workdir.CopyTest):
  """`experiments.export_tflite --export=trainable` runs the check."""

  def _export(self, output, env=None):
    return _run('experiments.export_tflite', f'--workdir={self.workdir}',
                '--export=trainable', '--train_optimizer=sgd',
                f'--output={output}', env=env)

  def test_the_check_is_reported(self):
    _require_flex()
    output = self.create_tempdir().full_path
    export = self._export(os.path.join(output, 'model.tflite'))
    self.assertEqual(export.returncode, 0, export.stderr[-2000:])
    report = json.loads(export.stdout[export.stdout.index('{'):])
    self.assertEqual(os.listdir(output), ['model.tflite'])
    check = report['save_restore']
    self.assertTrue(check['checked'] and check['identical'], check)
    self.assertEqual(check['max_abs_diff'], 0.0)

  def test_a_model_that_fails_the_check_is_not_published(self):
    output = self.create_tempdir().full_path
    export = self._export(
        os.path.join(output, 'model.tflite'),
        env={flex_check.PYTHON_ENV_VAR: _mismatch_python(output)})
    self.assertNotEqual(export.returncode, 0)
    self.assertIn('restore in a fresh interpreter does not reproduce',
                  export.stderr)
    # Neither the model nor its temporary file: only the fake Python.
    self.assertEqual(os.listdir(output), ['fake-python'])


if __name__ == '__main__':
  absltest.main()
