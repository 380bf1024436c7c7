"""Tests for agents/masked_forward.py: masking, shape checks, the policy."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import haiku as hk
import jax.numpy as jnp
import numpy as np

from agents import masked_forward
from environments import specs

NUM_ACTIONS = 4
LOGITS = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
VALUE = 0.5


def _spec(with_mask: bool = True,
          num_actions: int = NUM_ACTIONS) -> specs.EnvironmentSpec:
  """Observations `[4]`; an action is legal where its entry is 0."""
  return specs.make_spec(
      dm_specs.Array((NUM_ACTIONS,), np.float32),
      dm_specs.DiscreteArray(num_actions),
      legal_actions=(lambda o: o == 0) if with_mask else None)


def _network(with_values: bool) -> hk.Transformed:
  """Logits LOGITS for every observation (and value VALUE)."""

  def forward(observations):
    batch = observations.shape[:-1]
    bias = hk.get_parameter('bias', [NUM_ACTIONS],
                            init=lambda *_: jnp.asarray(LOGITS))
    logits = jnp.broadcast_to(bias, batch + (NUM_ACTIONS,))
    if with_values:
      return logits, jnp.full(batch, VALUE)
    return logits

  return hk.without_apply_rng(hk.transform(forward))


# Row 0: all legal. Row 1: actions 0 and 2 illegal.
_OBSERVATIONS = np.array([[0, 0, 0, 0], [1, 0, -1, 0]], np.float32)


def _params(network: hk.Transformed) -> hk.Params:
  return network.init(None, _OBSERVATIONS)


class MaskedForwardTest(absltest.TestCase):

  def test_masked_policy_masks_illegal_logits_only(self):
    network = _network(with_values=False)
    logits = np.asarray(masked_forward.masked_policy(network, _spec())(
        _params(network), _OBSERVATIONS))
    np.testing.assert_array_equal(logits[0], LOGITS)
    np.testing.assert_array_equal(logits[1, [1, 3]], LOGITS[[1, 3]])
    np.testing.assert_array_equal(logits[1, [0, 2]], -1e9)

  def test_without_legal_function_nothing_is_masked(self):
    network = _network(with_values=False)
    logits = masked_forward.masked_policy(network, _spec(with_mask=False))(
        _params(network), _OBSERVATIONS)
    np.testing.assert_array_equal(np.asarray(logits),
                                  np.stack([LOGITS, LOGITS]))

  def test_masked_actor_critic_keeps_values(self):
    network = _network(with_values=True)
    logits, values = masked_forward.masked_actor_critic(network, _spec())(
        _params(network), _OBSERVATIONS)
    np.testing.assert_array_equal(np.asarray(logits)[1, [0, 2]], -1e9)
    np.testing.assert_array_equal(np.asarray(logits)[1, [1, 3]],
                                  LOGITS[[1, 3]])
    np.testing.assert_array_equal(np.asarray(values), [VALUE, VALUE])

  def test_wrong_number_of_logits_is_refused(self):
    network = _network(with_values=False)
    forward = masked_forward.masked_policy(
        network, _spec(with_mask=False, num_actions=NUM_ACTIONS + 1))
    with self.assertRaises(AssertionError):
      forward(_params(network), _OBSERVATIONS)

  def test_policy_probabilities(self):
    for with_values in (False, True):
      network = _network(with_values)
      p = np.asarray(masked_forward.policy_probabilities(
          network, _spec(), has_values=with_values)(_params(network),
                                                    _OBSERVATIONS))
      expected_all = np.exp(LOGITS) / np.exp(LOGITS).sum()
      np.testing.assert_allclose(p[0], expected_all, rtol=1e-6)
      legal = np.exp(LOGITS[[1, 3]]) / np.exp(LOGITS[[1, 3]]).sum()
      np.testing.assert_array_equal(p[1, [0, 2]], 0.0)
      np.testing.assert_allclose(p[1, [1, 3]], legal, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
