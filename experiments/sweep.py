r"""Sweeps an agent's hyperparameters: trains, ranks, writes the best preset.

  python -m experiments.sweep --agent=ppo --env=plane_strike --seeds=3 \
      --num_steps=1000000 --grid=learning_rate:1e-3,3e-4 \
      --grid=discount:0.5,0.9 --workdir=/tmp/sweep
  python -m experiments.sweep ... --random=learning_rate:log_uniform:1e-4:3e-3 \
      --num_random=16

Every configuration (grid values crossed, times `--num_random` random
draws) trains for `--seeds` seeds from the agent's preset for the
environment (`--preset`, as in `train`) with `--config.*` overrides, on the
environment `--env_config.*` sets up (`--helpconfig` lists both). On an
environment with a JAX core, configurations that differ only in settings
that keep array shapes (learning rate, discount, λ, costs, clip ε, ε…)
train side by side with their seeds in one compiled program; settings that
change shapes (batch, unroll, epochs, widths) form separate programs.
Python-loop environments train one program per configuration and seed
(`--launcher=ray` spreads them over a Ray cluster). Rerunning the same
command resumes and skips finished programs.

Writes `sweep.md` (configurations ranked by the final greedy score with
95% bootstrap intervals), `sweep_results.json`, `curves.png` and
`best_preset.json`, which `train --preset=` and `compare --preset=` take.
"""

import os
import shlex
import sys

from absl import app
from absl import flags

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
from experiments.comparison import study_settings
from experiments.driver import stop_signals
from experiments.setup import build as build_lib
from experiments.sweeps import ranking


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to sweep': ('agent', 'env', 'preset', 'preset_on_other_env',
                      'config', 'env_config', 'imports'),
    'Search space': ('grid', 'random', 'num_random', 'search_seed'),
    'Budget': ('seeds', 'held_out_seeds', 'num_steps'),
    'Evaluation and ranking': ('eval_points', 'eval_episodes',
                               'periodic_eval_episodes', 'eval_policy',
                               'eval_epsilon', 'bootstrap_reps'),
    'Output': ('workdir', 'progress', 'wandb_project',
               'compilation_cache_dir'),
    'Memory and launcher': ('max_memory_gb', 'launcher', 'ray_address'),
}


def _define_flags() -> None:
  """Defines the flags (only when run as a program): each setting's from
  its declaration (`comparison.study_settings.SweepSettings`, which
  `api.sweep`'s keywords come from too), then the command's own."""
  settings_flags.define_study(study_settings.SweepSettings,
                              'Where the runs and results go.')
  config_flags.define_config_flag()
  env_config_flags.define_flag(default_env='plane_strike')


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  f = flags.FLAGS
  compilation_cache_flag.apply()
  try:
    ranked = api.sweep(**flag_keywords.flag_keywords(
        api.sweep, config=config_flags.overrides(),
        env_config=env_config_flags.overrides(),
        imports=user_imports.value(), command=shlex.join(
            ['python', '-m', 'experiments.sweep', *sys.argv[1:]]))).report
  except api.UsageError as e:
    raise app.UsageError(str(e)) from e
  except stop_signals.Interrupted as e:
    print(e, file=sys.stderr)
    sys.exit(e.exit_code)
  except (launchers.LauncherError, group_runner.GroupUnfinished,
          build_lib.ExperimentError) + api.RUN_FAILURES as e:
    sys.exit(f'FATAL {e}')
  best = ranked['configurations'][0]
  score = best.get('mean', {}).get('point')
  held_out = ranked.get('held_out')
  print(f'Best: {best["values"]} ({ranked["metric"]} '
        f'{"none" if score is None else f"{score:.3f}"}' + (
            f'; on {len(held_out["seeds"])} fresh seeds '
            f'{held_out["mean"]["point"]:.3f}' if held_out else '') +
        '). Ranking: '
        f'{os.path.join(f.workdir, "sweep.md")}' +
        (f'; preset: {os.path.join(f.workdir, ranking.BEST_PRESET)}'
         if ranked['best_preset'] else ''))
  for edge in ranked.get('edges') or []:
    print(f'WARNING: {edge}')


if __name__ == '__main__':
  user_imports.import_from_argv()
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__, lambda argv: (
      settings_help.from_argv(argv, 'ppo', 'plane_strike')))
