r"""Compares agents across environments and seeds: trains, scores, reports.

  python -m experiments.compare --agents=reinforce,a2c,ppo \
      --envs=catch,plane_strike --seeds=5 --num_steps=200000 \
      --workdir=/tmp/comparison
  tensorboard --logdir=/tmp/comparison

Every agent × environment × seed trains for `--num_steps` environment steps
(the seeds of a pair side by side in one compiled program where the
environment has a JAX core), with `--eval_points` greedy evaluations along
the way and a final one of `--eval_episodes` games that scores the run.
Then `report.md` gets per-environment and aggregate statistics with 95%
stratified-bootstrap confidence intervals (rliable), learning curves and
the probability of improvement between agents; `python -m experiments.report
--workdir=...` redraws it without training.

Each agent runs with its preset for each environment (experiments/presets/),
where it has one; `--preset=none` runs the agents' plain defaults, and
`--preset=<name or file.json>,...` other presets for their pairs.
`--config.<key>=<value>` sets an agent hyperparameter for every agent whose
config has that key, `--config.<agent>.<key>=<value>` for one agent
(`--helpconfig` lists the keys); the report lists every run's resolved
settings. Environments run with their default settings (`--env_config` is
refused: use `experiments.train` for other ones). Rerunning the same command
skips finished runs and resumes unfinished ones; a workdir of another
comparison is refused.
`--launcher=ray --ray_address=...` runs the groups as Ray tasks (the workdir
must be shared with the cluster's workers).
"""

import os
import shlex
import sys

from absl import app
from absl import flags
from ml_collections import config_flags as ml_config_flags

from agents import registry as agent_registry
from experiments import api
from environments import registry as env_registry
from experiments.cli import config_flags
from experiments.cli import env_config_flags
from experiments.cli import evaluation_flags
from experiments.cli import finite_flags
from experiments.cli import flag_keywords
from experiments.cli import help_text
from experiments.cli import settings_help
from experiments.cli import user_imports
from experiments.comparison import budgets
from experiments.comparison import group_runner
from experiments.comparison import launchers
from experiments.comparison import plan as comparison_lib
from experiments.comparison import report_markdown
from experiments.comparison import statistics
from experiments.driver import stop_signals
from experiments.presets import registry as preset_registry
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to compare': ('agents', 'envs', 'seeds', 'num_steps', 'preset',
                        'config', 'imports'),
    'Evaluation and report': ('eval_points', 'eval_episodes',
                              'periodic_eval_episodes', 'eval_policy',
                              'eval_epsilon', 'bootstrap_reps'),
    'Output and checkpoints': ('workdir', 'progress',
                               'checkpoint_every_seconds', 'wandb_project'),
    'Launcher': ('launcher', 'ray_address', 'ray_num_cpus', 'ray_num_gpus',
                 'ray_max_retries'),
}


