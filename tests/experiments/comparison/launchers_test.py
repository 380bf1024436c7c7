"""Tests for experiments/comparison/launchers.py, Ray against a real local instance."""

import dataclasses
import functools
import glob
import os
import sys

from absl.testing import absltest
import pytest

from experiments.comparison import plan as comparison_lib
from experiments.comparison import run_groups
from experiments.driver import results as results_lib
from experiments.driver import run as driver
from experiments.comparison import group_runner
from experiments.comparison import launchers

_WITH_RAY = pytest.importorskip  # Ray is an optional extra: pip install .[ray]


def _comparison():
  return comparison_lib.Comparison(
      agents=('reinforce',), envs=('catch',), num_seeds=2,
      num_steps=1440, eval_points=4, eval_episodes=20,
      periodic_eval_episodes=10)


def _metrics(results):
  return [{k: v for k, v in r.items()
           if k not in results_lib.CIRCUMSTANCE_KEYS} for r in results]


def _fail_midway_once(group: run_groups.RunGroup) -> list:
  """Trains half the budget, checkpoints, then dies; the retry finishes.

  The first attempt leaves a marker in the group's directory, as a
  preempted worker leaves its checkpoint.
  """
  marker = os.path.join(group.workdir, 'failed_once')
  if not os.path.exists(marker):
    half = dataclasses.replace(group.config,
                               num_steps=group.config.num_steps // 2)
    driver.run_experiment(half, group.workdir, progress=False)
    for path in glob.glob(os.path.join(group.workdir, '**', 'result.json'),
                          recursive=True):
      os.remove(path)  # Died before the run's end.
    open(marker, 'w').close()
    raise RuntimeError(f'{group.name}: worker preempted')
  return group_runner.run_group(group, driver.run_experiment)


def _always_fail(task):
  raise ValueError(f'bad task {task}')


class LocalLauncherTest(absltest.TestCase):

  def test_runs_tasks_in_order(self):
    self.assertEqual(
        launchers.LocalLauncher().run(lambda x: x * x, [1, 2, 3], 'abc'),
        [1, 4, 9])

  def test_unknown_launcher_lists_the_valid_ones(self):
    with self.assertRaisesRegex(launchers.LauncherError,
                                '--launcher must be one of local, ray'):
      launchers.make_launcher('slurm')


@pytest.fixture(scope='module')
def ray_instance():
  ray = _WITH_RAY('ray')
  from ray import cloudpickle  # pylint: disable=g-import-not-at-top
  # Workers cannot import this test module: ship its functions by value.
  cloudpickle.register_pickle_by_value(sys.modules[__name__])
  ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
  yield ray
  ray.shutdown()


@pytest.mark.slow
def test_ray_retries_a_failed_task_and_loses_nothing(ray_instance, tmp_path):
  del ray_instance  # Running: the launcher connects to it.
  comparison = _comparison()
  local_dir, ray_dir = str(tmp_path / 'local'), str(tmp_path / 'ray')
  local_groups = comparison_lib.plan(comparison, local_dir)
  local = launchers.LocalLauncher().run(
      functools.partial(group_runner.run_group, train=driver.run_experiment),
      local_groups, [g.name for g in local_groups])
  groups = comparison_lib.plan(comparison, ray_dir)
  comparison_lib.prepare_workdir(comparison, groups, ray_dir, 'test')
  results = launchers.RayLauncher(num_cpus=1, max_retries=1).run(
      _fail_midway_once, groups, [g.name for g in groups])
  for group in groups:
    assert os.path.exists(os.path.join(group.workdir, 'failed_once'))
    assert group.finished()
    assert os.path.getsize(os.path.join(group.seed_dirs[0], 'eval.csv'))
  # Resumed from the failed attempt's checkpoint: the same runs as without
  # the failure.
  assert [_metrics(r) for r in results] == [_metrics(r) for r in local]
  assert results == [[s.result for s in g.statuses()] for g in groups]


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_ray_names_tasks_that_keep_failing(ray_instance):
  del ray_instance
  with pytest.raises(launchers.LauncherError,
                     match=r'(?s)1 of 2 tasks failed.*second.*bad task 2'):
    launchers.RayLauncher(max_retries=1).run(
        lambda x: x if x == 1 else _always_fail(x), [1, 2],
        ['first', 'second'])


if __name__ == '__main__':
  absltest.main()
