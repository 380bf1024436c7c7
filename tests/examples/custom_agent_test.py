"""examples/custom_agent.py: a user's agent in both loops and in a
comparison with a user's environment."""

import os

import pytest

from tests import unrendered_figures
from tests.examples import conftest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


@pytest.mark.parametrize('loop, export', [('compiled', '--export_tflite'),
                                          ('python', '--noexport_tflite')])
def test_learns_catch_in_both_loops(tmp_path, loop, export):
  result = conftest.train_result(conftest.run(
      'experiments.train', '--imports=examples.custom_agent',
      '--agent=reinforce_with_baseline', '--env=catch', f'--loop={loop}',
      '--num_steps=20000', '--eval_episodes=100', export,
      f'--workdir={tmp_path}/{loop}', '--noprogress'), f'{tmp_path}/{loop}')
  assert result['eval_mean_return'] >= 0.9
  if loop == 'compiled':
    assert result['tflite']['max_abs_diff'] < 1e-5


def test_compare_and_report_with_user_agent_and_environment(tmp_path):
  workdir = str(tmp_path / 'comparison')
  with unrendered_figures.unrendered():  # Drawn by report_test.
    compare = conftest.run(
        'experiments.compare',
        '--imports=examples.custom_agent,examples.custom_environment',
        '--agents=reinforce_with_baseline,ppo', '--envs=corridor',
        '--seeds=2', '--num_steps=4096', '--eval_points=2',
        '--eval_episodes=20', '--periodic_eval_episodes=10',
        '--bootstrap_reps=200', f'--workdir={workdir}', '--noprogress')
  assert compare.returncode == 0, compare.stderr[-3000:]
  with open(os.path.join(workdir, 'report.md')) as f:
    report = f.read()
  assert 'reinforce_with_baseline' in report
  assert 'steps to the end' in report  # The entry's reference score.
  # The report command redraws it without --imports: the comparison
  # remembers them (each command's modules and registrations are gone
  # after it, as in a fresh process).
  redraw = conftest.run('experiments.report', f'--workdir={workdir}',
                        '--bootstrap_reps=200')
  assert redraw.returncode == 0, redraw.stderr[-3000:]
