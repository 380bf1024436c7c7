"""Tests for `environments.plane_strike`."""

import itertools

from absl.testing import absltest
from absl.testing import parameterized
import chex
import dm_env
from dm_env import specs
from dm_env import test_utils
import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from environments import functional
from environments import plane_strike
from tests.environments import stepping

FIRST, MID, LAST = functional.FIRST, functional.MID, functional.LAST

# Nose direction of each heading as a (row, column) step; 'up' is row - 1.
_NOSE = {'right': (0, 1), 'up': (-1, 0), 'left': (0, -1), 'down': (1, 0)}
# Allowed core cells, inclusive bounds, written out from the reference rules.
_CORE_BOUNDS = {  # heading -> (row_lo, row_hi, col_lo, col_hi) given B.
    'right': lambda b: (1, b - 2, 2, b - 2),
    'up': lambda b: (1, b - 3, 1, b - 3),
    'left': lambda b: (1, b - 2, 1, b - 3),
    'down': lambda b: (2, b - 2, 1, b - 2),
}


def _reference_cells(heading, row, col):
  """The 8 plane cells built from the nose direction, not the source tables."""
  dr, dc = _NOSE[heading]
  cross = [(row, col), (row + 1, col), (row - 1, col), (row, col + 1),
           (row, col - 1)]
  tail_row, tail_col = row - 2 * dr, col - 2 * dc  # Two cells behind the core.
  pr, pc = dc, dr  # Perpendicular to the nose.
  tail = [(tail_row, tail_col), (tail_row + pr, tail_col + pc),
          (tail_row - pr, tail_col - pc)]
  return cross + tail


def _reference_placements(b):
  """{frozenset of cells: probability}, from the reference rules."""
  result = {}
  for heading in plane_strike.HEADINGS:
    r0, r1, c0, c1 = _CORE_BOUNDS[heading](b)
    cores = list(itertools.product(range(r0, r1 + 1), range(c0, c1 + 1)))
    for row, col in cores:
      cells = _reference_cells(heading, row, col)
      assert all(0 <= r < b and 0 <= c < b for r, c in cells), (heading, row,
                                                                col)
      result[frozenset(cells)] = 1.0 / (4 * len(cores))
  return result


def _cells(mask):
  return frozenset(map(tuple, np.argwhere(np.asarray(mask))))


def _shape_heading(mask):
  """Heading of a cross-plus-tail shape found by geometry, or None."""
  cells = _cells(mask)
  if len(cells) != 8:
    return None
  cores = [(r, c) for r, c in cells
           if {(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)} <= cells]
  if len(cores) != 1:
    return None
  (row, col), = cores
  for heading in plane_strike.HEADINGS:
    if cells == frozenset(_reference_cells(heading, row, col)):
      return heading
  return None


def _state(plane):
  b = plane.shape[0]
  return plane_strike.PlaneStrikeState(
      plane=jnp.asarray(plane, bool),
      board=jnp.zeros((b, b), jnp.float32),
      hits=jnp.zeros((), jnp.int32),
      steps=jnp.zeros((), jnp.int32))


def _plane_actions(plane):
  b = plane.shape[0]
  return [int(r * b + c) for r, c in np.argwhere(np.asarray(plane))]


def _miss_actions(plane):
  return [int(a) for a in np.flatnonzero(~np.asarray(plane).reshape(-1))]


