"""One seed split over 1, 2 and 4 devices trains the same (compiled loop).

Four CPU devices need XLA_FLAGS before JAX starts, so each test runs a
script in a fresh process (`XLA_FLAGS=--xla_force_host_platform_device_count=4`).
"""

import os
import subprocess
import sys
import textwrap

from absl.testing import absltest
import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))

_AGREEMENT = textwrap.dedent('''
    import jax
    import numpy as np
    from agents import registry
    from environments import registry as env_registry
    from environments import specs
    from experiments.loops import compiled_training
    from experiments.loops import interface
    assert len(jax.devices()) == 4, jax.devices()
    # The loop's paths: whole episodes (REINFORCE), unrolls with epochs of
    # minibatches (PPO; A2C's unrolls are the same path), and a replay
    # (DQN). Every agent's own update is split in
    # tests/agents/data_parallel_test.py.
    agents = {
        'reinforce': ('plane_strike', dict(batch_size=8)),
        'ppo': ('catch', dict(batch_size=8, unroll_length=8,
                              num_minibatches=2)),
        'dqn': ('catch', dict(num_actors=8, batch_size=8,
                              min_replay_size=8)),
    }
    for name, (env, overrides) in agents.items():
      spec = specs.make_environment_spec(env_registry.make_environment(env))
      agent = registry.make_agent(
          name, registry.make_config(name, **overrides), spec,
          hidden_sizes=(16,))
      core = env_registry.make_functional(env)
      results = {}
      for devices in (1, 2, 4):
        # Two seeds: 2 x 1 devices, then a 2 x 2 mesh, then 1 x 4.
        loop = compiled_training.CompiledTraining(
            agent, spec, core, 8, [0, 1], updates_per_chunk=4,
            devices_per_seed=devices)
        loop.advance(interface.Targets(updates=4))
        assert loop.num_devices == (2 if devices == 1 else 4), (
            loop.num_devices)
        results[devices] = ([loop.actor_params(s) for s in (0, 1)],
                            loop.counters(), loop.evaluate(5))
      one = results[1]
      for devices in (2, 4):
        params, counters, evaluation = results[devices]
        for s in (0, 1):
          np.testing.assert_allclose(
              np.concatenate([np.ravel(x)
                              for x in jax.tree.leaves(params[s])]),
              np.concatenate([np.ravel(x)
                              for x in jax.tree.leaves(one[0][s])]),
              rtol=1e-5, atol=1e-6, err_msg=name)
        for key, value in counters.items():
          np.testing.assert_array_equal(value, one[1][key],
                                        err_msg=f'{name} {key}')
        for key, value in evaluation.items():
          np.testing.assert_allclose(value, one[2][key], rtol=1e-5,
                                     err_msg=f'{name} {key}')
      print('AGREE', name)
    ''')

_DRIVER = textwrap.dedent('''
    import os, sys
    from agents import registry
    from experiments.driver import run as driver
    from experiments.setup import build
    from experiments.setup import config
    root = sys.argv[1]
    def cfg(**kw):
      return config.ExperimentConfig(
          agent='ppo', env='catch', num_episodes=None, num_steps=4096,
          hidden_sizes=(16,), eval_episodes=20, eval_every_episodes=0,
          agent_config=registry.make_config(
              'ppo', batch_size=8, unroll_length=16, num_minibatches=4), **kw)
    for bad, message in ((8, 'only 4 device'), (3, 'num_envs')):
      try:
        driver.run_experiment(cfg(devices_per_seed=bad),
                              os.path.join(root, f'bad{bad}'),
                              progress=False)
      except build.ExperimentError as e:
        assert message in str(e) and 'Valid here: 1, 2, 4' in str(e), e
        assert not os.path.exists(os.path.join(root, f'bad{bad}')), bad
      else:
        raise AssertionError(f'devices_per_seed={bad} was accepted')
    one = driver.run_experiment(cfg(), os.path.join(root, 'one'),
                                progress=False)
    two = driver.run_experiment(cfg(devices_per_seed=2, num_seeds=2),
                                os.path.join(root, 'two'), progress=False)
    seed0 = two['seeds'][0]
    for key in ('env_steps', 'episodes', 'updates', 'eval_mean_return'):
      assert one[key] == seed0[key], (key, one[key], seed0[key])
    assert seed0['tflite']['max_abs_diff'] <= 5e-5, seed0['tflite']
    assert seed0['provenance']['num_devices'] == 4, seed0['provenance']
    print('DRIVER')
    ''')


def _run(script, *args):
  return subprocess.run(
      [sys.executable, '-c', script, *args], capture_output=True, text=True,
      cwd=_REPO, check=False,
      env=dict(os.environ, PYTHONPATH=_REPO, JAX_PLATFORMS='cpu',
               XLA_FLAGS=os.environ.get('XLA_FLAGS', '') +
               ' --xla_force_host_platform_device_count=4'))


class DataParallelTrainingTest(absltest.TestCase):

  def test_each_loop_path_agrees_on_one_two_and_four_devices(self):
    result = _run(_AGREEMENT)
    self.assertEqual(result.returncode, 0, result.stderr[-3000:])
    for agent in ('reinforce', 'ppo', 'dqn'):
      self.assertIn(f'AGREE {agent}', result.stdout)

  def test_driver_refuses_bad_counts_and_runs_split_seeds(self):
    result = _run(_DRIVER, self.create_tempdir().full_path)
    self.assertEqual(result.returncode, 0, result.stderr[-3000:])
    self.assertIn('DRIVER', result.stdout)


if __name__ == '__main__':
  absltest.main()
