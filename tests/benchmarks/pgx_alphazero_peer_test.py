"""Tests for benchmarks/pgx_alphazero_peer.py (pgx's example faked: it
runs in the peers' environment, which tests must not need)."""

import inspect
import os
import stat
import types

from absl.testing import absltest
import jax
import jax.numpy as jnp
import mctx
import numpy as np

from benchmarks import pgx_alphazero_program
from benchmarks import peer_runs
from benchmarks import peers
from benchmarks import pgx_alphazero_peer
from networks import registry as network_registry
from tests.benchmarks import peers_test


class AlphaZeroConnectFourTest(absltest.TestCase):

  def _report(self, iterations):
    settings = {}
    run, calls = peers_test._fake_runner(
        {'ours': lambda seed: {'steps_per_second': 3000.0 + 1000 * seed},
         'pgx_alphazero': lambda seed: {'steps_per_second': 2000.0}})

    def recording(root, name, measurement, seed):
      settings[measurement.settings['program']] = measurement.settings
      return run(root, name, measurement, seed)

    report = pgx_alphazero_peer.alphazero_connect_four(
        'root', 2, recording, iterations)
    return report, settings, calls

  def test_both_sides_train_the_same_setting_and_compare_per_round(self):
    report, settings, calls = self._report(300)
    self.assertEqual([(c[1], c[2]) for c in calls],
                     [('ours', 0), ('pgx_alphazero', 0),
                      ('ours', 1), ('pgx_alphazero', 1)])
    self.assertEqual([r['speed_over_pgx'] for r in report['runs']['ours']],
                     [1.5, 2.0])
    ours, theirs = settings['ours'], settings['pgx_alphazero']
    agent, cli = ours['agent_config'], theirs['config']
    self.assertEqual((ours['agent'], ours['env'], ours['network']),
                     ('alphazero', f'pgx:{cli["env_id"]}',
                      'mlp_actor_critic'))
    self.assertEqual(
        {key: agent[key] for key in (
            'batch_size', 'unroll_length', 'num_simulations',
            'learning_rate')},
        {'batch_size': cli['selfplay_batch_size'],
         'unroll_length': cli['max_num_steps'],
         'num_simulations': cli['num_simulations'],
         'learning_rate': cli['learning_rate']})
    # One pass over each batch in pgx's minibatches.
    positions = cli['selfplay_batch_size'] * cli['max_num_steps']
    self.assertEqual(agent['num_epochs'], 1)
    self.assertEqual(positions // agent['num_minibatches'],
                     cli['training_batch_size'])
    self.assertEqual((agent['search'], agent['random_moves']),
                     ('gumbel', 0.0))
    # pgx trains as many iterations of as many positions as ours.
    self.assertEqual(ours['num_steps'], theirs['iterations'] * positions)
    self.assertEqual(ours['hidden_sizes'], theirs['hidden_sizes'])
    self.assertEqual(theirs['hidden_sizes'], [256, 256])
    self.assertEqual(
        (ours['num_episodes'], ours['eval_every_steps'],
         ours['export_tflite']), (None, 0, False))
    # The setting is the brief's: 64 games x 16 moves, 32 simulations,
    # minibatches of 256, lr 1e-3; pgx's network keys are not set.
    self.assertEqual(cli, {'env_id': 'connect_four', 'num_simulations': 32,
                           'selfplay_batch_size': 64, 'max_num_steps': 16,
                           'training_batch_size': 256,
                           'learning_rate': 1e-3})
    # The result says what pgx's side ran instead of its AZNet.
    self.assertIn('AZNet', report['network_substitution'])
    self.assertIn('256-256', report['network_substitution'])
    self.assertEqual(report['settings']['pgx'], theirs)

  def test_our_search_is_the_mctx_defaults_pgx_searches_with(self):
    agent = pgx_alphazero_peer.our_settings(1)['agent_config']
    defaults = {
        **{name: parameter.default for name, parameter in inspect.signature(
            mctx.gumbel_muzero_policy).parameters.items()},
        **{name: parameter.default for name, parameter in inspect.signature(
            mctx.qtransform_completed_by_mix_value).parameters.items()}}
    for name, value in pgx_alphazero_peer.MCTX_DEFAULTS.items():
      self.assertEqual(agent[name], defaults[name], name)

  def test_a_minibatch_must_divide_an_iteration(self):
    with self.assertRaisesRegex(ValueError, '100 positions'):
      pgx_alphazero_peer.our_settings(
          1, dict(pgx_alphazero_peer.SETTING, minibatch=100))

  def test_pgx_side_trains_our_network(self):
    import haiku as hk  # pylint: disable=g-import-not-at-top
    sizes = (256, 256)
    theirs = hk.without_apply_rng(hk.transform_with_state(
        pgx_alphazero_program.mlp_actor_critic_forward(7, sizes)))
    ours = network_registry.get('mlp_actor_critic').make(
        types.SimpleNamespace(num_actions=7), sizes)
    boards = jnp.asarray(np.random.default_rng(0).integers(
        0, 2, (3, 6, 7, 2)).astype(bool))
    key = jax.random.PRNGKey(1)
    params, state = theirs.init(key, boards)
    self.assertEqual(state, {})
    mine = ours.init(key, boards)
    self.assertEqual(jax.tree.structure(params), jax.tree.structure(mine))
    for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(mine)):
      np.testing.assert_array_equal(a, b)
    (logits, values), _ = theirs.apply(params, state, boards, is_eval=True)
    my_logits, my_values = ours.apply(mine, boards)
    np.testing.assert_allclose(logits, my_logits, rtol=1e-6)
    np.testing.assert_allclose(values, my_values, rtol=1e-6)

  def test_the_peer_program_gets_the_checkout_and_the_sizes(self):
    runner = peer_runs.Peers('python', None, pgx_source='/pgx')
    seen = []
    runner.peer = lambda program, seed, **options: seen.append(
        (program, seed, options)) or {}
    _, settings, _ = self._report(5)
    runner.run('root', 'pgx_seed0', pgx_alphazero_peer.scaling.Measurement(
        settings['pgx_alphazero']), 0)
    self.assertEqual(seen, [('pgx_alphazero', 0, {
        'source': '/pgx', 'settings': settings['pgx_alphazero']['config'],
        'iterations': 5, 'hidden_sizes': '256,256'})])

  def test_a_missing_checkout_is_refused_naming_the_flag(self):
    python = os.path.join(self.create_tempdir().full_path, 'python')
    with open(python, 'w') as f:
      f.write('#!/bin/sh\n')
    os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
    with self.assertRaisesRegex(peers.PeerSetupError,
                                '--pgx_source.*sotetsuk/pgx'):
      peers.check_setup(python, None, ['peers_alphazero_connect_four'],
                        None, '/nowhere')


if __name__ == '__main__':
  absltest.main()
