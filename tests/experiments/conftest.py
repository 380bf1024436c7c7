"""Fixtures shared by the experiments tests."""

import dataclasses
import os
from typing import Any

import filelock
import jax
import pytest

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments.export import trainable as trainable_export
from experiments.storage import atomic_files
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
  """Converted once per test run, by the first worker that needs it (the
  conversion takes about 10 s); the others read its file."""
  spec = specs.make_environment_spec(
      env_registry.make_environment('plane_strike'))
  agent = agent_registry.make_agent(
      'reinforce', agent_registry.make_config('reinforce'), spec,
      env_registry.hidden_sizes('plane_strike', {}))
  params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
  optimizer = trainable_export.make_optimizer('adam', 3e-3)
  shared = tmp_path_factory.getbasetemp()
  if os.environ.get('PYTEST_XDIST_WORKER'):
    shared = shared.parent  # The run's, above each worker's.
  path = str(shared / 'trainable_planestrike.tflite')
  with filelock.FileLock(f'{path}.lock'):
    if not os.path.exists(path):
      atomic_files.write_bytes(path, trainable_export.to_trainable_tflite(
          agent, params, spec, optimizer))
  return TrainableModel(path, agent, params, spec, optimizer)


@pytest.fixture
def unrendered_figures():
  """Figures named but not drawn (`tests/unrendered_figures.py`)."""
  with unrendered_figures_lib.unrendered():
    yield
