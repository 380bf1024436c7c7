"""Tests for experiments/setup/extras.py: a missing extra is named with
its pip line before any work, and the core trains without any extra."""

import importlib.util
import os
import subprocess
import sys

import pytest

from experiments import api
from experiments.setup import extras
from experiments.setup import train_settings

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
# Every extra's top-level modules, as a lean install lacks them.
_EXTRA_MODULES = ('tensorflow', 'ai_edge_litert', 'rliable', 'pandas',
                  'matplotlib', 'tensorboard', 'gymnax', 'pgx', 'bsuite',
                  'gymnasium', 'brax', 'mujoco', 'ray', 'wandb')


def _without(monkeypatch, *names):
  """`importlib.util.find_spec` as if `names` were not installed."""
  find_spec = importlib.util.find_spec
  monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *a: (
      None if name in names else find_spec(name, *a)))


def test_a_missing_extra_is_named_with_its_pip_line(monkeypatch):
  _without(monkeypatch, 'tensorflow')
  assert extras.missing('export') == ['tensorflow']
  assert extras.missing('export', modules=('ai_edge_litert',)) == []
  with pytest.raises(extras.MissingExtra) as e:
    extras.require('export', 'Exporting', 'or not')
  assert str(e.value) == ("Exporting needs tensorflow (the 'export' extra): "
                          "pip install -e '.[export]', or not.")
  extras.require('report', 'A report')  # Installed here: no error.


def test_train_refuses_the_default_export_without_tensorflow(monkeypatch):
  _without(monkeypatch, 'tensorflow', 'ai_edge_litert')
  with pytest.raises(train_settings.SettingError,
                     match=r"--export_tflite \(on by default\) needs "
                     r"tensorflow, ai_edge_litert .*\.\[export\]'.*"
                     r"--noexport_tflite"):
    train_settings.experiment_config(train_settings.TrainSettings())
  train_settings.experiment_config(
      train_settings.TrainSettings(export_tflite=False))


def test_api_commands_name_their_extra_before_any_work(monkeypatch,
                                                       tmp_path):
  _without(monkeypatch, 'rliable', 'tensorflow')
  with pytest.raises(api.UsageError, match=r"\.\[report\]'"):
    api.compare(str(tmp_path / 'compare'))
  with pytest.raises(api.UsageError, match=r"\.\[report\]'"):
    api.sweep(str(tmp_path / 'sweep'))
  with pytest.raises(api.UsageError, match=r"\.\[export\]'"):
    api.export(str(tmp_path / 'run'))
  assert not os.listdir(tmp_path)


_LEAN = '''
import runpy, sys
class Absent:
  """The import system's finders, blind to every extra's modules."""
  def __init__(self, finders):
    self.finders = finders
  def find_spec(self, name, path=None, target=None):
    if name.split('.')[0] in {blocked}:
      return None
    for finder in self.finders:
      spec = finder.find_spec(name, path, target)
      if spec is not None:
        return spec
    return None
sys.meta_path[:] = [Absent(list(sys.meta_path))]
sys.argv = ['train', '--noprogress'] + sys.argv[1:]
runpy.run_module('experiments.train', run_name='__main__')
'''


def _lean_train(*args):
  """`experiments.train` in a fresh interpreter where no extra imports."""
  return subprocess.run(
      [sys.executable, '-c', _LEAN.format(blocked=set(_EXTRA_MODULES)),
       *args], capture_output=True, text=True, cwd=_REPO, check=False,
      env=dict(os.environ, PYTHONPATH=_REPO))


@pytest.mark.slow
def test_the_core_trains_without_any_extra(tmp_path):
  refused = _lean_train(f'--workdir={tmp_path / "refused"}', '--env=catch',
                        '--num_episodes=8')
  assert refused.returncode != 0
  assert "pip install -e '.[export]'" in refused.stderr
  assert not os.path.exists(tmp_path / 'refused')
  trained = _lean_train(f'--workdir={tmp_path / "run"}', '--env=catch',
                        '--num_episodes=16', '--batch_size=8',
                        '--eval_episodes=3', '--noexport_tflite')
  assert trained.returncode == 0, trained.stderr[-3000:]
  assert 'no model exported' in trained.stdout
  assert os.path.exists(tmp_path / 'run' / 'result.json')
