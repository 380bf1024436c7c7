"""End-to-end tests of continuous control: PPO (Gaussian) and SAC trained
on Pendulum in both loops and on brax, the exported deterministic policy,
the dm_env face's evaluation against the compiled one, and the agent ×
action-space refusals (before anything is written)."""

import functools
import json
import os
import shutil
import tempfile

from absl.testing import absltest
from ai_edge_litert import interpreter as litert
import jax
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.driver import run as driver
from experiments.loops import evaluation
from experiments.loops import seeding
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from tests import commands

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

PENDULUM = 'gymnax:Pendulum-v1'
TOLERANCE = 5e-5  # The exporter's bar (`experiments.export.tflite`).
# Small settings: SAC learns from step 200 on minibatches of 32; PPO
# updates every 4 environments x 64 steps.
SAC = dict(batch_size=32, min_replay_size=200, actor_learning_rate=1e-3,
           critic_learning_rate=1e-3, temperature_learning_rate=1e-3)
PPO = dict(batch_size=4, unroll_length=64, num_minibatches=4, num_epochs=2,
           entropy_cost=0.0, reward_scale=0.1, discount=0.95)


@functools.lru_cache(maxsize=None)
def _workdirs():
  """The directory of the runs `_trained` shares, made on first use."""
  return tempfile.mkdtemp(prefix='continuous_control_test_')


def tearDownModule():
  if _workdirs.cache_info().currsize:
    shutil.rmtree(_workdirs(), ignore_errors=True)


def _config(agent, env=PENDULUM, **overrides):
  settings = dict(
      agent=agent, env=env,
      agent_config=agent_registry.make_config(
          agent, **(SAC if agent == 'sac' else PPO)),
      hidden_sizes=(32, 32), num_episodes=None,
      num_steps=2000 if agent == 'sac' else 4096, eval_episodes=4,
      export_check_episodes=2, periodic_eval_episodes=2)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


