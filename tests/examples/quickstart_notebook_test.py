"""examples/quickstart.ipynb: kept without outputs, and run top to bottom
in a fresh kernel as a user runs it (train, curves, compare, sweep,
export, a game played by the .tflite model)."""

import json
import os

import pytest

from tests.examples import conftest

PATH = os.path.join(conftest.REPO, 'examples', 'quickstart.ipynb')


def test_the_committed_notebook_has_no_outputs():
  with open(PATH, encoding='utf-8') as f:
    notebook = json.load(f)
  code = [c for c in notebook['cells'] if c['cell_type'] == 'code']
  assert code
  for cell in code:
    assert cell['outputs'] == [] and cell['execution_count'] is None, (
        'Strip the outputs before committing: jupyter nbconvert '
        '--clear-output --inplace examples/quickstart.ipynb')


@pytest.mark.slow  # A kernel, four trainings and an export.
def test_every_cell_runs(tmp_path, monkeypatch):
  nbclient = pytest.importorskip('nbclient')  # The test extra's.
  nbformat = pytest.importorskip('nbformat')
  monkeypatch.setenv('QUICKSTART_WORKDIR', str(tmp_path))
  notebook = nbformat.read(PATH, as_version=4)
  client = nbclient.NotebookClient(
      notebook, timeout=600, kernel_name='python3',
      resources={'metadata': {'path': str(tmp_path)}})
  client.execute()  # Raises CellExecutionError naming a failing cell.
  text = '\n'.join(
      output.get('text', '') for cell in notebook.cells
      if cell.cell_type == 'code' for output in cell.outputs)
  assert 'greedy return' in text
  assert 'return of one game played by the .tflite model:' in text
  images = [output for cell in notebook.cells if cell.cell_type == 'code'
            for output in cell.outputs
            if 'image/png' in output.get('data', {})]
  assert images  # The learning curve was drawn.
  assert os.path.exists(os.path.join(tmp_path, 'compare', 'report.md'))