class PlacementsTest(parameterized.TestCase):

  @parameterized.parameters(5, 6, 8, 10)
  def test_matches_independent_construction(self, board_size):
    planes, probabilities = plane_strike.placements(board_size)
    expected = _reference_placements(board_size)
    self.assertEqual(planes.shape, (len(expected), board_size, board_size))
    self.assertEqual(planes.dtype, bool)
    actual = {}
    for plane, probability in zip(planes, probabilities):
      self.assertEqual(int(plane.sum()), plane_strike.PLANE_CELLS)
      actual[_cells(plane)] = probability
    self.assertLen(actual, len(planes), 'placements must be distinct')
    self.assertEqual(set(actual), set(expected))
    for cells, probability in expected.items():
      self.assertAlmostEqual(actual[cells], probability, places=12)

  @parameterized.parameters(5, 6, 8, 10)
  def test_every_placement_is_a_cross_with_a_tail(self, board_size):
    planes, _ = plane_strike.placements(board_size)
    headings = [_shape_heading(plane) for plane in planes]
    self.assertNotIn(None, headings)
    # Grouped by heading in HEADINGS order.
    order = [h for h, _ in itertools.groupby(headings)]
    self.assertEqual(order, list(plane_strike.HEADINGS))

  def test_eight_by_eight_counts_and_probabilities(self):
    planes, probabilities = plane_strike.placements(8)
    self.assertLen(planes, 115)
    self.assertEqual(probabilities.dtype, np.float64)
    np.testing.assert_allclose(probabilities.sum(), 1.0, rtol=1e-12)
    headings = np.array([_shape_heading(plane) for plane in planes])
    for heading, count in (('right', 30), ('up', 25), ('left', 30),
                           ('down', 30)):
      chosen = probabilities[headings == heading]
      self.assertLen(chosen, count, heading)
      np.testing.assert_allclose(chosen, 1.0 / (4 * count), rtol=1e-12)

  @parameterized.parameters(5, 6, 10, 13)
  def test_probabilities_sum_to_one(self, board_size):
    _, probabilities = plane_strike.placements(board_size)
    np.testing.assert_allclose(probabilities.sum(), 1.0, rtol=1e-12)
    # Each heading carries a quarter of the mass.
    planes, _ = plane_strike.placements(board_size)
    headings = np.array([_shape_heading(plane) for plane in planes])
    for heading in plane_strike.HEADINGS:
      np.testing.assert_allclose(
          probabilities[headings == heading].sum(), 0.25, rtol=1e-12)


def _plane_codes(planes):
  """One uint64 per [B, B] bool mask (B*B <= 64)."""
  flat = np.asarray(planes).reshape(len(planes), -1)
  flat = np.pad(flat, ((0, 0), (0, 64 - flat.shape[1])))
  return np.packbits(flat, axis=1).view('>u8')[:, 0]


class ResetDistributionTest(absltest.TestCase):

  def test_chi_square_against_reference_probabilities(self):
    num_samples = 200_000
    env = plane_strike.PlaneStrike()
    keys = jax.random.split(jax.random.PRNGKey(20240607), num_samples)
    sample = jax.jit(jax.vmap(lambda key: env.reset(key)[0].plane))
    sampled = np.asarray(sample(keys))

    planes, probabilities = plane_strike.placements(8)
    codes = _plane_codes(planes)
    order = np.argsort(codes)
    sampled_codes = _plane_codes(sampled)
    position = np.searchsorted(codes[order], sampled_codes)
    position = np.minimum(position, len(codes) - 1)
    matched = codes[order][position] == sampled_codes
    self.assertTrue(matched.all(),
                    f'{(~matched).sum()} sampled planes are not placements')
    index = order[position]
    counts = np.bincount(index, minlength=len(planes))
    self.assertTrue((counts > 0).all(),
                    f'unreached placements: {np.flatnonzero(counts == 0)}')
    result = stats.chisquare(counts, num_samples * probabilities)
    self.assertGreater(result.pvalue, 1e-3, result)
    # The same data must reject a uniform-over-placements sampler.
    uniform = stats.chisquare(counts, np.full(len(planes),
                                              num_samples / len(planes)))
    self.assertLess(uniform.pvalue, 1e-6, uniform)

  def test_reset_time_step(self):
    env = plane_strike.PlaneStrike(board_size=6)
    state, timestep = jax.jit(env.reset)(jax.random.PRNGKey(1))
    chex.assert_trees_all_equal(timestep.observation, jnp.zeros((6, 6)))
    chex.assert_trees_all_equal(state.board, timestep.observation)
    self.assertEqual(int(timestep.step_type), FIRST)
    self.assertEqual(timestep.step_type.dtype, jnp.int8)
    self.assertEqual(float(timestep.reward), 0.0)
    self.assertEqual(float(timestep.discount), 1.0)
    self.assertEqual(int(state.hits), 0)
    self.assertEqual(int(state.steps), 0)
    self.assertIn(_cells(state.plane), _reference_placements(6))

  def test_reset_depends_on_key(self):
    env = plane_strike.PlaneStrike()
    reset = jax.jit(env.reset)
    planes = {_cells(reset(jax.random.PRNGKey(i))[0].plane) for i in range(20)}
    self.assertGreater(len(planes), 10)
    again = reset(jax.random.PRNGKey(3))[0].plane
    chex.assert_trees_all_equal(again, reset(jax.random.PRNGKey(3))[0].plane)


