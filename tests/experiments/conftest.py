"""Fixtures shared by the experiments tests."""

import dataclasses
from typing import Any

import jax
import pytest

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments.export import trainable as trainable_export
from tests import unrendered_figures as unrendered_figures_lib


@dataclasses.dataclass(frozen=True)
class TrainableModel:
  """An untrained Plane Strike policy and its trainable TFLite export."""
  path: str
  agent: Any
  params: Any
  environment_spec: specs.EnvironmentSpec
  optimizer: Any


@pytest.fixture(scope='session')
def trainable_model(tmp_path_factory) -> TrainableModel:
  """Converted once per session: the conversion takes about a minute."""
  spec = specs.make_environment_spec(
      env_registry.make_environment('plane_strike'))
  agent = agent_registry.make_agent(
      'reinforce', agent_registry.make_config('reinforce'), spec,
      env_registry.hidden_sizes('plane_strike', {}))
  params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
  optimizer = trainable_export.make_optimizer('adam', 3e-3)
  path = str(tmp_path_factory.mktemp('trainable') / 'planestrike.tflite')
  with open(path, 'wb') as f:
    f.write(trainable_export.to_trainable_tflite(agent, params, spec,
                                                 optimizer))
  return TrainableModel(path, agent, params, spec, optimizer)


@pytest.fixture
def unrendered_figures():
  """Figures named but not drawn (`tests/unrendered_figures.py`)."""
  with unrendered_figures_lib.unrendered():
    yield