@functools.lru_cache(maxsize=None)
def _trained(name, agent, env=PENDULUM, loop='compiled', num_steps=None):
  """Trains once per module: `(workdir, result, built, actor params)`."""
  overrides = dict(loop=loop)
  if num_steps is not None:
    overrides.update(num_steps=num_steps, eval_every_steps=num_steps // 2)
  config = _config(agent, env, **overrides)
  workdir = os.path.join(_workdirs(), name)
  result = driver.run_experiment(config, workdir, progress=False)
  built = build_lib.build(config)
  return workdir, result, built, driver.restore_actor_params(built, workdir)


def _run(module, *args):
  return commands.run(module, *args)


def _pendulum_observations(count, seed=0):
  """`[count, 3]` Pendulum observations (cos θ, sin θ, θdot), the speed's
  extremes included."""
  rng = np.random.default_rng(seed)
  angles = rng.uniform(-np.pi, np.pi, count)
  speeds = rng.uniform(-8.0, 8.0, count)
  speeds[:2] = (-8.0, 8.0)
  return np.stack([np.cos(angles), np.sin(angles), speeds],
                  axis=1).astype(np.float32)


def _interpreter_outputs(path, observations):
  """The TFLite model's outputs, one observation per call, and its
  input and output details."""
  interpreter = litert.Interpreter(model_path=path)
  interpreter.allocate_tensors()
  (source,) = interpreter.get_input_details()
  (sink,) = interpreter.get_output_details()
  outputs = []
  for observation in observations:
    interpreter.set_tensor(source['index'], observation[None])
    interpreter.invoke()
    outputs.append(np.array(interpreter.get_tensor(sink['index'])))
  return np.concatenate(outputs), source, sink


def _check_pendulum_result(test, result, agent, loop):
  test.assertEqual((result['status'], result['agent'], result['env'],
                    result['loop']), ('finished', agent, PENDULUM, loop))
  for key in ('eval_mean_return', 'eval_mean_episode_length'):
    test.assertTrue(np.isfinite(result[key]), key)
  # Pendulum's reward per step lies in [-16.3, 0] over its 200 steps.
  test.assertBetween(result['eval_mean_return'], -2000.0, 0.0)
  test.assertEqual(result['eval_mean_episode_length'], 200.0)


class CompiledLoopTest(absltest.TestCase):
  """SAC and PPO on gymnax's Pendulum in the compiled loop, exported."""

  def test_results_are_finite_and_in_pendulums_range(self):
    for agent in ('sac', 'ppo'):
      with self.subTest(agent):
        workdir, result, _, _ = _trained(agent, agent)
        _check_pendulum_result(self, result, agent, 'compiled')
        with open(os.path.join(workdir, 'result.json')) as f:
          self.assertEqual(json.load(f), json.loads(json.dumps(result)))
        self.assertGreaterEqual(result['env_steps'], 2000)
        self.assertGreater(result['updates'], 0)
        self.assertEqual(result['network'], {
            'sac': 'mlp_actor_twin_q',
            'ppo': 'mlp_gaussian_actor_critic'}[agent])

  def test_tflite_policy_is_deterministic_bounded_and_equals_jax(self):
    for agent in ('sac', 'ppo'):
      with self.subTest(agent):
        workdir, result, built, params = _trained(agent, agent)
        path = os.path.join(workdir, 'gymnaxpendulumv1.tflite')
        self.assertEqual(result['tflite_path'], path)
        self.assertTrue(os.path.exists(path))
        report = result['tflite']
        self.assertTrue(report['finite'])
        self.assertEqual(report['tolerance'], TOLERANCE)
        self.assertLessEqual(report['max_abs_diff'], TOLERANCE)
        self.assertGreater(report['observations_checked'], 0)
        observations = _pendulum_observations(64)
        outputs, source, sink = _interpreter_outputs(path, observations)
        self.assertEqual((list(source['shape']), source['dtype']),
                         ([1, 3], np.float32))
        self.assertEqual((list(sink['shape']), sink['dtype']),
                         ([1, 1], np.float32))
        self.assertTrue(np.all(np.isfinite(outputs)))
        self.assertTrue(np.all((outputs >= -2.0) & (outputs <= 2.0)),
                        outputs.ravel())
        expected = np.asarray(jax.jit(built.agent.deployable_policy)(
            params, observations))
        self.assertEqual(expected.shape, (64, 1))
        np.testing.assert_allclose(outputs, expected, rtol=0, atol=TOLERANCE)
        # Deterministic: the same observation, the same action.
        again, _, _ = _interpreter_outputs(path, observations[:4])
        np.testing.assert_array_equal(again, outputs[:4])

  def test_dm_env_face_evaluates_as_the_compiled_loop(self):
    core = env_registry.make_functional(PENDULUM)
    for agent in ('sac', 'ppo'):
      with self.subTest(agent):
        _, result, built, params = _trained(agent, agent)
        evaluate_core = jax.jit(functools.partial(
            evaluation.evaluate_core, core, built.agent,
            built.environment_spec, num_episodes=4))
        for seed in (3,):
          face = evaluation.evaluate(
              env_registry.make_environment(PENDULUM, seed=seed),
              built.agent, params, num_episodes=4)
          compiled = evaluate_core(params, jax.random.PRNGKey(seed))
          self.assertTrue(np.isfinite(face['mean_return']))
          self.assertLess(face['mean_return'], 0.0)
          np.testing.assert_allclose(float(compiled['mean_return']),
                                     face['mean_return'], rtol=1e-3)
          self.assertEqual(float(compiled['mean_episode_length']),
                           face['mean_episode_length'])
        # The run's score replays through the dm_env face: its episodes
        # are those of the seed's evaluation stream.
        stream = seeding.environment_seed(0, seeding.EVAL)
        replayed = evaluation.evaluate(
            env_registry.make_environment(PENDULUM, seed=stream),
            built.agent, params, num_episodes=result['eval_episodes'])
        np.testing.assert_allclose(replayed['mean_return'],
                                   result['eval_mean_return'], rtol=1e-3)

  def test_trainable_export_is_refused_naming_the_plain_export(self):
    # SAC fails this today: export_tflite checks `trainable_on_device`
    # before the action space, so a SAC run is told to use a2c, ppo or
    # reinforce (none of which can export a trainable continuous policy)
    # and never hears of --export=plain.
    for agent in ('ppo', 'sac'):
      with self.subTest(agent):
        workdir = _trained(agent, agent)[0]
        before = sorted(os.listdir(workdir))
        export = _run('experiments.export_tflite', f'--workdir={workdir}',
                      '--export=trainable')
        self.assertNotEqual(export.returncode, 0)
        self.assertIn('--export=trainable', export.stderr)
        self.assertIn('continuous', export.stderr)
        self.assertIn('--export=plain', export.stderr)
        self.assertEqual(sorted(os.listdir(workdir)), before)


class PythonLoopTest(absltest.TestCase):
  """The dm_env loop: Gymnasium's Pendulum (Python only) and gymnax's."""

  def test_gymnasium_pendulum_trains_evaluates_and_exports(self):
    workdir, result, built, params = _trained(
        'sac_gym', 'sac', 'gym:Pendulum-v1', 'python', num_steps=1000)
    self.assertEqual((result['status'], result['loop'], result['env']),
                     ('finished', 'python', 'gym:Pendulum-v1'))
    self.assertBetween(result['eval_mean_return'], -2000.0, 0.0)
    self.assertEqual(result['eval_mean_episode_length'], 200.0)  # Truncated.
    self.assertEqual(result['env_steps'], 1000)
    self.assertEqual(result['updates'], 1000)  # One per step.
    self.assertEqual(result['evaluations'], 2)
    self.assertLessEqual(result['tflite']['max_abs_diff'], TOLERANCE)
    path = os.path.join(workdir, 'gympendulumv1.tflite')
    observations = _pendulum_observations(16, seed=1)
    outputs, source, sink = _interpreter_outputs(path, observations)
    self.assertEqual((list(source['shape']), list(sink['shape'])),
                     ([1, 3], [1, 1]))
    np.testing.assert_allclose(
        outputs, jax.jit(built.agent.deployable_policy)(params, observations),
        rtol=0, atol=TOLERANCE)

  def test_both_loops_give_results_of_the_same_shape(self):
    python_dir, python, _, _ = _trained(
        'ppo_python', 'ppo', loop='python', num_steps=1024)
    compiled_dir, compiled, _, _ = _trained('ppo', 'ppo')
    _check_pendulum_result(self, python, 'ppo', 'python')
    self.assertGreaterEqual(python['env_steps'], 1024)
    self.assertEqual(python['updates'], 4)  # 4 x 64 steps per update.
    self.assertEqual(python['evaluations'], 2)
    self.assertEqual(sorted(python), sorted(compiled))
    self.assertEqual(sorted(python['tflite']), sorted(compiled['tflite']))
    self.assertLessEqual(python['tflite']['max_abs_diff'], TOLERANCE)
    for key in ('env_steps', 'episodes', 'updates', 'evaluations'):
      self.assertIsInstance(python[key], int, key)
    headers = []
    for workdir in (python_dir, compiled_dir):
      with open(os.path.join(workdir, 'eval.csv')) as f:
        headers.append(f.readline())
    self.assertEqual(headers[0], headers[1])

  def test_both_loops_train_the_same_sac_to_float_rounding(self):
    # Same seed: the same episodes, actions and updates in either loop
    # (one environment; 400 SGD steps), up to float rounding.
    runs = {}
    for loop in ('compiled', 'python'):
      config = _config('sac', num_steps=600, eval_every_steps=0,
                       export_tflite=False, loop=loop)
      workdir = self.create_tempdir().full_path
      result = driver.run_experiment(config, workdir, progress=False)
      runs[loop] = result, driver.restore_actor_params(
          build_lib.build(config), workdir)
    (compiled, compiled_params), (python, python_params) = (
        runs['compiled'], runs['python'])
    for key in ('env_steps', 'episodes', 'updates'):
      self.assertEqual(compiled[key], python[key], key)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, atol=1e-4),
                 compiled_params, python_params)
    np.testing.assert_allclose(python['eval_mean_return'],
                               compiled['eval_mean_return'], rtol=1e-3)


