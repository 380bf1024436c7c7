r"""Trains an agent on an environment, then evaluates and exports it.

  python -m experiments.train --agent=reinforce --env=plane_strike --seed=3 \
      --workdir=/tmp/ps --num_episodes=50000
  tensorboard --logdir=/tmp/ps

Rerunning with the same --workdir resumes from its newest checkpoint.
"""

import json

from absl import app
from absl import flags

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments import config as config_lib
from experiments import experiment

_AGENT = flags.DEFINE_enum('agent', 'reinforce', agent_registry.names(),
                           'Agent to train.')
_ENV = flags.DEFINE_string('env', 'plane_strike',
                           f'Environment: one of {env_registry.names()}.')
_SEED = flags.DEFINE_integer('seed', 0, 'Random seed (>= 0).', lower_bound=0)
_NUM_EPISODES = flags.DEFINE_integer(
    'num_episodes', config_lib.ExperimentConfig.num_episodes,
    'Training budget in episodes.', lower_bound=1)
_NUM_STEPS = flags.DEFINE_integer(
    'num_steps', None, 'Optional budget in environment steps; training stops '
    'at whichever budget is reached first.', lower_bound=1)
_LEARNING_RATE = flags.DEFINE_float(
    'learning_rate', None, 'Learning rate; default: the agent config\'s.')
_BATCH_SIZE = flags.DEFINE_integer(
    'batch_size', None, 'Episodes per update; default: the agent config\'s.',
    lower_bound=1)
_WORKDIR = flags.DEFINE_string(
    'workdir', None, 'Directory for config, checkpoints, logs, result.json '
    'and the exported model; default runs/<agent>_<env>_seed<seed>.')
_EVAL_EPISODES = flags.DEFINE_integer(
    'eval_episodes', 1000, 'Greedy episodes of the final evaluation (and of '
    'the exported model\'s check).', lower_bound=1)
_EXPORT_TFLITE = flags.DEFINE_bool(
    'export_tflite', True, 'Export the trained policy to TFLite and verify it '
    'against JAX in the LiteRT interpreter.')
_PROGRESS = flags.DEFINE_bool('progress', True, 'Show a progress bar.')

flags.register_validator(
    'env', lambda name: name in env_registry.names(),
    message=f'--env must be one of {", ".join(env_registry.names())}.')
flags.register_validator(
    'learning_rate', lambda lr: lr is None or lr > 0,
    message='--learning_rate must be > 0.')


def make_config() -> config_lib.ExperimentConfig:
  """The experiment config the flags describe."""
  overrides = {}
  if _LEARNING_RATE.value is not None:
    overrides['learning_rate'] = _LEARNING_RATE.value
  if _BATCH_SIZE.value is not None:
    overrides['batch_size'] = _BATCH_SIZE.value
  try:
    agent_config = agent_registry.make_config(_AGENT.value, **overrides)
  except ValueError as e:
    raise app.UsageError(f'Bad agent setting from flags: {e}') from e
  return config_lib.ExperimentConfig(
      agent=_AGENT.value,
      env=_ENV.value,
      seed=_SEED.value,
      agent_config=agent_config,
      num_episodes=_NUM_EPISODES.value,
      num_steps=_NUM_STEPS.value,
      eval_episodes=_EVAL_EPISODES.value,
      export_tflite=_EXPORT_TFLITE.value)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  experiment.quiet_library_logs()
  config = make_config()
  workdir = _WORKDIR.value or (
      f'runs/{config.agent}_{config.env}_seed{config.seed}')
  try:
    result = experiment.run_experiment(config, workdir,
                                       progress=_PROGRESS.value)
  except ValueError as e:
    if 'holds a different experiment' in str(e):
      raise app.UsageError(str(e)) from e
    raise
  print(json.dumps(result, indent=2))


if __name__ == '__main__':
  app.run(main)
