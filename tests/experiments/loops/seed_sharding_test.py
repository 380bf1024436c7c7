"""Tests for experiments/loops/seed_sharding.py (one device here; see
driver/run_compiled_loop_test.py for a run on two)."""

from unittest import mock

from absl.testing import absltest
import jax
import numpy as np

from experiments.loops import seed_sharding


class SeedMeshTest(absltest.TestCase):

  def test_uses_the_most_devices_that_split_the_seeds(self):
    devices = [mock.Mock(name=f'device{i}') for i in range(4)]
    with mock.patch.object(jax.sharding, 'Mesh',
                           lambda d, names: (len(d), names)):
      self.assertEqual(seed_sharding.seed_mesh(8, devices), (4, ('seeds',)))
      self.assertEqual(seed_sharding.seed_mesh(6, devices), (3, ('seeds',)))
      self.assertEqual(seed_sharding.seed_mesh(1, devices), (1, ('seeds',)))

  def test_map_seeds_runs_each_seed_and_puts_round_trip(self):
    mesh = seed_sharding.seed_mesh(2)
    values = seed_sharding.put(np.arange(2, dtype=np.float32), mesh)
    doubled = jax.jit(seed_sharding.map_seeds(lambda x: 2 * x, mesh))(values)
    np.testing.assert_array_equal(seed_sharding.to_host(doubled), [0.0, 2.0])


class InitializeDistributedTest(absltest.TestCase):

  def test_single_process_is_a_no_op(self):
    with mock.patch.object(jax.distributed, 'initialize') as initialize:
      seed_sharding.initialize_distributed(None, None, None)
    initialize.assert_not_called()

  def test_coordinator_gets_all_three_flags(self):
    with mock.patch.object(jax.distributed, 'initialize') as initialize:
      seed_sharding.initialize_distributed('10.0.0.1:1234', 2, 1)
    initialize.assert_called_once_with(coordinator_address='10.0.0.1:1234',
                                       num_processes=2, process_id=1)

  def test_incomplete_or_bad_flags_are_named(self):
    with self.assertRaisesRegex(ValueError, '--coordinator_address'):
      seed_sharding.initialize_distributed(None, 2, 0)
    with self.assertRaisesRegex(ValueError, '--num_processes'):
      seed_sharding.initialize_distributed('host:1', None, 0)
    with self.assertRaisesRegex(ValueError, r'--process_id must be in \[0, 2'):
      seed_sharding.initialize_distributed('host:1', 2, 2)


if __name__ == '__main__':
  absltest.main()