class StepTest(chex.TestCase):

  def setUp(self):
    super().setUp()
    planes, _ = plane_strike.placements(8)
    self.plane = planes[37]
    self.hits = _plane_actions(self.plane)
    self.misses = _miss_actions(self.plane)

  def _play(self, env, actions, plane=None):
    return stepping.play(self.variant(env.step),
                         _state(self.plane if plane is None else plane),
                         actions)

  @chex.variants(with_jit=True, without_jit=True)
  def test_hit_miss_and_repeat(self):
    env = plane_strike.PlaneStrike()
    hit, miss = self.hits[0], self.misses[0]
    state, ts = self._play(env, [hit, miss, hit, miss])
    self.assertEqual([float(t.reward) for t in ts], [1.0, 0.0, -1.0, -1.0])
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 4)
    self.assertEqual([float(t.discount) for t in ts], [1.0] * 4)
    expected = np.zeros(64, np.float32)
    expected[hit], expected[miss] = 1.0, -1.0
    # Repeats leave the board as it was after the first strikes.
    for t in ts[1:]:
      np.testing.assert_array_equal(t.observation.reshape(-1), expected)
    np.testing.assert_array_equal(ts[0].observation.reshape(-1),
                                  np.where(np.arange(64) == hit, 1.0, 0.0))
    self.assertEqual(ts[0].observation.dtype, np.float32)
    self.assertEqual(int(state.hits), 1)
    self.assertEqual(int(state.steps), 4)
    np.testing.assert_array_equal(state.board, ts[-1].observation)
    np.testing.assert_array_equal(state.plane, self.plane)

  @chex.variants(with_jit=True, without_jit=True)
  def test_action_indexes_row_major(self):
    env = plane_strike.PlaneStrike(board_size=6)
    plane = np.zeros((6, 6), bool)
    plane[1, 4] = True  # Action 1 * 6 + 4 = 10.
    _, ts = self._play(env, [10, 4 * 6 + 1], plane=plane)
    self.assertEqual(float(ts[0].reward), 1.0)
    self.assertEqual(ts[0].observation[1, 4], 1.0)
    self.assertEqual(float(ts[1].reward), 0.0)
    self.assertEqual(ts[1].observation[4, 1], -1.0)
    self.assertEqual(int(np.abs(ts[1].observation).sum()), 2)

  @chex.variants(with_jit=True, without_jit=True)
  def test_terminates_after_all_eight_hits(self):
    env = plane_strike.PlaneStrike()
    actions = self.hits[:3] + [self.misses[5], self.hits[2]] + self.hits[3:]
    state, ts = self._play(env, actions)
    self.assertEqual([float(t.reward) for t in ts],
                     [1, 1, 1, 0, -1, 1, 1, 1, 1, 1])
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 9 + [LAST])
    self.assertEqual([float(t.discount) for t in ts], [1.0] * 9 + [0.0])
    self.assertEqual(int(state.hits), 8)
    np.testing.assert_array_equal(ts[-1].observation == 1, self.plane)

  @chex.variants(with_jit=True, without_jit=True)
  def test_repeated_hits_do_not_count_towards_termination(self):
    env = plane_strike.PlaneStrike()
    actions = self.hits[:7] + self.hits[:7]
    state, ts = self._play(env, actions)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 14)
    self.assertEqual(int(state.hits), 7)

  @chex.variants(with_jit=True, without_jit=True)
  def test_truncates_at_max_steps(self):
    env = plane_strike.PlaneStrike(max_steps=3)
    _, ts = self._play(env, self.misses[:3])
    self.assertEqual([int(t.step_type) for t in ts], [MID, MID, LAST])
    self.assertEqual([float(t.discount) for t in ts], [1.0, 1.0, 1.0])
    self.assertEqual([float(t.reward) for t in ts], [0.0, 0.0, 0.0])

  @chex.variants(with_jit=True, without_jit=True)
  def test_default_max_steps_is_twice_the_board(self):
    env = plane_strike.PlaneStrike(board_size=5)
    self.assertEqual(env.max_steps, 50)
    self.assertEqual(env.max_episode_steps, 50)
    plane = np.zeros((5, 5), bool)
    plane[0, :] = True  # A plane never fully hit: only row 0 is struck.
    _, ts = self._play(env, [0] * 50, plane=plane)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 49 + [LAST])
    self.assertEqual(float(ts[-1].discount), 1.0)

  @chex.variants(with_jit=True, without_jit=True)
  def test_termination_wins_over_truncation(self):
    env = plane_strike.PlaneStrike(max_steps=10)
    actions = self.misses[:2] + self.hits
    _, ts = self._play(env, actions)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * 9 + [LAST])
    self.assertEqual(float(ts[-1].discount), 0.0)
    self.assertEqual(float(ts[-1].reward), 1.0)


