"""Tests for `environments.catch`."""

from absl.testing import absltest
from absl.testing import parameterized
from bsuite.environments import catch as bsuite_catch
import chex
from dm_env import specs
from dm_env import test_utils
import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from environments import catch
from environments import functional
from tests.environments import stepping

FIRST, MID, LAST = functional.FIRST, functional.MID, functional.LAST
LEFT, STAY, RIGHT = 0, 1, 2


def _state(ball_column, paddle_column, ball_row=0):
  return catch.CatchState(
      ball_row=jnp.asarray(ball_row, jnp.int32),
      ball_column=jnp.asarray(ball_column, jnp.int32),
      paddle_column=jnp.asarray(paddle_column, jnp.int32))


def _ones(observation):
  """Sorted (row, column) cells holding 1; every other cell must be 0."""
  observation = np.asarray(observation)
  assert set(np.unique(observation)) <= {0.0, 1.0}, observation
  return sorted(map(tuple, np.argwhere(observation == 1.0).tolist()))


class ResetTest(parameterized.TestCase):

  @parameterized.parameters((10, 5), (6, 7), (2, 1))
  def test_ball_on_top_paddle_in_the_middle(self, rows, columns):
    env = catch.Catch(rows, columns)
    reset = jax.jit(env.reset)
    for i in range(10):
      state, timestep = reset(jax.random.PRNGKey(i))
      column = int(state.ball_column)
      self.assertBetween(column, 0, columns - 1)
      self.assertEqual(int(state.ball_row), 0)
      self.assertEqual(int(state.paddle_column), columns // 2)
      self.assertEqual(_ones(timestep.observation),
                       [(0, column), (rows - 1, columns // 2)])
      self.assertEqual(timestep.observation.dtype, jnp.float32)
      self.assertEqual(int(timestep.step_type), FIRST)
      self.assertEqual(float(timestep.reward), 0.0)
      self.assertEqual(float(timestep.discount), 1.0)

  def test_ball_column_is_uniform(self):
    num_samples, columns = 5000, 5
    env = catch.Catch(columns=columns)
    keys = jax.random.split(jax.random.PRNGKey(7), num_samples)
    sampled = jax.jit(jax.vmap(lambda k: env.reset(k)[0].ball_column))(keys)
    counts = np.bincount(np.asarray(sampled), minlength=columns)
    self.assertLen(counts, columns)
    result = stats.chisquare(counts)
    self.assertGreater(result.pvalue, 1e-3, (counts, result))

  def test_reset_depends_on_key(self):
    env = catch.Catch()
    reset = jax.jit(env.reset)
    columns = {int(reset(jax.random.PRNGKey(i))[0].ball_column)
               for i in range(30)}
    self.assertLen(columns, 5)

  @parameterized.parameters(
      dict(rows=1), dict(rows=0), dict(columns=0), dict(rows=2.0),
      dict(columns=True), dict(rows='10'))
  def test_invalid_sizes(self, **kwargs):
    with self.assertRaisesRegex(ValueError, list(kwargs)[0]):
      catch.Catch(**kwargs)

  def test_specs(self):
    env = catch.Catch(rows=7, columns=4)
    observation_spec = env.observation_spec()
    self.assertIsInstance(observation_spec, specs.BoundedArray)
    self.assertEqual(observation_spec.shape, (7, 4))
    self.assertEqual(observation_spec.dtype, np.float32)
    self.assertEqual(float(observation_spec.minimum), 0.0)
    self.assertEqual(float(observation_spec.maximum), 1.0)
    action_spec = env.action_spec()
    self.assertIsInstance(action_spec, specs.DiscreteArray)
    self.assertEqual(action_spec.num_values, 3)
    self.assertFalse(hasattr(env, 'legal_actions'))
    self.assertFalse(hasattr(catch.make_environment(), 'legal_actions'))


class StepTest(chex.TestCase):

  def _play(self, env, state, actions):
    return stepping.play(self.variant(env.step), state, actions)

  @chex.variants(with_jit=True, without_jit=True)
  def test_paddle_moves_and_clips_to_the_board(self):
    env = catch.Catch(rows=20, columns=5)
    actions = [LEFT, LEFT, LEFT, STAY, RIGHT] + [RIGHT] * 5 + [LEFT]
    _, ts = self._play(env, _state(ball_column=0, paddle_column=2), actions)
    paddles = [int(np.flatnonzero(t.observation[19])[0]) for t in ts]
    self.assertEqual(paddles, [1, 0, 0, 0, 1, 2, 3, 4, 4, 4, 3])
    self.assertEqual([int(t.step_type) for t in ts], [MID] * len(actions))

  @chex.variants(with_jit=True, without_jit=True)
  def test_ball_falls_one_row_per_step(self):
    env = catch.Catch(rows=10, columns=5)
    state, ts = self._play(env, _state(ball_column=3, paddle_column=2),
                           [STAY] * 8)
    for row, timestep in enumerate(ts, start=1):
      self.assertEqual(_ones(timestep.observation), [(row, 3), (9, 2)])
    self.assertEqual(int(state.ball_row), 8)

  @chex.variants(with_jit=True, without_jit=True)
  def test_catch_scores_plus_one_after_nine_steps(self):
    env = catch.Catch()  # 10 rows.
    actions = [LEFT, LEFT] + [STAY] * 7
    _, ts = self._play(env, _state(ball_column=0, paddle_column=2), actions)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 8 + [LAST])
    self.assertLen(ts, env.max_episode_steps)  # Every episode is this long.
    self.assertEqual([float(t.reward) for t in ts], [0.0] * 8 + [1.0])
    self.assertEqual([float(t.discount) for t in ts], [1.0] * 8 + [0.0])
    for t in ts[:-1]:
      self.assertLen(_ones(t.observation), 2)
    # Ball and paddle share the caught cell.
    self.assertEqual(_ones(ts[-1].observation), [(9, 0)])

  @chex.variants(with_jit=True, without_jit=True)
  def test_miss_scores_minus_one(self):
    env = catch.Catch()
    # The paddle ends one column short of the ball.
    actions = [STAY] * 8 + [RIGHT]
    _, ts = self._play(env, _state(ball_column=4, paddle_column=2), actions)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 8 + [LAST])
    self.assertEqual([float(t.reward) for t in ts], [0.0] * 8 + [-1.0])
    self.assertEqual(float(ts[-1].discount), 0.0)
    self.assertEqual(_ones(ts[-1].observation), [(9, 3), (9, 4)])

  @chex.variants(with_jit=True, without_jit=True)
  def test_paddle_moves_before_the_ball_lands(self):
    env = catch.Catch()
    actions = [STAY] * 7 + [RIGHT, RIGHT]  # The last move still counts.
    _, ts = self._play(env, _state(ball_column=4, paddle_column=2), actions)
    self.assertEqual(int(ts[-1].step_type), LAST)
    self.assertEqual(float(ts[-1].reward), 1.0)
    self.assertEqual(_ones(ts[-1].observation), [(9, 4)])

  @chex.variants(with_jit=True, without_jit=True)
  def test_episode_length_is_rows_minus_one(self):
    for rows in (2, 3, 10, 12):
      env = catch.Catch(rows=rows, columns=3)
      _, ts = self._play(env, _state(ball_column=1, paddle_column=1),
                         [STAY] * (rows - 1))
      self.assertEqual([int(t.step_type) for t in ts],
                       [MID] * (rows - 2) + [LAST], rows)
      self.assertEqual(float(ts[-1].reward), 1.0, rows)


class AgreesWithBsuiteTest(parameterized.TestCase):
  """Same ball column and actions give the same games as bsuite's Catch."""

  @parameterized.parameters((10, 5), (5, 3), (7, 8))
  def test_same_games(self, rows, columns):
    reference = bsuite_catch.Catch(rows, columns, seed=rows * columns)
    env = catch.Catch(rows, columns)
    step = jax.jit(env.step)
    rng = np.random.default_rng(rows)
    rewards = set()
    for episode in range(20):
      expected = reference.reset()
      (ball_column,) = np.flatnonzero(expected.observation[0])
      state = _state(ball_column, columns // 2)
      # bsuite resets as `Catch.reset` does (see `ResetTest`).
      self.assertEqual(_ones(expected.observation),
                       [(0, ball_column), (rows - 1, columns // 2)])
      while not expected.last():
        action = int(rng.integers(3))
        expected = reference.step(action)
        state, timestep = step(state, action)
        msg = f'episode {episode}'
        np.testing.assert_array_equal(timestep.observation,
                                      expected.observation, msg)
        self.assertEqual(float(timestep.reward), expected.reward, msg)
        self.assertEqual(float(timestep.discount), expected.discount, msg)
        self.assertEqual(int(timestep.step_type), int(expected.step_type), msg)
      rewards.add(expected.reward)
    self.assertEqual(rewards, {-1.0, 1.0})


class BatchedAgreesWithDmEnvTest(chex.TestCase):
  """`jax.vmap` over the core and the dm_env face play the same games."""

  @chex.variants(with_jit=True, without_jit=True)
  def test_same_trajectories(self):
    seed, num_episodes, rows = 5, 6, 10
    core = catch.Catch()
    env = catch.make_environment(seed=seed)
    keys = jnp.stack([
        jax.random.fold_in(jax.random.PRNGKey(seed), i)
        for i in range(num_episodes)
    ])
    states, first = self.variant(jax.vmap(core.reset))(keys)
    actions = np.random.default_rng(0).integers(
        0, 3, size=(rows - 1, num_episodes)).astype(np.int32)
    step = self.variant(jax.vmap(core.step))
    states, batched = stepping.play_batched(step, states, actions)
    self.assertEqual(set(batched.reward[-1]), {-1.0, 1.0})

    ends = stepping.assert_face_plays_as_batched(env, first, batched, actions)
    self.assertEqual({steps for steps, _ in ends}, {rows - 1})

  def test_dm_env_face_validates_actions(self):
    env = catch.make_environment(seed=0)
    env.reset()
    for action in (3, -1, 1.0, True):
      with self.assertRaisesRegex(ValueError, r'\[0, 2\]'):
        env.step(action)


class CatchDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):

  def make_object_under_test(self):
    return catch.make_environment(seed=0)

  def make_action_sequence(self):
    for i in range(30):  # More than three 9-step episodes.
      yield np.int32(i % 3)


if __name__ == '__main__':
  absltest.main()