class RefusalTest(absltest.TestCase):
  """An agent that cannot act in the environment's actions is refused
  before anything is built or written, naming what would fit."""

  CONTINUOUS = (r"continuous \(shape \(1,\), bounds \[-2, 2\]\)\. Agents for "
                r'continuous actions: ppo, sac, td3\.')

  def test_discrete_agents_on_pendulum_and_sac_on_catch(self):
    cases = [(agent, PENDULUM, 'discrete', self.CONTINUOUS)
             for agent in ('dqn', 'reinforce', 'a2c')]
    cases.append(('sac', 'catch', 'continuous',
                  r'discrete \(3 actions\)\. Agents for discrete actions: '
                  r'a2c, alphazero, c51, dqn, impala, muzero, ppo, pqn, '
                  r'qr_dqn, reinforce\.'))
    for agent, env, space, fits in cases:
      with self.subTest(agent=agent, env=env):
        workdir = os.path.join(self.create_tempdir().full_path, 'run')
        config = config_lib.ExperimentConfig(
            agent=agent, env=env, num_episodes=None, num_steps=1000)
        with self.assertRaisesRegex(
            build_lib.ExperimentError,
            rf"^--env={env}: Agent '{agent}' acts in {space} action spaces; "
            rf"this environment's actions are {fits}$"):
          driver.run_experiment(config, workdir, progress=False)
        self.assertFalse(os.path.exists(workdir))

  def test_command_line_refuses_with_a_usage_error(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'run')
    result = _run('experiments.train', '--agent=dqn', f'--env={PENDULUM}',
                  '--num_steps=1000', '--noprogress', f'--workdir={workdir}')
    self.assertEqual(result.returncode, 1, result.stderr[-2000:])
    self.assertRegex(result.stderr,
                     rf"FATAL --env={PENDULUM}: Agent 'dqn' acts in discrete "
                     rf"action spaces; this environment's actions are "
                     rf'{self.CONTINUOUS}')
    self.assertNotIn('Traceback', result.stderr)
    self.assertFalse(os.path.exists(workdir))