class BatchedAgreesWithDmEnvTest(chex.TestCase):
  """`jax.vmap(core.step)` and the dm_env face play the same games."""

  _SEED = 11
  _MAX_STEPS = 20
  _NUM_STEPS = 22

  def _actions(self, plane, kind, rng):
    hits, misses = _plane_actions(plane), _miss_actions(plane)
    rng.shuffle(hits)
    rng.shuffle(misses)
    if kind == 0:  # Terminates at step 17: hits with misses and repeats.
      actions = hits[:4] + misses[:3] + [hits[0], misses[0], hits[1]]
      actions += misses[3:6] + hits[4:]
    elif kind == 1:  # Truncated: misses and repeated misses only.
      actions = misses[:12] + misses[:10]
    else:  # The last hit lands exactly on the step limit.
      actions = misses[:6] + [misses[0]] * 6 + hits
    return (actions + [0] * self._NUM_STEPS)[:self._NUM_STEPS]

  @chex.variants(with_jit=True, without_jit=True)
  def test_same_trajectories(self):
    core = plane_strike.PlaneStrike(max_steps=self._MAX_STEPS)
    env = plane_strike.make_environment(
        max_steps=self._MAX_STEPS, seed=self._SEED)
    num_episodes = 6
    keys = jnp.stack([
        jax.random.fold_in(jax.random.PRNGKey(self._SEED), i)
        for i in range(num_episodes)
    ])
    states, first = self.variant(jax.vmap(core.reset))(keys)
    chex.assert_shape(first.observation, (num_episodes, 8, 8))
    np.testing.assert_array_equal(first.step_type, FIRST)
    rng = np.random.default_rng(0)
    planes = np.asarray(states.plane)
    actions = np.array([
        self._actions(planes[i], i % 3, rng) for i in range(num_episodes)
    ], np.int32).T  # [T, N]

    step = self.variant(jax.vmap(core.step))
    states, batched = stepping.play_batched(step, states, actions)

    ends = stepping.assert_face_plays_as_batched(env, first, batched, actions)
    for i, (steps, last) in enumerate(ends):
      kind = i % 3
      self.assertEqual(steps, 17 if kind == 0 else self._MAX_STEPS)
      self.assertEqual(float(last.discount), 0.0 if kind != 1 else 1.0)


