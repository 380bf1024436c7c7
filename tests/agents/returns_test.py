"""Tests for agents/returns.py: returns against hand and loop values."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from agents import a2c
from agents import agent as agent_lib
from agents import lanes
from agents import ppo
from agents import registry as agent_registry
from agents import returns
from agents import search


def _trajectory(rewards, discounts, last) -> agent_lib.Trajectory:
  """A `[T, B]` trajectory of the given rewards, discounts and ends."""
  rewards = np.asarray(rewards, np.float32)
  t, b = rewards.shape
  return agent_lib.Trajectory(
      observations=np.zeros((t, b, 1), np.float32),
      actions=np.zeros((t, b), np.int32),
      rewards=rewards,
      discounts=np.asarray(discounts, np.float32),
      last=np.asarray(last, bool),
      mask=np.ones((t, b), np.float32),
      final_observations=np.zeros((b, 1), np.float32),
      extras={})


def _loop_returns(rewards, discount):
  """G_t = r_t + γ G_{t+1}, the straightforward Python loop."""
  result = [0.0] * len(rewards)
  running = 0.0
  for t in reversed(range(len(rewards))):
    running = float(rewards[t]) + discount * running
    result[t] = running
  return np.asarray(result)


class TimeLimitsTest(absltest.TestCase):
  # One sequence: a time limit cuts its episode at t = 1 (discount 1), the
  # next episode terminates at t = 2 (discount 0).

  def _cut(self, with_next=True):
    trajectory = _trajectory([[1.0], [2.0], [3.0]], [[1], [1], [0]],
                             [[False], [True], [True]])
    next_observations = np.array([[[10.0]], [[11.0]], [[12.0]]], np.float32)
    return trajectory._replace(
        next_observations=next_observations if with_next else None)

  def test_time_limits_are_ends_with_a_discount(self):
    np.testing.assert_array_equal(returns.time_limits(self._cut())[:, 0],
                                  [False, True, False])

  def test_the_value_cut_off_is_added_where_the_limit_fell(self):
    next_values = np.array([[5.0], [7.0], [9.0]], np.float32)
    np.testing.assert_allclose(
        returns.with_time_limit_values(
            self._cut().rewards, self._cut(), next_values, 0.5)[:, 0],
        [1.0, 2.0 + 0.5 * 7.0, 3.0])
    np.testing.assert_array_equal(
        returns.with_time_limit_values(self._cut(False).rewards,
                                       self._cut(False), next_values, 0.5),
        self._cut().rewards)

  def test_one_step_targets_stop_at_terminations_only(self):
    np.testing.assert_array_equal(
        returns.bootstrap_discounts(self._cut())[:, 0], [1, 1, 0])
    np.testing.assert_array_equal(
        returns.next_observations(self._cut())[:, 0, 0], [10, 11, 12])
    # Without the loop's next observations: every end stops them.
    np.testing.assert_array_equal(
        returns.bootstrap_discounts(self._cut(False))[:, 0], [1, 0, 0])


class NextValuesTest(absltest.TestCase):
  # v(o) = 2·o; two sequences of three steps, next observations 10 + t.

  def _trajectory(self, last):
    trajectory = _trajectory(np.zeros((3, 2)), np.ones((3, 2)), last)
    next_observations = np.broadcast_to(
        np.float32([10, 11, 12])[:, None, None], (3, 2, 1))
    return trajectory._replace(next_observations=next_observations)

  def _values(self, trajectory):
    return np.asarray(returns.next_values(lambda o: 2.0 * o[:, 0],
                                          trajectory))

  def test_only_the_bootstrap_row_without_an_earlier_time_limit(self):
    # A time limit on the last row needs only that row.
    values = self._values(self._trajectory(
        [[False, False], [False, False], [False, True]]))
    np.testing.assert_array_equal(values, [[0, 0], [0, 0], [24, 24]])

  def test_every_row_once_a_time_limit_falls_before_the_last(self):
    values = self._values(self._trajectory(
        [[False, True], [False, False], [False, False]]))
    np.testing.assert_array_equal(values, [[20, 20], [22, 22], [24, 24]])
    # A termination there (discount 0) is no time limit.
    terminated = self._trajectory(
        [[False, True], [False, False], [False, False]])
    terminated = terminated._replace(
        discounts=np.float32([[1, 0], [1, 1], [1, 1]]))
    np.testing.assert_array_equal(self._values(terminated),
                                  [[0, 0], [0, 0], [24, 24]])

  def test_lanes_agree_on_computing_every_row(self):
    lanes_of = lambda *ts: jax.tree.map(lambda *x: np.stack(x), *ts)
    both = lanes_of(
        self._trajectory([[False, True], [False, False], [False, False]]),
        self._trajectory([[False, False], [False, False], [False, False]]))
    values = jax.vmap(self._values_traced, axis_name=lanes.LANES)(both)
    np.testing.assert_array_equal(values[1], [[20, 20], [22, 22], [24, 24]])

  def _values_traced(self, trajectory):
    return returns.next_values(lambda o: 2.0 * o[:, 0], trajectory)


class NextValuesConsumersTest(parameterized.TestCase):
  """The targets every agent builds from `next_values` are the same from
  its rows computed lazily as from every row valued."""

  @parameterized.named_parameters(
      ('no_time_limit', [[False, True, False], [False, False, False],
                         [False, False, False], [True, False, False]]),
      ('a_time_limit_before_the_last_row',
       [[False, False, False], [True, False, False],
        [False, False, False], [False, False, True]]))
  def test_targets_match(self, last):
    t, b = 4, 3
    rewards = jax.random.normal(jax.random.PRNGKey(0), (t, b))
    trajectory = _trajectory(rewards, np.ones((t, b)), last)
    # Episode ends at row 0, column 1 (a termination), the rest as given.
    trajectory = trajectory._replace(
        discounts=np.where(np.asarray(last) & (np.arange(b) == 1), 0.0,
                           1.0).astype(np.float32),
        next_observations=jax.random.normal(jax.random.PRNGKey(1),
                                            (t, b, 1)),
        extras={'value': jax.random.normal(jax.random.PRNGKey(2), (t, b)),
                'search_value': jax.random.normal(jax.random.PRNGKey(3),
                                                  (t, b))})
    value_fn = lambda o: jnp.tanh(3.0 * o[:, 0])
    every = value_fn(trajectory.next_observations.reshape(t * b, 1)
                    ).reshape(t, b)
    lazy = returns.next_values(value_fn, trajectory)
    ppo_config = agent_registry.make_config('ppo')
    a2c_config = agent_registry.make_config('a2c')
    logits = jnp.zeros((t * b, 2))
    targets = {
        'ppo': lambda v: ppo.advantages(trajectory, v, ppo_config),
        'a2c': lambda v: a2c.loss(logits, trajectory.extras['value'], v,
                                  trajectory, a2c_config)[0],
        'search_returns': lambda v: search.value_targets(trajectory, v, 0.9,
                                                         None),
        'search_n_step': lambda v: search.value_targets(trajectory, v, 0.9,
                                                        2)}
    for name, target in targets.items():
      np.testing.assert_allclose(target(lazy), target(every), rtol=1e-6,
                                 atol=1e-6, err_msg=name)


class ContinuationDiscountsTest(absltest.TestCase):

  def test_zero_at_episode_ends_and_terminations(self):
    trajectory = _trajectory(
        rewards=np.zeros((3, 2)),
        discounts=[[1.0, 1.0], [0.0, 1.0], [1.0, 0.5]],
        last=[[False, True], [True, False], [False, False]])
    np.testing.assert_array_equal(
        np.asarray(returns.continuation_discounts(trajectory, 0.9)),
        np.float32([[0.9, 0.0], [0.0, 0.9], [0.9, 0.9 * 0.5]]))


class BootstrapValuesTest(absltest.TestCase):

  def test_bootstrapped_values_shift_in_the_final_value(self):
    values = np.array([[1.0, 10.0], [2.0, 20.0]], np.float32)
    final = np.array([3.0, 30.0], np.float32)
    np.testing.assert_array_equal(
        np.asarray(returns.bootstrapped_values(values, final)),
        [[2.0, 20.0], [3.0, 30.0]])

  def test_values_with_final_appends_it(self):
    values = np.array([[1.0, 10.0], [2.0, 20.0]], np.float32)
    final = np.array([3.0, 30.0], np.float32)
    np.testing.assert_array_equal(
        np.asarray(returns.values_with_final(values, final)),
        [[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])


class DiscountedReturnsTest(absltest.TestCase):

  def test_hand_computed(self):
    trajectory = _trajectory(rewards=[[1.0], [0.0], [1.0]],
                             discounts=np.ones((3, 1)),
                             last=[[False], [False], [True]])
    # G2 = 1; G1 = 0 + 0.5 * 1; G0 = 1 + 0.5 * 0.5.
    np.testing.assert_allclose(
        np.asarray(returns.discounted_returns(trajectory, 0.5))[:, 0],
        [1.25, 0.5, 1.0])

  def test_returns_do_not_cross_episode_ends(self):
    trajectory = _trajectory(
        rewards=[[1.0], [1.0], [1.0]],
        discounts=np.ones((3, 1)),  # Truncation keeps discount 1.
        last=[[True], [False], [True]])
    np.testing.assert_allclose(
        np.asarray(returns.discounted_returns(trajectory, 0.5))[:, 0],
        [1.0, 1.5, 1.0])

  def test_sequences_are_independent_and_unbootstrapped(self):
    # Column 1 never ends: its return stops at the last step (no value).
    trajectory = _trajectory(rewards=[[1.0, 2.0], [3.0, 4.0]],
                             discounts=np.ones((2, 2)),
                             last=[[False, False], [True, False]])
    np.testing.assert_allclose(
        np.asarray(returns.discounted_returns(trajectory, 0.5)),
        [[1.0 + 0.5 * 3.0, 2.0 + 0.5 * 4.0], [3.0, 4.0]])

  def test_jits(self):
    trajectory = _trajectory(rewards=[[1.0], [0.0], [1.0]],
                             discounts=np.ones((3, 1)),
                             last=[[False], [False], [True]])
    np.testing.assert_allclose(
        np.asarray(jax.jit(returns.discounted_returns, static_argnums=1)(
            trajectory, 0.5))[:, 0], [1.25, 0.5, 1.0])


class EpisodeReturnsTest(parameterized.TestCase):

  def test_hand_computed(self):
    result = returns.episode_returns(np.array([1.0, 0.0, 1.0]), 0.5)
    self.assertIsInstance(result, np.ndarray)
    self.assertEqual(result.dtype, np.float32)
    np.testing.assert_array_equal(result, np.float32([1.25, 0.5, 1.0]))

  @parameterized.parameters(
      (1, 0.5), (7, 0.5), (13, 0.99), (64, 0.9), (30, 1.0), (5, 0.0))
  def test_matches_the_python_loop(self, length, discount):
    rng = np.random.default_rng(length)
    rewards = rng.normal(size=length).astype(np.float32)
    result = returns.episode_returns(rewards, discount)
    self.assertEqual(result.shape, (length,))
    self.assertEqual(result.dtype, np.float32)
    # Within float32 rounding of the float64 loop...
    np.testing.assert_allclose(result, _loop_returns(rewards, discount),
                               rtol=1e-5, atol=1e-6)
    # ...and of a float32 loop, step by step as NumPy code would run it.
    # XLA may fuse r + γ·G into one FMA, which rounds once instead of twice:
    # then a G_t near 0 differs by about one ulp of the O(1) terms.
    loop32 = np.zeros(length, np.float32)
    running = np.float32(0.0)
    for t in reversed(range(length)):
      running = rewards[t] + np.float32(discount) * running
      loop32[t] = running
    np.testing.assert_allclose(result, loop32, rtol=1e-6, atol=1e-6)

  def test_discount_one_and_zero(self):
    rewards = [1.0, -2.0, 3.0]
    np.testing.assert_array_equal(returns.episode_returns(rewards, 1.0),
                                  [2.0, 1.0, 3.0])
    np.testing.assert_array_equal(returns.episode_returns(rewards, 0.0),
                                  rewards)

  def test_integer_and_empty_rewards(self):
    np.testing.assert_array_equal(
        returns.episode_returns(np.array([0, 0, 1]), 0.5), [0.25, 0.5, 1.0])
    empty = returns.episode_returns(np.zeros(0), 0.5)
    self.assertEqual((empty.shape, empty.dtype), ((0,), np.float32))

  def test_one_episode_only(self):
    with self.assertRaises(AssertionError):
      returns.episode_returns(np.zeros((2, 3)), 0.5)


if __name__ == '__main__':
  absltest.main()