def _define_flags() -> None:
  """Defines the flags (only when run as a program)."""
  user_imports.define_flag()
  flags.DEFINE_list('agents', None,
                    f'Agents to compare, from {", ".join(agent_registry.names())}. '
                    'Default: every agent that acts in the action spaces of '
                    'all of --envs (each agent\'s registry entry says which '
                    'it acts in).')
  flags.DEFINE_list(
      'envs', 'catch,plane_strike',
      f'Environments: {env_registry.describe_names()} (bsuite: and gym: '
      f'step in Python, one seed per task), or ones registered by '
      f'--imports.')
  flags.DEFINE_integer('seeds', 5, 'Seeds 0 … N-1 of every pair. Rerun a '
                       'finished comparison with more to add seeds; the '
                       'others are kept.', lower_bound=1)
  flags.DEFINE_string(
      'num_steps', None, 'Environment steps per run: one count for every '
      'environment (e.g. 400000), or <env>:<steps>,... for some (e.g. '
      'plane_strike:2000000,catch:20000). Default, for each environment '
      'not given: the largest budget the compared agents\' presets were '
      f'tuned at on it ({budgets.DEFAULT_STEPS:,} where none has a preset). '
      'A warning names each agent run below its preset\'s budget or whose '
      'schedules (e.g. DQN\'s ε decay) the budget cuts short.')
  flags.DEFINE_string('wandb_project', None, 'Also log every run to this '
                      'Weights & Biases project (needs the wandb extra: pip '
                      'install -e \'.[wandb]\').')
  flags.DEFINE_string('workdir', None, 'Where runs, report and plots go.')
  evaluation_flags.define(eval_points=20)
  flags.DEFINE_integer('bootstrap_reps', statistics.DEFAULT_REPS,
                       'Bootstrap resamples of each confidence interval.',
                       lower_bound=100)
  flags.DEFINE_enum('launcher', 'local', launchers.LAUNCHERS,
                    'local: one group after another in this process; ray: '
                    'Ray tasks (pip install -e .[ray]).')
  flags.DEFINE_string('ray_address', None, 'Ray cluster address, e.g. '
                      'ray://head:10001 or auto; default: start a local one.')
  flags.DEFINE_float('ray_num_cpus', 1, 'CPUs each Ray task reserves.',
                     lower_bound=0)
  flags.DEFINE_float('ray_num_gpus', 0, 'GPUs each Ray task reserves.',
                     lower_bound=0)
  finite_flags.require_finite('ray_num_cpus', 'ray_num_gpus')
  flags.DEFINE_integer('ray_max_retries', 2, 'Retries of a failed Ray task.',
                       lower_bound=0)
  flags.DEFINE_bool('progress', True, 'Progress bars (local launcher).')
  flags.DEFINE_float('checkpoint_every_seconds',
                     config_lib.ExperimentConfig.checkpoint_every_seconds,
                     'Each run checkpoints at least this often (wall time), '
                     'so a killed comparison loses at most about this much '
                     'training per running task.', lower_bound=1)
  finite_flags.require_finite('checkpoint_every_seconds')
  flags.mark_flag_as_required('workdir')
  try:
    config_flags.check_comparison_keys(sys.argv, agent_registry.names())
  except ValueError as e:
    sys.exit(f'FATAL Flags parsing error: {e}')
  ml_config_flags.DEFINE_config_dict(
      config_flags.FLAG_NAME,
      config_flags.overrides_config_dict(agent_registry.names()),
      'Agent hyperparameters: --config.<key>=<value> for every agent whose '
      'config has the key, --config.<agent>.<key>=<value> for one agent, '
      'e.g. --config.ppo.learning_rate=3e-4. They override the presets.')
  flags.DEFINE_list(
      'preset', None, 'Presets instead of the pairs\' defaults (names or '
      '.json files, each used for its own agent and environment), or none '
      'for the agents\' plain defaults. Default: each pair\'s preset, '
      f'where it has one ({", ".join(preset_registry.names())}).')


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  f = flags.FLAGS
  try:
    written = api.compare(**flag_keywords.flag_keywords(
        api.compare, config=config_flags.overrides(),
        imports=user_imports.value(), command=shlex.join(
            ['python', '-m', 'experiments.compare', *sys.argv[1:]])))
  except api.UsageError as e:
    raise app.UsageError(str(e)) from e
  except stop_signals.Interrupted as e:
    print(e, file=sys.stderr)
    sys.exit(e.exit_code)
  except (launchers.LauncherError, group_runner.GroupUnfinished,
          comparison_lib.ComparisonError,
          build_lib.ExperimentError) + api.RUN_FAILURES as e:
    sys.exit(f'FATAL {e}')
  for run in written['left_out_runs']:
    print(f'Left out of the report: {run["agent"]} on {run["env"]}, seed '
          f'{run["seed"]}: {run["state"]}: {run["reason"]}')
  print(f'Report: {os.path.join(f.workdir, "report.md")}'
        + ('' if written['complete'] else
           f' (incomplete: see section "{report_markdown.SECTIONS[-1]}")'))


if __name__ == '__main__':
  env_config_flags.refuse(
      sys.argv, 'experiments.compare',
      'it trains every environment of --envs with its default settings. '
      'Train one environment with other settings with experiments.train '
      '(or tune it with experiments.sweep): --env=<env> '
      '--env_config.<key>=<value>.')
  user_imports.import_from_argv()
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__, lambda argv: (
      settings_help.for_agents(argv, agent_registry.names())))
