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
from experiments.cli import compilation_cache_flag
from experiments.cli import config_flags
from experiments.cli import env_config_flags
from experiments.cli import flag_keywords
from experiments.cli import help_text
from experiments.cli import settings_flags
from experiments.cli import settings_help
from experiments.cli import user_imports
from experiments.comparison import group_runner
from experiments.comparison import launchers
from experiments.comparison import plan as comparison_lib
from experiments.comparison import report_markdown
from experiments.comparison import study_settings
from experiments.driver import stop_signals
from experiments.setup import build as build_lib


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to compare': ('agents', 'envs', 'seeds', 'num_steps', 'preset',
                        'config', 'imports'),
    'Evaluation and report': ('eval_points', 'eval_episodes',
                              'periodic_eval_episodes', 'eval_policy',
                              'eval_epsilon', 'bootstrap_reps'),
    'Output and checkpoints': ('workdir', 'progress',
                               'checkpoint_every_seconds', 'wandb_project',
                               'compilation_cache_dir'),
    'Launcher': ('launcher', 'ray_address', 'ray_num_cpus', 'ray_num_gpus',
                 'ray_max_retries'),
}


def _define_flags() -> None:
  """Defines the flags (only when run as a program): each setting's from
  its declaration (`comparison.study_settings.CompareSettings`, which
  `api.compare`'s keywords come from too), then the command's own."""
  settings_flags.define_study(study_settings.CompareSettings,
                              'Where runs, report and plots go.')
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


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  f = flags.FLAGS
  compilation_cache_flag.apply()
  try:
    written = api.compare(**flag_keywords.flag_keywords(
        api.compare, config=config_flags.overrides(),
        imports=user_imports.value(), command=shlex.join(
            ['python', '-m', 'experiments.compare', *sys.argv[1:]]))).report
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
