r"""Trains an agent on an environment, then evaluates and exports it.

  python -m experiments.train --agent=reinforce --env=plane_strike --seed=3 \
      --workdir=/tmp/ps --num_episodes=50000
  tensorboard --logdir=/tmp/ps

Environments with a JAX core train with the compiled loop by default (the
whole training in one XLA program); --loop=python uses the dm_env loop.
--num_seeds=K trains seeds seed..seed+K-1 side by side in one program.

Your own environment, network or agent: register it in a module and name
the module (or its file) with --imports (see examples/ and
docs/bring_your_own.md); from Python, experiments.api runs the same.

Where the agent has a tuned preset for the environment (experiments/presets/)
it is used: its settings, network and, unless --num_steps or --num_episodes
is given, its budget; --preset=none gives the agent's plain defaults,
--preset=<name or file.json> another preset. Any agent hyperparameter can
be overridden with --config.<key>=<value> (e.g. --config.learning_rate=3e-4;
--learning_rate and --batch_size are shorthands for those keys), and the
environment's settings with --env_config.<key>=<value> (e.g.
--env_config.board_size=6): --helpconfig lists both for --agent and --env.
Rerunning with the same --workdir resumes from its newest checkpoint.
"""

import os
import signal
import sys
from typing import Any, Dict

from experiments.cli import startup_interrupt

if __name__ == '__main__':  # Ctrl-C while the libraries load: no traceback.
  startup_interrupt.exit_at_once()

from absl import app
from absl import flags
import jax

from agents import registry as agent_registry
from experiments import api
from environments import registry as env_registry
from experiments.cli import compilation_cache_flag
from experiments.cli import config_flags
from experiments.cli import env_config_flags
from experiments.cli import help_text
from experiments.cli import settings_flags
from experiments.cli import settings_help
from experiments.setup import library_logs
from experiments.setup import train_settings
from experiments.cli import user_imports
from experiments.comparison import statistics
from experiments.driver import console
from experiments.driver import stop_signals
from experiments.export import tflite
from experiments.loops import device_mesh
from experiments.setup import config as config_lib
from experiments.storage import atomic_files

SEEDS_SUMMARY = 'seeds_summary.json'

# Every training setting's flag, made from its declaration in
# `setup.train_settings.TrainSettings` (the API's keywords are too); below,
# the command's own flags.
settings_flags.define(train_settings.TrainSettings,
                      max_check_steps=tflite.MAX_CHECK_STEPS,
                      tolerance=tflite.TOLERANCE)
user_imports.define_flag()
compilation_cache_flag.define_flag()
_WORKDIR = flags.DEFINE_string(
    'workdir', None, 'Directory for config, checkpoints, logs, result.json '
    'and the exported model; default runs/<agent>_<env>_seed<seed>.')
_PROGRESS = flags.DEFINE_bool('progress', True, 'Show a progress bar.')
_REEVALUATE = flags.DEFINE_bool(
    'reevaluate', False, 'Evaluate and export a run that already finished '
    'its budget again (by default a finished --workdir is left as it is).')
_COORDINATOR_ADDRESS = flags.DEFINE_string(
    'coordinator_address', None, 'Multi-host runs: host:port of process 0, '
    'passed to jax.distributed.initialize. Seeds (and, with '
    '--devices_per_seed, each seed\'s environments) are sharded over the '
    'devices of all processes.')
_NUM_PROCESSES = flags.DEFINE_integer(
    'num_processes', None, 'Multi-host runs: number of processes.',
    lower_bound=1)
_PROCESS_ID = flags.DEFINE_integer(
    'process_id', None, 'Multi-host runs: this process\'s index, from 0.',
    lower_bound=0)

# What --help shows, in this order (tests/experiments/cli/help_text_test.py
# checks that every flag is in exactly one group).
FLAG_GROUPS = {
    'What to train': ('agent', 'env', 'preset', 'preset_on_other_env',
                      'config', 'env_config', 'learning_rate', 'batch_size',
                      'network', 'hidden_sizes', 'seed', 'imports'),
    'Budget and stopping': ('num_steps', 'num_episodes', 'max_abs_param'),
    'Evaluation and export': ('eval_episodes', 'eval_every_steps',
                              'eval_every_episodes', 'periodic_eval_episodes',
                              'eval_policy', 'eval_epsilon',
                              'export_tflite', 'export_check_episodes',
                              'reevaluate'),
    'Logging and checkpoints': ('workdir', 'log_every_steps',
                                'log_every_episodes', 'checkpoint_every_seconds',
                                'checkpoint_every_updates',
                                'keep_checkpoints', 'progress',
                                'wandb_project'),
    'Speed': ('loop', 'num_envs', 'actor_thread', 'num_seeds',
              'devices_per_seed', 'updates_per_chunk',
              'compilation_cache_dir'),
    'Multi-host': ('coordinator_address', 'num_processes', 'process_id'),
}


def _validator(flag: str, check):
  """A validator of `--flag` that raises `check`'s own message (valid
  names listed, the suite's close ids) as the flag's error."""

  def valid(name: str) -> bool:
    try:
      check(name)
    except ValueError as e:
      raise flags.ValidationError(f'--{flag}: {e}') from e
    return True

  return valid


flags.register_validator('agent', _validator('agent', agent_registry.get))
flags.register_validator('env', _validator('env', env_registry.check_name))
flags.register_validator(
    'hidden_sizes',
    lambda sizes: sizes is None or all(s.isdigit() and int(s) > 0
                                       for s in sizes),
    message='--hidden_sizes must be positive integers, e.g. 64,64.')