class LegalActionsTest(parameterized.TestCase):

  def _board(self, b, rng):
    return rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), size=(b, b))

  @parameterized.parameters((8, np), (6, np), (8, jnp))
  def test_unbatched(self, board_size, xnp):
    env = plane_strike.PlaneStrike(board_size)
    board = self._board(board_size, np.random.default_rng(board_size))
    mask = env.legal_actions(xnp.asarray(board))
    self.assertEqual(mask.shape, (board_size**2,))
    self.assertEqual(mask.dtype, bool)
    expected = board.reshape(-1) == 0
    self.assertTrue(0 < expected.sum() < board_size**2)
    np.testing.assert_array_equal(mask, expected)

  @parameterized.parameters(((3,),), ((2, 4),))
  def test_batched(self, batch_shape):
    env = plane_strike.PlaneStrike()
    rng = np.random.default_rng(1)
    boards = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32),
                        size=batch_shape + (8, 8))
    mask = jax.jit(env.legal_actions)(boards)
    chex.assert_shape(mask, batch_shape + (64,))
    np.testing.assert_array_equal(
        mask, boards.reshape(batch_shape + (64,)) == 0)

  def test_struck_cells_become_illegal(self):
    env = plane_strike.PlaneStrike()
    plane = plane_strike.placements(8)[0][0]
    state = _state(plane)
    struck = [_plane_actions(plane)[0], _miss_actions(plane)[0], 63]
    for action in struck:
      state, timestep = env.step(state, action)
    mask = np.asarray(env.legal_actions(timestep.observation))
    self.assertEqual(set(np.flatnonzero(~mask)), set(struck))


class SampleStateTest(absltest.TestCase):
  """States drawn from what the player knows (posterior sampling)."""

  def test_samples_explain_the_board_in_proportion_to_the_prior(self):
    env = plane_strike.PlaneStrike()
    planes, probabilities = plane_strike.placements(8)
    true_plane = planes[40]
    state = _state(true_plane)
    for action in (_plane_actions(true_plane)[:2] +
                   _miss_actions(true_plane)[:6]):
      state, timestep = env.step(state, action)
    board = np.asarray(timestep.observation)
    keys = jax.random.split(jax.random.PRNGKey(0), 4000)
    sampled = jax.jit(jax.vmap(env.sample_state, (None, 0)))(board, keys)
    drawn = np.asarray(sampled.plane)
    # Every sample: each hit a plane cell, no miss one; the board kept.
    self.assertTrue(np.all(drawn[:, board > 0]))
    self.assertFalse(np.any(drawn[:, board < 0]))
    np.testing.assert_array_equal(np.asarray(sampled.board[0]), board)
    self.assertEqual((int(sampled.hits[0]), int(sampled.steps[0])), (2, 8))
    # Drawn as often as the prior says among the placements that fit.
    fits = (np.all(~(board > 0)[None] | planes, axis=(1, 2)) &
            ~np.any((board < 0)[None] & planes, axis=(1, 2)))
    index = {p.tobytes(): i for i, p in enumerate(planes)}
    counts = np.bincount([index[p.tobytes()] for p in drawn],
                         minlength=len(planes))
    self.assertEqual(set(np.flatnonzero(counts)), set(np.flatnonzero(fits)))
    expected = probabilities[fits] / probabilities[fits].sum() * len(keys)
    self.assertGreater(stats.chisquare(counts[fits], expected).pvalue, 1e-3)

  def test_a_sampled_state_steps_as_the_game(self):
    env = plane_strike.PlaneStrike()
    state, _ = env.reset(jax.random.PRNGKey(2))
    sampled = env.sample_state(state.board, jax.random.PRNGKey(3))
    action = int(np.flatnonzero(np.asarray(sampled.plane).reshape(-1))[0])
    _, timestep = env.step(sampled, action)
    self.assertEqual(float(timestep.reward), 1.0)


class SpecsTest(parameterized.TestCase):

  @parameterized.parameters(5, 8, 10)
  def test_specs(self, board_size):
    env = plane_strike.PlaneStrike(board_size)
    obs = env.observation_spec()
    self.assertIsInstance(obs, specs.BoundedArray)
    self.assertEqual(obs.shape, (board_size, board_size))
    self.assertEqual(obs.dtype, np.float32)
    np.testing.assert_array_equal(obs.minimum, -1.0)
    np.testing.assert_array_equal(obs.maximum, 1.0)
    action = env.action_spec()
    self.assertIsInstance(action, specs.DiscreteArray)
    self.assertEqual(action.num_values, board_size**2)
    self.assertEqual(action.shape, ())
    self.assertTrue(np.issubdtype(action.dtype, np.integer))
    self.assertEqual(env.num_actions, board_size**2)
    self.assertEqual(env.reward_spec().shape, ())
    self.assertEqual(env.reward_spec().dtype, np.float32)
    discount = env.discount_spec()
    self.assertEqual(discount.shape, ())
    np.testing.assert_array_equal([discount.minimum, discount.maximum],
                                  [0.0, 1.0])

  def test_dm_env_face_has_the_core_specs(self):
    env = plane_strike.make_environment(board_size=6, seed=0)
    core = plane_strike.PlaneStrike(6)
    self.assertEqual(env.observation_spec(), core.observation_spec())
    self.assertEqual(env.action_spec(), core.action_spec())
    self.assertEqual(env.reward_spec(), core.reward_spec())
    self.assertEqual(env.discount_spec(), core.discount_spec())
    env.observation_spec().validate(env.reset().observation)


class BadInputTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    # Shared, as each new environment compiles its own reset and step.
    cls.env = plane_strike.make_environment(seed=0)

  @parameterized.named_parameters(
      ('negative', -1),
      ('too_large', 64),
      ('much_too_large', 1000),
      ('float', 2.5),
      ('integral_float', 3.0),
      ('string', '3'),
      ('none', None),
      ('float_array', np.array(3.0)),
      ('float_array_1d', np.array([3.0], np.float32)),
      ('numpy_float', np.float32(3)),
      ('int_matrix', np.zeros((2, 2), np.int32)),
      ('list', [3]),
      ('true', True),
      ('false', False),
      ('numpy_bool', np.bool_(True)),
      ('bool_array', np.array(True)),
      ('out_of_range_array', np.array(64)),
  )
  def test_invalid_action(self, action):
    env = self.env
    env.reset()
    with self.assertRaisesRegex(ValueError, r'\[0, 63\]'):
      env.step(action)
    # The episode is untouched: the next valid strike is the first one.
    timestep = env.step(0)
    self.assertEqual(timestep.step_type, dm_env.StepType.MID)
    self.assertEqual(int(np.abs(timestep.observation).sum()), 1)

  def test_range_follows_board_size(self):
    env = plane_strike.make_environment(board_size=6, seed=0)
    env.reset()
    with self.assertRaisesRegex(ValueError, r'\[0, 35\]'):
      env.step(36)
    env.step(35)

  @parameterized.parameters(4, 0, -8, 5.0, 8.0, '8', None, True)
  def test_invalid_board_size(self, board_size):
    with self.assertRaisesRegex(ValueError, 'board_size'):
      plane_strike.PlaneStrike(board_size)
    with self.assertRaisesRegex(ValueError, 'board_size'):
      plane_strike.make_environment(board_size=board_size)

  def test_numpy_integer_board_size(self):
    env = plane_strike.PlaneStrike(np.int64(6))
    self.assertEqual(env.num_actions, 36)
    self.assertIs(type(env.board_size), int)

  @parameterized.parameters(0, -1, 2.5, '3', True)
  def test_invalid_max_steps(self, max_steps):
    with self.assertRaisesRegex(ValueError, 'max_steps'):
      plane_strike.PlaneStrike(max_steps=max_steps)


class PlaneStrikeDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):

  def make_object_under_test(self):
    return plane_strike.make_environment(seed=0)

  def make_action_sequence(self):
    # Striking every cell in turn ends the episode, then a new one starts.
    yield from range(64)
    yield from (np.int32(5), np.array(6), 7)

  def test_action_sequence_reaches_last(self):
    self.reset_environment()
    step_types = [self.step_environment(a).step_type
                  for a in self.make_action_sequence()]
    self.assertIn(dm_env.StepType.LAST, step_types)
    last = step_types.index(dm_env.StepType.LAST)
    self.assertEqual(step_types[last + 1], dm_env.StepType.FIRST)

  def test_truncation(self):
    env = plane_strike.make_environment(max_steps=3, seed=0)
    env.reset()
    # Striking one cell three times cannot hit all 8 plane cells.
    timesteps = [env.step(0) for _ in range(4)]
    self.assertEqual([t.step_type for t in timesteps],
                     [dm_env.StepType.MID, dm_env.StepType.MID,
                      dm_env.StepType.LAST, dm_env.StepType.FIRST])
    self.assertEqual(float(timesteps[2].discount), 1.0)
    self.assertEqual([float(t.reward) for t in timesteps[1:3]], [-1.0, -1.0])


if __name__ == '__main__':
  absltest.main()
