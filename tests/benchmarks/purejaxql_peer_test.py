"""Tests for benchmarks/purejaxql_peer.py (purejaxql faked: it runs
in the peers' environment, which tests must not need)."""

import os
import stat

from absl.testing import absltest

from benchmarks import peers
from benchmarks import purejaxql_peer
from experiments.presets import registry as preset_registry
from tests.benchmarks import peers_test


class PQNMinAtarTest(absltest.TestCase):

  def test_both_sides_train_the_same_setting_and_compare_per_round(self):
    settings = {}

    def figures(program):
      def run(seed):
        return {'steps_per_second': 400.0 + 100 * seed if program == 'ours'
                else 200.0}
      return run

    run, calls = peers_test._fake_runner(
        {'ours': figures('ours'),
         'purejaxql_pqn_minatar': figures('purejaxql')})

    def recording(root, name, measurement, seed):
      settings[measurement.settings['program']] = measurement.settings
      return run(root, name, measurement, seed)

    report = purejaxql_peer.pqn_breakout_minatar('root', 2, recording,
                                                       500_000)
    self.assertEqual([c[2] for c in calls], [0, 0, 1, 1])
    self.assertEqual([r['speed_over_purejaxql']
                      for r in report['runs']['ours']], [2.0, 2.5])
    ours, theirs = settings['ours'], settings['purejaxql_pqn_minatar']
    self.assertEqual((ours['num_steps'], ours['eval_policy'],
                      ours['eval_episodes'],
                      ours['agent_config']['epsilon_decay_steps']),
                     (500_000, 'greedy', 128, 50_000))
    config = theirs['config']
    self.assertEqual((config['TOTAL_TIMESTEPS'],
                      config['TOTAL_TIMESTEPS_DECAY'], config['EPS_DECAY'],
                      config['ENV_NAME']),
                     (500_000, 500_000, 0.1, 'Breakout-MinAtar'))
    # Our preset is purejaxql's setting, key by key.
    preset = preset_registry.get(ours['preset'])
    self.assertEqual(preset.env, 'gymnax:Breakout-MinAtar')
    self.assertEqual(
        {key: preset.config[key] for key in (
            'batch_size', 'unroll_length', 'num_epochs', 'num_minibatches',
            'learning_rate', 'td_lambda')},
        {'batch_size': config['NUM_ENVS'],
         'unroll_length': config['NUM_STEPS'],
         'num_epochs': config['NUM_EPOCHS'],
         'num_minibatches': config['NUM_MINIBATCHES'],
         'learning_rate': config['LR'], 'td_lambda': config['LAMBDA']})
    self.assertTrue(preset.config['anneal_learning_rate'])
    self.assertEqual(preset.network, 'conv_layer_norm_q_values')

  def test_recurrent_memory_chain_is_purejaxqls_setting(self):
    settings = {}
    run, calls = peers_test._fake_runner(
        {'ours': lambda seed: {'steps_per_second': 300.0},
         'purejaxql_pqn_rnn': lambda seed: {'steps_per_second': 100.0}})

    def recording(root, name, measurement, seed):
      settings[measurement.settings['program']] = measurement.settings
      return run(root, name, measurement, seed)

    report = purejaxql_peer.pqn_rnn_memory_chain('root', 1, recording)
    self.assertEqual(report['runs']['ours'][0]['speed_over_purejaxql'], 3.0)
    ours, theirs = settings['ours'], settings['purejaxql_pqn_rnn']
    config = theirs['config']
    self.assertEqual(ours['env_kwargs'], config['ENV_KWARGS'])
    # Its 24 updates: the budget it rounds 100k steps down to.
    self.assertEqual(ours['num_steps'], (
        config['TOTAL_TIMESTEPS'] // (config['NUM_ENVS'] *
                                      config['NUM_STEPS']) *
        config['NUM_ENVS'] * config['NUM_STEPS']))
    preset = preset_registry.get(ours['preset'])
    self.assertEqual((preset.env, preset.network, preset.hidden_sizes),
                     ('gymnax:MemoryChain-bsuite', 'gru_layer_norm_q_values',
                      (config['HIDDEN_SIZE'],) * (config['NUM_LAYERS'] + 1)))
    self.assertEqual(
        {key: preset.config[key] for key in (
            'batch_size', 'unroll_length', 'num_epochs', 'num_minibatches',
            'learning_rate', 'td_lambda', 'epsilon_end')},
        {'batch_size': config['NUM_ENVS'],
         'unroll_length': config['NUM_STEPS'],
         'num_epochs': config['NUM_EPOCHS'],
         'num_minibatches': config['NUM_MINIBATCHES'],
         'learning_rate': config['LR'], 'td_lambda': config['LAMBDA'],
         'epsilon_end': config['EPS_FINISH']})
    # ε reaches its end after a tenth of its 24 updates, as purejaxql's.
    self.assertEqual(preset.config['epsilon_decay_steps'],
                     int(config['EPS_DECAY'] * 24 * 32 * 128))

  def test_a_missing_checkout_is_refused_naming_the_flag(self):
    python = os.path.join(self.create_tempdir().full_path, 'python')
    with open(python, 'w') as f:
      f.write('#!/bin/sh\n')
    os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
    with self.assertRaisesRegex(peers.PeerSetupError,
                                '--purejaxql_source.*mttga/purejaxql'):
      peers.check_setup(python, None,
                                  ['peers_pqn_breakout_minatar'], '/nowhere')


if __name__ == '__main__':
  absltest.main()
