"""Tests for experiments/export/trainable.py."""

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import rlax

from agents import action_masking
from agents import registry as agent_registry
from experiments.export import trainable as trainable_export
from tests.experiments.export import trained_workdir


def _batch(num_boards=6, seed=0):
  return trained_workdir.training_batch(num_boards, seed)


def test_loss_is_the_rlax_policy_gradient_loss(trainable_model):
  m = trainable_model
  boards, actions, returns = _batch()
  logits = action_masking.mask_for(m.environment_spec, boards,
                                   _logits(m, boards))
  expected = rlax.policy_gradient_loss(logits, actions, returns,
                                       jnp.ones_like(returns))
  loss = trainable_export.policy_gradient_loss(m.agent, m.params, boards,
                                               actions, returns)
  np.testing.assert_allclose(loss, expected, rtol=1e-5)


def _logits(m, boards):
  """Log-probabilities stand in for logits (softmax is shift-invariant)."""
  probabilities = m.agent.deployable_policy(m.params, boards)
  return jnp.log(jnp.maximum(probabilities, 1e-30))


def test_model_has_every_signature_with_its_contract(trainable_model):
  from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top
  model = interpreter.Interpreter(model_path=trainable_model.path)
  signatures = model.get_signature_list()
  assert set(signatures) == set(trainable_export.SIGNATURES)
  assert signatures['infer'] == {'inputs': ['board'],
                                 'outputs': ['probabilities']}
  assert sorted(signatures['train']['inputs']) == ['actions', 'boards',
                                                   'returns']
  assert signatures['train']['outputs'] == ['loss']
  infer = model.get_signature_runner('infer')
  (board,) = infer.get_input_details().values()
  (probabilities,) = infer.get_output_details().values()
  assert list(board['shape']) == [1, 8, 8] and board['dtype'] == np.float32
  assert list(probabilities['shape']) == [1, 64]
  assert probabilities['dtype'] == np.float32
  names = trainable_export.weight_names(
      trainable_model.params,
      trainable_model.optimizer.init(trainable_model.params))
  assert sorted(signatures['get_weights']['outputs']) == sorted(names)


def test_train_takes_any_number_of_boards(trainable_model):
  policy = trainable_export.TrainableTFLitePolicy(trainable_model.path)
  for size in (1, 7, 130):
    assert np.isfinite(policy.train(*_batch(size)))


def test_illegal_cells_stay_at_zero_after_training(trainable_model):
  policy = trainable_export.TrainableTFLitePolicy(trainable_model.path)
  for _ in range(3):
    policy.train(*_batch(32))
  board = _batch(1, seed=5)[0][0]
  probabilities = policy(board)
  assert np.all(probabilities[board.reshape(-1) != 0] == 0.0)
  assert probabilities.sum() == pytest.approx(1.0, abs=1e-5)


def test_save_and_restore_are_the_only_select_tf_ops(trainable_model):
  """This LiteRT build has no Flex delegate: every other signature runs."""
  policy = trainable_export.TrainableTFLitePolicy(trainable_model.path)
  policy.train(*_batch())
  policy.set_weights(policy.get_weights())
  with pytest.raises(RuntimeError, match='FlexSave'):
    policy.save(os.path.join(trainable_model.path + '.ckpt'))


def test_save_and_restore_round_trip_in_tensorflow(trainable_model, tmp_path):
  """The Save/Restore graph that is converted, run by TensorFlow."""
  m = trainable_model
  opt_state = m.optimizer.init(m.params)
  step = trainable_export.make_train_step(m.agent, m.optimizer)
  trained = trainable_export.make_module(m.agent, m.params, opt_state, step,
                                         m.environment_spec)
  trained.train(*_batch(16))
  checkpoint = str(tmp_path / 'weights.ckpt')
  trained.save(checkpoint)
  fresh = trainable_export.make_module(m.agent, m.params, opt_state, step,
                                       m.environment_spec)
  board = _batch(1)[0]
  assert not np.array_equal(fresh.infer(board)['probabilities'],
                            trained.infer(board)['probabilities'])
  fresh.restore(checkpoint)
  np.testing.assert_array_equal(fresh.infer(board)['probabilities'],
                                trained.infer(board)['probabilities'])
  for a, b in zip(fresh.weights, trained.weights):
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_weight_names_are_unique_and_signature_safe(trainable_model):
  m = trainable_model
  names = trainable_export.weight_names(m.params, m.optimizer.init(m.params))
  assert len(set(names)) == len(names) == len(
      jax.tree.leaves(m.params)) + len(jax.tree.leaves(
          m.optimizer.init(m.params)))
  assert all(n.replace('_', '').isalnum() for n in names)
  assert names[0].startswith('param_0_')


def test_unknown_optimizer_lists_the_valid_ones():
  with pytest.raises(ValueError, match=r"\('adam', 'sgd'\)"):
    trainable_export.make_optimizer('rmsprop', 1e-3)
  with pytest.raises(ValueError, match='learning_rate'):
    trainable_export.make_optimizer('sgd', 0.0)


def test_only_policy_gradient_agents_can_train_on_the_device():
  for name in ('a2c', 'ppo', 'reinforce'):
    assert agent_registry.get(name).trainable_on_device, name
  assert not agent_registry.get('dqn').trainable_on_device
