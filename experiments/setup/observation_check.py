"""Checks that an environment returns the observations its spec describes,
before anything is compiled.

The agent's network is sized from `observation_spec()`; an environment
(typically a user's, registered through `--imports`) whose `reset` or `step`
returns observations of another shape would otherwise fail deep inside the
compiled program, with a long library traceback about a parameter's shape.
Here the first observations are compared with the spec, and a mismatch is
refused in one line naming the environment, the spec and what it returned.

A JAX core is checked abstractly (`jax.eval_shape` of `reset` and one
`step`: nothing runs or compiles); an environment with only a dm_env face
(the Python loop) is made, reset and stepped once.
"""

from typing import Any

import jax
import numpy as np

from environments import specs as env_specs
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _describe(shape: Any, dtype: Any) -> str:
  return f'shape {tuple(shape)} ({np.dtype(dtype).name})'


def _compare(config: config_lib.ExperimentConfig, spec: Any,
             observation: Any, where: str) -> None:
  """Raises ExperimentError if `observation` is not shaped as `spec`."""
  spec_leaves, spec_tree = jax.tree.flatten(spec)
  leaves, tree = jax.tree.flatten(observation)
  if spec_tree != tree:
    problem = (f'its observation_spec() describes {spec_tree}, but '
               f'{where} returned observations structured as {tree}')
  else:
    wrong = [(s, o) for s, o in zip(spec_leaves, leaves)
             if tuple(s.shape) != tuple(np.shape(o))]
    if not wrong:
      return
    s, o = wrong[0]
    name = f' {s.name!r}' if getattr(s, 'name', None) else ''
    problem = (f'its observation_spec(){name} says '
               f'{_describe(s.shape, s.dtype)}, but {where} returned '
               f'observations of {_describe(np.shape(o), o.dtype)}')
  source = (f' (registered by --imports={",".join(config.imports)})'
            if config.imports else '')
  raise build_lib.ExperimentError(
      f'--env={config.env}{source}: {problem}. The agent\'s network is '
      f'sized from the spec: make observation_spec() describe what reset() '
      f'and step() return.')


def _action(spec: env_specs.EnvironmentSpec) -> Any:
  return spec.actions.generate_value()


def check(config: config_lib.ExperimentConfig,
          spec: env_specs.EnvironmentSpec) -> None:
  """Compares the observations of `config`'s environment (the face its loop
  steps) with `spec`, the spec the agent was built from.

  Raises:
    ExperimentError: naming the environment, the spec and the shape its
      reset() or step() returned.
  """
  entry = config.environment
  if entry.has_core and (config.loop == 'compiled' or
                         entry.make_environment is None):
    core = entry.core(**config.env_kwargs)
    action = jax.ShapeDtypeStruct(np.shape(_action(spec)),
                                  spec.actions.dtype)
    state, first = jax.eval_shape(core.reset, jax.random.PRNGKey(0))
    _compare(config, spec.observations, first.observation, 'reset()')
    _, second = jax.eval_shape(core.step, state, action)
    _compare(config, spec.observations, second.observation, 'step()')
    return
  environment = entry.environment(**config.env_kwargs)
  try:
    first = environment.reset()
    _compare(config, spec.observations, first.observation, 'reset()')
    second = environment.step(_action(spec))
    _compare(config, spec.observations, second.observation, 'step()')
  finally:
    environment.close()
