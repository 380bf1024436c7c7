"""Tests for experiments/driver/run.py with the compiled loop: outputs,
seeds, resume, sharding, several hosts."""

import csv
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from unittest import mock

from absl.testing import absltest
import chex
import jax
import pytest

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.driver import time_account
from experiments.driver import workdir as workdir_lib
from experiments.loops import compiled_training
from experiments.loops import env_slots
from experiments.loops import row_plans
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _config(**overrides):
  settings = dict(
      agent='reinforce', env='catch',
      agent_config=agent_registry.make_config('reinforce', batch_size=4),
      hidden_sizes=(16,), num_episodes=40, eval_episodes=20,
      eval_every_episodes=16, periodic_eval_episodes=5, log_every_episodes=8,
      checkpoint_every_updates=2, updates_per_chunk=2, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


def _final_state(config, workdir):
  return driver.restored_loop(build_lib.build(config), workdir).state


def _csv(path):
  with open(path, newline='') as f:
    return list(csv.DictReader(f))


class CompiledExperimentTest(absltest.TestCase):

  def test_compiled_is_the_default_loop_for_jax_cores(self):
    self.assertEqual(_config().loop, 'compiled')
    self.assertEqual(_config(env='bsuite:catch/0', loop=None,
                             updates_per_chunk=None).loop, 'python')

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_writes_config_logs_checkpoints_and_result(self):
    workdir = self.create_tempdir().full_path
    started = time.perf_counter()
    result = driver.run_experiment(_config(), workdir, progress=False)
    elapsed = time.perf_counter() - started
    # Where the session's time went: every part, none counted twice.
    account = result['time_account']
    self.assertSequenceEqual(list(account), time_account.PARTS)
    self.assertGreater(account['compile'], 0.0)
    self.assertGreater(account['training'], 0.0)
    self.assertGreater(account['host_round_trips'], 0.0)
    self.assertGreater(account['checkpoints'], 0.0)
    self.assertGreater(account['periodic_evaluation'], 0.0)
    self.assertGreater(account['final_evaluation'], 0.0)
    self.assertEqual(account['export'], 0.0)  # --noexport_tflite.
    self.assertLessEqual(sum(account.values()), elapsed)
    self.assertEqual(result['episodes'], 40)
    self.assertEqual(result['updates'], 10)
    self.assertEqual(result['num_envs'], 4)
    self.assertEqual(result['env_steps'], 40 * 9)  # Catch lasts 9 steps.
    self.assertGreater(result['compile_seconds'], 0.0)
    with open(os.path.join(workdir, 'result.json')) as f:
      self.assertEqual(json.load(f), json.loads(json.dumps(result)))
    rows = _csv(os.path.join(workdir, 'train.csv'))
    self.assertLen(rows, 5)  # One row per chunk of 2 updates.
    self.assertEqual([int(r['progress/episodes']) for r in rows],
                     [8, 16, 24, 32, 40])
    for column in ('train/episode_return', 'train/policy_loss',
                   'train/discounted_return', 'perf/steps_per_second',
                   'perf/wall_seconds', 'progress/updates',
                   'eval/episode_return'):
      self.assertIn(column, rows[0])
    # Catch's length is always 9; REINFORCE without an entropy bonus has
    # no loss but its policy loss.
    for column in ('train/episode_length', 'eval/episode_length',
                   'train/loss', 'episode_return', 'steps_per_second'):
      self.assertNotIn(column, rows[0])
    self.assertNotEqual(rows[1]['eval/episode_return'], '')  # At 16.
    self.assertTrue(os.listdir(os.path.join(workdir, 'tensorboard')))
    # config.json records how many checkpoints the run keeps (2, unset).
    self.assertEqual(workdir_lib.load_config(workdir),
                     _config(keep_checkpoints=2))

  @pytest.mark.slow
  def test_checkpoints_hold_every_agents_environment_slots_whole(self):
    # One layout: a feed-forward agent's slots carry an
    # empty recurrent state, a recurrent agent's its cores' states.
    loop = build_lib.make_loop(build_lib.build(_config()))
    self.assertIsInstance(loop.state.envs, env_slots.EnvSlots)
    self.assertEqual(jax.tree.leaves(loop.state.envs.core_states), [])
    recurrent = build_lib.make_loop(build_lib.build(_config(
        agent='ppo', network='lstm_actor_critic', num_episodes=None,
        num_steps=64, agent_config=agent_registry.make_config(
            'ppo', unroll_length=8, batch_size=4, num_minibatches=2))))
    self.assertTrue(jax.tree.leaves(recurrent.state.envs.core_states))

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_interrupted_run_resumes_bit_for_bit(self):
    self._check_resumes_bit_for_bit(_config(), updates=10)

  @pytest.mark.slow
  def test_interrupted_recurrent_run_resumes_bit_for_bit(self):
    # Each environment's recurrent state is part of the loop's state.
    self._check_resumes_bit_for_bit(_config(
        agent='ppo', network='lstm_actor_critic', num_episodes=None,
        num_steps=320, agent_config=agent_registry.make_config(
            'ppo', unroll_length=8, batch_size=4, num_minibatches=2),
        eval_every_episodes=None, log_every_episodes=None,
        eval_every_steps=64, log_every_steps=32), updates=10)

  def _check_resumes_bit_for_bit(self, config, updates):
    straight = self.create_tempdir().full_path
    driver.run_experiment(config, straight, progress=False)

    interrupted = self.create_tempdir().full_path
    real_run_rows = compiled_training.CompiledTraining.run_rows
    calls = []

    def run_rows(loop, schedule, progress=None):
      calls.append(schedule)
      if len(calls) == 3:
        raise KeyboardInterrupt
      return real_run_rows(loop, schedule, progress)

    with mock.patch.object(compiled_training.CompiledTraining, 'run_rows',
                           run_rows):
      with self.assertRaises(KeyboardInterrupt):
        driver.run_experiment(config, interrupted, progress=False)
    resumed = driver.run_experiment(config, interrupted,
                                        progress=False)
    self.assertEqual(resumed['updates'], updates)
    chex.assert_trees_all_equal(_final_state(config, straight),
                                _final_state(config, interrupted))
    with open(os.path.join(straight, 'result.json')) as f:
      expected = json.load(f)
    for key in ('env_steps', 'episodes', 'eval_mean_return'):
      self.assertEqual(resumed[key], expected[key])
    drop = ('perf/steps_per_second', 'perf/episodes_per_second',
            'perf/wall_seconds')
    strip = lambda rows: [{k: v for k, v in r.items() if k not in drop}
                          for r in rows]
    self.assertEqual(strip(_csv(os.path.join(interrupted, 'train.csv'))),
                     strip(_csv(os.path.join(straight, 'train.csv'))))

  @pytest.mark.slow
  def test_seeds_side_by_side_write_one_directory_each(self):
    workdir = self.create_tempdir().full_path
    config = _config(num_seeds=2, seed=3, eval_every_episodes=0)
    summary = driver.run_experiment(config, workdir, progress=False)
    self.assertEqual([r['seed'] for r in summary['seeds']], [3, 4])
    for result in summary['seeds']:
      directory = os.path.join(workdir, f'seed_{result["seed"]}')
      with open(os.path.join(directory, 'result.json')) as f:
        self.assertEqual(json.load(f)['seed'], result['seed'])
      self.assertLen(_csv(os.path.join(directory, 'train.csv')), 5)
    with open(os.path.join(workdir, 'result.json')) as f:
      self.assertLen(json.load(f)['seeds'], 2)
    # The seed-3 run inside the pair matches a seed-3 run alone.
    alone = driver.run_experiment(
        _config(seed=3, eval_every_episodes=0),
        self.create_tempdir().full_path, progress=False)
    self.assertEqual(alone['env_steps'], summary['seeds'][0]['env_steps'])
    self.assertAlmostEqual(alone['eval_mean_return'],
                           summary['seeds'][0]['eval_mean_return'])

  @pytest.mark.slow
  def test_step_budget_of_unroll_agents_is_met_exactly_in_updates(self):
    config = _config(agent='ppo', num_episodes=None, num_steps=1000,
                     agent_config=agent_registry.make_config(
                         'ppo', unroll_length=16), updates_per_chunk=None)
    result = driver.run_experiment(config,
                                       self.create_tempdir().full_path,
                                       progress=False)
    self.assertEqual(result['env_steps'], 1024)  # 16 updates of 4 x 16.
    self.assertEqual(result['updates'], 16)

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_calls_of_many_rows_or_of_cut_rows_train_and_log_alike(self):
    # PPO by steps: every row's counters can be foreseen, so a call runs
    # many rows (up to an evaluation or a checkpoint by updates); with no
    # time for a whole row, a call runs one update and the row goes on.
    config = _config(agent='ppo', num_episodes=None, num_steps=1600,
                     agent_config=agent_registry.make_config(
                         'ppo', unroll_length=16),
                     eval_every_episodes=0, eval_every_steps=640,
                     log_every_episodes=0, log_every_steps=128,
                     checkpoint_every_updates=None, updates_per_chunk=None)

    def run(chunk_seconds, stop_at_call=None):
      workdir = self.create_tempdir().full_path
      calls = []
      real = compiled_training.CompiledTraining._execute

      def execute(loop, ends, cut=False):
        calls.append((list(ends), cut))
        if len(calls) == stop_at_call:
          raise KeyboardInterrupt
        return real(loop, ends, cut)

      with mock.patch.object(row_plans, 'CHUNK_SECONDS',
                             chunk_seconds), mock.patch.object(
                                 compiled_training.CompiledTraining,
                                 '_execute', execute):
        if stop_at_call:
          with self.assertRaises(KeyboardInterrupt):
            driver.run_experiment(config, workdir, progress=False)
        driver.run_experiment(config, workdir, progress=False)
      return workdir, calls

    many_rows, many_rows_calls = run(1e9)
    # 25 updates of 64 steps in rows of 2; the first call runs one row
    # (no speed known yet), the evaluations at steps 640 and 1280 (updates
    # 10 and 20) end the next two.
    self.assertEqual([ends for ends, _ in many_rows_calls],
                     [[2], [2, 4, 6, 8], [2, 4, 6, 8, 10], [2, 4, 5]])
    cut_rows, cut_rows_calls = run(0.0)
    self.assertEqual(cut_rows_calls[:3], [([2], False), ([1], True),
                                          ([1], False)])
    self.assertLen(cut_rows_calls, 1 + 23)
    # Stopped inside a row (checkpointed there, the row's sums with it),
    # then resumed.
    resumed, _ = run(0.0, stop_at_call=5)  # After a cut call.
    for workdir in (cut_rows, resumed):
      chex.assert_trees_all_equal(_final_state(config, many_rows),
                                  _final_state(config, workdir))
      for log in ('train.csv', 'eval.csv'):
        drop = ('perf/steps_per_second', 'perf/episodes_per_second',
                'perf/wall_seconds', 'wall_seconds')
        strip = lambda rows: [{k: v for k, v in r.items() if k not in drop}
                              for r in rows]
        self.assertEqual(strip(_csv(os.path.join(workdir, log))),
                         strip(_csv(os.path.join(many_rows, log))))
    walls = [float(r['perf/wall_seconds'])
             for r in _csv(os.path.join(many_rows, 'train.csv'))]
    self.assertEqual(walls, sorted(walls))

  @pytest.mark.slow
  def test_step_budget_of_episode_agents_overshoots_by_less_than_an_update(
      self):
    config = _config(num_episodes=None, num_steps=500, updates_per_chunk=50)
    result = driver.run_experiment(config,
                                       self.create_tempdir().full_path,
                                       progress=False)
    self.assertEqual(result['env_steps'], 504)  # 14 updates of 4 x 9 steps.

  @pytest.mark.slow
  def test_evaluations_every_n_steps_go_to_eval_csv(self):
    config = _config(eval_every_episodes=0, eval_every_steps=90,
                     updates_per_chunk=None)
    workdir = self.create_tempdir().full_path
    driver.run_experiment(config, workdir, progress=False)
    rows = _csv(os.path.join(workdir, 'eval.csv'))
    steps = [int(r['step']) for r in rows]
    # Updates of 36 steps; chunks stop at the first update past each
    # multiple of 90, so each evaluation lands less than an update late.
    self.assertEqual(steps, [108, 180, 288, 360])
    self.assertEqual([int(r['episodes']) for r in rows], [12, 20, 32, 40])
    self.assertEqual(set(rows[0]), {'step', 'mean_return',
                                    'mean_episode_length', 'episodes',
                                    'wall_seconds'})

  def test_num_envs_that_do_not_divide_the_batch_are_refused_first(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'run')
    with self.assertRaisesRegex(build_lib.ExperimentError,
                                r'--num_envs.*\(3\) must divide.*4'):
      driver.run_experiment(_config(num_envs=3), workdir, progress=False)
    self.assertFalse(os.path.exists(workdir))

  def test_bad_loop_settings_are_refused(self):
    with self.assertRaisesRegex(ValueError, 'loop=compiled needs .*JAX core'
                                r'.*craftax:<id>.*navix:<id>.*xminigrid:<id>'):
      _config(env='bsuite:catch/0', loop='compiled')
    with self.assertRaisesRegex(ValueError, 'num_seeds needs loop=compiled'):
      _config(loop='python', num_seeds=2, updates_per_chunk=None)
    with self.assertRaisesRegex(ValueError, 'loop must be one of'):
      _config(loop='anakin')


@pytest.mark.slow
class ShardingTest(absltest.TestCase):

  def test_sharded_and_unsharded_runs_agree(self):
    # Two CPU devices need XLA_FLAGS before JAX starts: a fresh process.
    script = textwrap.dedent('''
        import json, os, sys
        from unittest import mock
        import jax
        import numpy as np
        from agents import registry
        from experiments.driver import run as driver
        from experiments.setup import config
        from experiments.loops import device_mesh
        assert len(jax.devices()) == 2, jax.devices()
        results = {}
        for devices in (1, 2):
          mesh = device_mesh.device_mesh(2, 1, jax.devices()[:devices])
          assert mesh.devices.size == devices
          cfg = config.ExperimentConfig(
              agent=sys.argv[1], env='catch', num_seeds=2, num_episodes=None,
              num_steps=2048, hidden_sizes=(16,), eval_episodes=50,
              eval_every_episodes=0, export_tflite=False,
              agent_config=registry.make_config(sys.argv[1], batch_size=4))
          with mock.patch.object(device_mesh, 'device_mesh',
                                 lambda n, d, mesh=mesh: mesh):
            summary = driver.run_experiment(
                cfg, os.path.join(sys.argv[2], str(devices)), progress=False)
          results[devices] = summary['seeds']
        keys = ('env_steps', 'episodes', 'updates', 'eval_mean_return')
        for one, two in zip(results[1], results[2]):
          assert all(one[k] == two[k] for k in keys), (one, two)
        print('AGREE')
        ''')
    # PPO; REINFORCE's whole episodes on sharded seeds are checked in
    # tests/experiments/loops/data_parallel_training_test.py.
    for agent in ('ppo',):
      result = subprocess.run(
          [sys.executable, '-c', script, agent,
           self.create_tempdir().full_path],
          capture_output=True, text=True, cwd=_REPO, check=False,
          env=dict(os.environ, PYTHONPATH=_REPO,
                   XLA_FLAGS=os.environ.get('XLA_FLAGS', '') +
                   ' --xla_force_host_platform_device_count=2'))
      self.assertEqual(result.returncode, 0, result.stderr[-3000:])
      self.assertIn('AGREE', result.stdout)


@pytest.mark.slow
class MultiHostTest(absltest.TestCase):
  """Two processes with one CPU device each, joined by
  jax.distributed.initialize through the flags, share a workdir, and train
  what one process with two CPU devices trains. (One device against two in
  one process is ShardingTest's and data_parallel_training_test's: vmapped
  lanes and sharded ones may round differently on some CPUs.)"""

  def _train_one_and_two(self, common, one_only=()):
    """`experiments.train` with `common` flags in two processes of one
    device each, then in one process of two devices (plus `one_only`); the
    root of their workdirs `one`, `two`."""
    root = self.create_tempdir().full_path
    with socket.socket() as s:
      s.bind(('localhost', 0))
      port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=_REPO, JAX_PLATFORMS='cpu')
    flags = [flag for flag in os.environ.get('XLA_FLAGS', '').split()
             if 'device_count' not in flag]  # Conftest's compile flags.
    env['XLA_FLAGS'] = ' '.join(flags)
    processes = [
        subprocess.Popen(
            [sys.executable, '-m', 'experiments.train',
             f'--workdir={root}/two', f'--coordinator_address=localhost:{port}',
             '--num_processes=2', f'--process_id={i}', *common],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=_REPO, env=env) for i in range(2)]
    for process in processes:
      _, stderr = process.communicate(timeout=600)
      self.assertEqual(process.returncode, 0, stderr[-3000:])
    single = subprocess.run(
        [sys.executable, '-m', 'experiments.train', f'--workdir={root}/one',
         *common, *one_only],
        capture_output=True, text=True, cwd=_REPO, check=False,
        env=dict(env, XLA_FLAGS=' '.join(
            flags + ['--xla_force_host_platform_device_count=2'])))
    self.assertEqual(single.returncode, 0, single.stderr[-3000:])
    return root

  def _results(self, root, seed_dir=''):
    results = []
    for run in ('one', 'two'):
      with open(os.path.join(root, run, seed_dir, 'result.json')) as f:
        results.append(json.load(f))
      with open(os.path.join(root, run, seed_dir, 'train.csv')) as f:
        rows = list(csv.DictReader(f))
      results[-1]['train_rows'] = [  # All but the clock's columns.
          {k: v for k, v in row.items() if not k.startswith('perf/')}
          for row in rows]
    for key in ('env_steps', 'episodes', 'updates', 'eval_mean_return',
                'train_rows'):
      self.assertEqual(results[0][key], results[1][key], (seed_dir, key))
    self.assertEqual(results[0]['provenance']['num_devices'],
                     results[1]['provenance']['num_devices'])
    return results

  def test_two_processes_train_what_one_process_trains(self):
    # Export on in two processes: every process joins in fetching the
    # params to export (the one-process export is tested elsewhere).
    root = self._train_one_and_two(
        ['--num_seeds=2', '--env=catch', '--num_steps=8192',
         '--log_every_steps=2048', '--eval_episodes=20', '--noprogress'],
        one_only=['--noexport_tflite'])
    for seed in (0, 1):
      results = self._results(root, f'seed_{seed}')
      self.assertLessEqual(results[1]['tflite']['max_abs_diff'], 5e-5)
      self.assertIn('mean_return', results[1]['tflite'])

  def test_one_seed_split_over_two_processes_trains_as_one_process(self):
    # Data parallel across hosts: each process holds half of the seed's
    # environments and the gradients are averaged over both.
    root = self._train_one_and_two(
        ['--agent=ppo', '--env=catch', '--num_steps=2048', '--num_envs=8',
         '--config.batch_size=8', '--config.unroll_length=16',
         '--eval_episodes=20', '--noexport_tflite', '--noprogress',
         '--preset=none', '--devices_per_seed=2'])
    results = self._results(root)
    self.assertEqual(results[1]['provenance']['num_devices'], 2)


if __name__ == '__main__':
  absltest.main()