@pytest.mark.slow
class BraxTest(absltest.TestCase):
  """A tiny PPO run on brax's inverted pendulum (compile-bound: ~50 s)."""

  def test_inverted_pendulum_trains_and_exports_through_the_command(self):
    workdir = self.create_tempdir().full_path
    train = _run('experiments.train', '--agent=ppo',
                 '--env=brax:inverted_pendulum', '--preset=none',
                 '--num_steps=1024', '--hidden_sizes=32,32',
                 *[f'--config.{k}={v}' for k, v in PPO.items()],
                 '--env_config.episode_length=100', '--eval_episodes=2',
                 '--export_check_episodes=1', '--eval_every_steps=0',
                 '--noprogress', f'--workdir={workdir}')
    self.assertEqual(train.returncode, 0, train.stderr[-3000:])
    with open(os.path.join(workdir, 'result.json')) as f:
      result = json.load(f)
    with open(os.path.join(workdir, 'config.json')) as f:
      self.assertEqual(json.load(f)['env_kwargs'], {'episode_length': 100})
    self.assertEqual((result['status'], result['loop']),
                     ('finished', 'compiled'))
    self.assertGreaterEqual(result['env_steps'], 1024)
    # +1 a step while the pole stands, at most 100 steps an episode.
    self.assertBetween(result['eval_mean_return'], 1.0, 100.0)
    self.assertBetween(result['eval_mean_episode_length'], 1.0, 100.0)
    path = os.path.join(workdir, 'braxinvertedpendulum.tflite')
    self.assertEqual(result['tflite_path'], path)
    self.assertLessEqual(result['tflite']['max_abs_diff'], TOLERANCE)
    observations = np.random.default_rng(0).normal(
        0.0, 0.5, (16, 4)).astype(np.float32)
    outputs, source, sink = _interpreter_outputs(path, observations)
    self.assertEqual((list(source['shape']), list(sink['shape'])),
                     ([1, 4], [1, 1]))
    self.assertTrue(np.all((outputs >= -1.0) & (outputs <= 1.0)))


if __name__ == '__main__':
  absltest.main()
