"""Tests for experiments/loops/device_mesh.py (one device here; see
driver/run_compiled_loop_test.py for a run on two)."""

from unittest import mock

from absl.testing import absltest
import jax
import numpy as np

from experiments.loops import device_mesh


class SeedMeshTest(absltest.TestCase):

  def test_uses_the_most_rows_that_split_the_seeds(self):
    devices = [mock.Mock(name=f'device{i}') for i in range(4)]
    with mock.patch.object(jax.sharding, 'Mesh',
                           lambda d, names: (d.shape, names)):
      names = ('seeds', 'data')
      self.assertEqual(device_mesh.device_mesh(8, 1, devices), ((4, 1), names))
      self.assertEqual(device_mesh.device_mesh(6, 1, devices), ((3, 1), names))
      self.assertEqual(device_mesh.device_mesh(1, 1, devices), ((1, 1), names))
      self.assertEqual(device_mesh.device_mesh(2, 2, devices), ((2, 2), names))
      self.assertEqual(device_mesh.device_mesh(3, 2, devices), ((1, 2), names))
      self.assertEqual(device_mesh.device_mesh(1, 4, devices), ((1, 4), names))
      with self.assertRaisesRegex(ValueError, 'only 4 device'):
        device_mesh.device_mesh(1, 8, devices)

  def test_map_seeds_runs_each_seed_and_puts_round_trip(self):
    mesh = device_mesh.device_mesh(2)
    values = device_mesh.put(np.arange(2, dtype=np.float32), mesh)
    doubled = jax.jit(device_mesh.map_seeds(lambda x: 2 * x, mesh))(values)
    np.testing.assert_array_equal(device_mesh.to_host(doubled), [0.0, 2.0])


class CheckDevicesPerSeedTest(absltest.TestCase):

  def test_one_device_is_always_fine(self):
    device_mesh.check_devices_per_seed(1, 3, None, 1)

  def test_valid_splits_pass(self):
    device_mesh.check_devices_per_seed(4, 16, {'minibatch': 8}, 4)

  def test_bad_counts_name_the_problem_and_the_valid_choices(self):
    with self.assertRaisesRegex(
        ValueError, r'num_envs \(environments per seed\) = 6.*Valid here: '
        r'1, 2, 3\.$'):
      device_mesh.check_devices_per_seed(4, 6, {}, 4)
    with self.assertRaisesRegex(ValueError,
                                r'minibatch = 6.*Valid here: 1, 2\.$'):
      device_mesh.check_devices_per_seed(4, 8, {'minibatch': 6}, 4)
    with self.assertRaisesRegex(ValueError, r'only 2 device\(s\).*Valid '
                                r'here: 1, 2\.$'):
      device_mesh.check_devices_per_seed(4, 8, {}, 2)

  def test_agents_without_batch_splits_are_refused(self):
    with self.assertRaisesRegex(ValueError, 'MyAgent does not reduce.*use 1'):
      device_mesh.check_devices_per_seed(2, 8, None, 4, agent='MyAgent')


class InitializeDistributedTest(absltest.TestCase):

  def test_single_process_is_a_no_op(self):
    with mock.patch.object(jax.distributed, 'initialize') as initialize:
      device_mesh.initialize_distributed(None, None, None)
    initialize.assert_not_called()

  def test_coordinator_gets_all_three_flags(self):
    with mock.patch.object(jax.distributed, 'initialize') as initialize:
      device_mesh.initialize_distributed('10.0.0.1:1234', 2, 1)
    initialize.assert_called_once_with(coordinator_address='10.0.0.1:1234',
                                       num_processes=2, process_id=1)

  def test_incomplete_or_bad_flags_are_named(self):
    with self.assertRaisesRegex(ValueError, '--coordinator_address'):
      device_mesh.initialize_distributed(None, 2, 0)
    with self.assertRaisesRegex(ValueError, '--num_processes'):
      device_mesh.initialize_distributed('host:1', None, 0)
    with self.assertRaisesRegex(ValueError, r'--process_id must be in \[0, 2'):
      device_mesh.initialize_distributed('host:1', 2, 2)


if __name__ == '__main__':
  absltest.main()
