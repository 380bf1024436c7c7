r"""Exports a trained policy to TFLite and verifies it against JAX.

Run on a training workdir (uses its config and newest checkpoint):

  python -m experiments.export_tflite --workdir=/tmp/ps [--quantize=dynamic]

`--quantize` shrinks the weights (int8 `dynamic` range or `float16`); the I/O
stays float32, so the app needs no change. A quantised export is compared with
the float one on the same games instead of being held to `tflite.TOLERANCE`.
`--export=trainable` writes a model that keeps learning on the device
(`experiments/export/trainable.py`), for agents whose registry entry says
they can; it gets its final name only once verified, its save/restore too
where a Flex interpreter is set up (scripts/setup_flex_env.sh, see
`experiments/export/flex_check.py`). A run's own `--imports` (recorded in
its config.json) are imported before its agent and environment are looked
up.
"""

import json
import os
import sys
from typing import Any, Dict

from absl import app
from absl import flags

from agents import agent as agent_lib
from agents import optimizers
from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.cli import finite_flags
from experiments.cli import help_text
from experiments.setup import library_logs
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.export import flex_check
from experiments.export import on_device
from experiments.export import tflite
from experiments.export import trainable
from experiments.setup import build as build_lib
from experiments.storage import atomic_files

EXPORTS = ('plain', 'trainable')


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to export': ('workdir', 'seed', 'output', 'export', 'quantize'),
    'Verification': ('verify_games',),
    'On-device training (--export=trainable)': (
        'train_optimizer', 'train_learning_rate', 'fine_tune_games'),
}


def _define_flags() -> None:
  flags.DEFINE_string('workdir', None, 'Workdir of a training run to export.')
  flags.DEFINE_string('output', None,
                      'Path of the .tflite file; default WORKDIR/<env>.tflite.')
  flags.DEFINE_integer('seed', None, 'Which seed of a --num_seeds run to '
                       'export; default the run\'s --seed.')
  flags.DEFINE_integer('verify_games', 1000,
                       'Greedy games played through the interpreter.',
                       lower_bound=1)
  flags.DEFINE_enum('quantize', None, tflite.QUANTIZATIONS,
                    'Quantise the weights: int8 dynamic range or float16. '
                    'The default output name gets a _<quantize> suffix.')
  flags.DEFINE_enum('export', 'plain', EXPORTS,
                    'plain: the app\'s model (infer only); trainable: also '
                    'train/get_weights/set_weights/save/restore signatures '
                    'for on-device training (output name gets _trainable).')
  flags.DEFINE_enum('train_optimizer', None, optimizers.OPTIMIZERS,
                    '--export=trainable: the on-device optimizer; default '
                    'the agent config\'s (else adam).')
  flags.DEFINE_float('train_learning_rate', None,
                     '--export=trainable: on-device learning rate; default '
                     'the agent config\'s (else 1e-3).')
  finite_flags.require_finite('train_learning_rate')
  flags.DEFINE_integer('fine_tune_games', 0,
                       '--export=trainable: after verifying, fine-tune a copy '
                       'on this many games played through the interpreter '
                       'and report greedy strikes before and after.',
                       lower_bound=0)


def main(argv):
  del argv
  workdir = flags.FLAGS.workdir
  if not workdir:
    raise app.UsageError('--workdir is required: the training run to export.')
  library_logs.quiet()
  try:
    config = workdir_lib.load_config(workdir)
  except (FileNotFoundError, ValueError) as e:  # ExperimentError included.
    raise app.UsageError(f'--workdir: {e}') from e
  if config.trials:
    raise app.UsageError(
        f'--workdir {workdir!r} is a sweep\'s program (trials of several '
        f'configurations): train the configuration to export on its own, '
        f'e.g. with the preset file the sweep wrote (--preset=<file>).')
  built = build_lib.build(config)
  seed = config.seed if flags.FLAGS.seed is None else flags.FLAGS.seed
  try:
    params = driver.restore_actor_params(built, workdir, seed)
  except ValueError as e:
    raise app.UsageError(f'--seed: {e}') from e
  except driver.RUN_FAILURES as e:
    sys.exit(f'FATAL {e}')
  if params is None:
    raise app.UsageError(f'--workdir {workdir!r} has no checkpoint yet.')
  quantize, trainable = flags.FLAGS.quantize, flags.FLAGS.export == 'trainable'
  if quantize and trainable:
    raise app.UsageError('--quantize applies to --export=plain; a trainable '
                         'model keeps float32 weights to train them.')
  filename = workdir_lib.export_filename(config.env)
  if quantize or trainable:  # Next to the float model, not over it.
    root, extension = os.path.splitext(filename)
    filename = f'{root}_{quantize or "trainable"}{extension}'
  path = flags.FLAGS.output or os.path.join(
      workdir_lib.seed_workdir(config, workdir,
                               build_lib.seeds(config).index(seed)),
      filename)
  seed_built = built.for_seed(seed)
  try:
    if trainable:
      report = _export_trainable(seed_built, params, path)
    else:
      report = tflite.export_and_verify(
          built.agent, params, built.environment_spec, path,
          seed_built.export_environment, num_games=flags.FLAGS.verify_games,
          quantize=quantize, input_name=env_registry.input_name(config.env))
  except ValueError as e:  # tflite.VerificationError, or a failed check.
    sys.exit(f'FATAL {e}')
  print(json.dumps({'tflite_path': os.path.abspath(path), **report},
                   indent=2))


def _export_trainable(built, params: agent_lib.Params,
                      path: str) -> Dict[str, Any]:
  """`--export=trainable`: writes, verifies and optionally fine-tunes."""
  config = built.config
  name = flags.FLAGS.train_optimizer or getattr(config.agent_config,
                                                'optimizer', 'adam')
  learning_rate = flags.FLAGS.train_learning_rate or getattr(
      config.agent_config, 'learning_rate', 1e-3)
  # Returns on the device are discounted as the agent was trained.
  discount = getattr(config.agent_config, 'discount', 1.0)
  try:
    if built.environment_spec.is_continuous:
      raise ValueError(
          'on-device training is built for discrete action probabilities; '
          f'{config.env!r} has continuous actions. Export the deterministic '
          'policy instead (--export=plain).')
    if not agent_registry.get(config.agent).trainable_on_device:
      trainable_agents = [n for n in agent_registry.names()
                          if agent_registry.get(n).trainable_on_device]
      raise ValueError(
          f'on-device training needs a policy-gradient agent '
          f'({", ".join(trainable_agents)}); {config.agent!r} exports a '
          f'policy with no gradient to train.')
    optimizer = trainable.make_optimizer(name, learning_rate)
  except ValueError as e:
    raise app.UsageError(f'--export=trainable: {e}') from e
  with atomic_files.published_if_verified(path) as candidate:
    report = on_device.export_and_verify_trainable(
        built.agent, params, built.environment_spec, candidate, optimizer,
        built.export_environment(),
        on_device.WEIGHT_TOLERANCES[name], discount=discount)
    # Replaces LiteRT's 'not run' (it has no Flex delegate).
    report['save_restore'] = flex_check.check_trainable_export(
        candidate, built.environment_spec, built.export_environment(),
        discount)
  report.update(optimizer=name, learning_rate=learning_rate)
  if flags.FLAGS.fine_tune_games:
    # Game streams 1 (learning) and 2 (greedy play before and after).
    report['fine_tune'] = on_device.fine_tune(
        path, built.environment_spec, built.export_environment,
        num_games=flags.FLAGS.fine_tune_games, discount=discount, seed=1)
  return report


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