# --learning_rate's range is the agent config's (`PPOConfig` …), checked
# there; its flag refuses only NaN and infinity, as every number's does.


def settings() -> Dict[str, Any]:
  """The flags' values as `api.train` keywords (`train_settings` names)."""
  values = {name: flags.FLAGS[name].value
            for name in train_settings.names()
            if name not in ('config', 'env_config')}
  values.update(config=config_flags.overrides(),
                env_config=env_config_flags.overrides(),
                imports=user_imports.value())
  if values['hidden_sizes'] is not None:
    values['hidden_sizes'] = tuple(int(s) for s in values['hidden_sizes'])
  return values


def make_config() -> config_lib.ExperimentConfig:
  """The experiment config the flags describe, from the chosen preset."""
  try:
    return api.experiment_config(**settings())
  except api.UsageError as e:
    raise app.UsageError(str(e)) from e


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  # From here Ctrl-C stops the run with a checkpoint (or, outside training,
  # with KeyboardInterrupt and a message below).
  signal.signal(signal.SIGINT, signal.default_int_handler)
  library_logs.quiet()
  compilation_cache_flag.apply()
  try:
    device_mesh.initialize_distributed(_COORDINATOR_ADDRESS.value,
                                         _NUM_PROCESSES.value,
                                         _PROCESS_ID.value)
  except ValueError as e:
    raise app.UsageError(str(e)) from e
  config = make_config()
  workdir = _WORKDIR.value or api.default_workdir(config)
  try:
    result = api.run(config, workdir, progress=_PROGRESS.value,
                     reevaluate=_REEVALUATE.value).result
  except api.UsageError as e:
    raise app.UsageError(str(e)) from e
  except stop_signals.Interrupted as e:
    _exit_interrupted(str(e), e.exit_code)
  except KeyboardInterrupt:  # Outside training (start-up, evaluation,
    # export), or a second Ctrl-C: checkpoints already written are kept.
    _exit_interrupted(
        f'Interrupted. Checkpoints written so far in {workdir} are '
        f'kept: run the same command again to resume (a run whose '
        f'training finished is then evaluated and exported, not '
        f'trained again).', 128 + signal.SIGINT)
  except api.RUN_FAILURES as e:
    sys.exit(f'FATAL {e}')
  except (IsADirectoryError, NotADirectoryError, FileExistsError) as e:
    path = e.filename2 or e.filename  # A rename names its target second.
    sys.exit(f'FATAL {path}: {e.strerror}. A file of the run is not of its '
             f'kind (a directory where a file goes, or the reverse): move '
             f'{path} aside and rerun the same command to resume.')
  except OSError as e:  # E.g. a full disk: every file is written atomically.
    sys.exit(f'FATAL {e}. Files written before are intact; fix the cause '
             f'(e.g. free disk space) and rerun the same command to resume.')
  if jax.process_index() == 0:
    _report(result, workdir)


def _exit_interrupted(message: str, code: int) -> None:
  """Says how the run stopped and exits with `code` (130 for Ctrl-C, 143
  for SIGTERM) at once: every file of the run is closed, and what
  libraries may still run in threads (a compilation, a TensorFlow import)
  is not waited for. Ctrl-C meanwhile exits too, without a traceback. A
  multi-host run exits normally, to shut jax.distributed down with the
  other processes."""
  # pylint: disable=protected-access
  signal.signal(signal.SIGINT, lambda *_: os._exit(128 + signal.SIGINT))
  print(message, file=sys.stderr, flush=True)
  sys.stdout.flush()
  if jax.process_count() == 1:
    os._exit(code)
  sys.exit(code)


def _report(result: dict, workdir: str) -> None:
  """The end of a run in words: one line for one seed; each seed's score
  and their mean with a 95% interval for several (also written to
  <workdir>/seeds_summary.json); then a WARNING line (stderr) for each
  warning of a result (learning that collapsed: `driver.collapse`)."""
  warnings = console.warning_lines(result)  # The last lines (stderr).
  if 'seeds' not in result:
    print(console.summary_line(result), flush=True)
    if warnings:
      print(warnings, file=sys.stderr)
    return
  seeds = result['seeds']
  finished = [r for r in seeds if r.get('status') == 'finished']
  interval = None
  if finished:
    metric = f'eval_{env_registry.score_metric(finished[0]["env"])}'
    interval = statistics.over_seeds([r[metric] for r in finished])['mean']
    atomic_files.write_json(os.path.join(workdir, SEEDS_SUMMARY), {
        'metric': metric,
        'seeds': [r['seed'] for r in finished],
        'left_out': [{'seed': r['seed'], 'status': r.get('status')}
                     for r in seeds if r not in finished],
        'mean': interval,
        'interval': f'{statistics.CONFIDENCE:.0%} percentile bootstrap '
                    f'over seeds (rliable)'})
  print(f'{len(finished)} of {len(seeds)} seeds finished '
        f'({os.path.join(workdir, "seed_<n>", "result.json")}):')
  print(console.seeds_summary(seeds, interval), flush=True)
  if warnings:
    print(warnings, file=sys.stderr)


def _define_flags() -> None:
  """The flags that depend on argv: `--config.*` for --agent's config,
  `--env_config.*` for --env's settings (the rest are defined above)."""
  config_flags.define_config_flag()
  env_config_flags.define_flag()


if __name__ == '__main__':
  user_imports.import_from_argv()
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__, lambda argv: (
      settings_help.from_argv(argv, flags.FLAGS['agent'].default,
                              flags.FLAGS['env'].default)))
