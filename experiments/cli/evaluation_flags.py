"""The evaluation flags: the protocol (every command that trains) and how
commands that score many runs (compare, sweep) evaluate them."""

from absl import flags

from experiments.cli import settings_flags


def define_protocol() -> None:
  """`--eval_policy` and `--eval_epsilon`: how evaluations act, as their
  declarations in `setup.train_settings` say."""
  settings_flags.define('eval_policy', 'eval_epsilon')


def define(eval_points: int) -> None:
  """`--eval_points` (default `eval_points`), `--eval_episodes` and
  `--periodic_eval_episodes`: how each run is scored and its curve drawn."""
  flags.DEFINE_integer('eval_points', eval_points, 'Greedy evaluations per '
                       'run (learning curves).', lower_bound=1)
  flags.DEFINE_integer('eval_episodes', 200, 'Greedy episodes of the final '
                       'evaluation, the run\'s score.', lower_bound=1)
  flags.DEFINE_integer('periodic_eval_episodes', 100, 'Greedy episodes of '
                       'each evaluation along the way.', lower_bound=1)
  define_protocol()
