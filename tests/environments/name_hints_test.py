"""Tests for environments/name_hints.py and the registries that use it:
a mistyped name is refused with the names it looks like."""

import pytest

from agents import registry as agent_registry
from environments import name_hints
from environments import registry as env_registry
from experiments.presets import registry as preset_registry
from networks import registry as network_registry


def test_close_names_ignore_case_and_keep_their_spelling():
  valid = ['CartPole-v1', 'Acrobot-v1', 'MountainCar-v0']
  assert name_hints.did_you_mean('cartpole-v1', valid) == (
      ' Did you mean CartPole-v1?')
  assert name_hints.did_you_mean('chess', valid) == ''
  assert name_hints.did_you_mean(3, valid) == ''


@pytest.mark.parametrize('lookup, typed, close', [
    (agent_registry.get, 'PPO', 'ppo'),
    (agent_registry.get, 'dqm', 'dqn'),
    (env_registry.check_name, 'Catch', 'catch'),
    (env_registry.check_name, 'plane-strike', 'plane_strike'),
    (network_registry.get, 'mlp_polcy', 'mlp_policy'),
    (preset_registry.get, 'ppo_gymnax_cartpol', 'ppo_gymnax_cartpole'),
])
def test_each_registry_suggests_close_names(lookup, typed, close):
  with pytest.raises(ValueError, match=f'Did you mean {close}') as error:
    lookup(typed)
  assert 'Valid' in str(error.value)  # The whole list still follows.
