r"""Learning results of every agent on every environment; prints JSON.

  python -m benchmarks.learning --seeds=3 --output=learning.json
  python -m benchmarks.learning --seeds=3 \
      --only=gymnax:Pendulum-v1/ppo,gymnax:Pendulum-v1/sac \
      --output=benchmarks/pendulum_learning.json

The committed results (benchmarks/*_learning.json) and the command behind
each are in docs/benchmarks/learning.md.

Each (agent, environment) pair of `GRID` trains with its default preset
(settings and budget, `experiments/presets/builtin/`) for each seed, then
reports the greedy evaluation and the median over seeds next to its target.
The runs are comparison run groups (`experiments/comparison/run_groups.py`): the
seeds of a pair train side by side in one compiled program, under
WORKDIR/runs/<env>/<agent>/, and rerunning skips finished groups.
"""

import dataclasses
import functools
import json
import os
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from absl import app
from absl import flags
import numpy as np

from agents import registry as agent_registry
from benchmarks import fingerprints
from experiments.cli import help_text
from experiments.comparison import group_runner
from experiments.comparison import launchers
from experiments.comparison import run_groups
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import library_logs
from experiments.storage import atomic_files

@dataclasses.dataclass(frozen=True)
class Setting:
  """One (environment, agent) pair: its target. The settings and budget
  are the pair's default preset (`experiments/presets/builtin/`)."""
  env: str
  agent: str
  eval_episodes: int = 100
  min_return: Optional[float] = None  # Target on the greedy mean return.
  max_length: Optional[float] = None  # Target on the greedy mean length.
  export_tflite: bool = False  # Export and verify each seed's model.
  preset_name: Optional[str] = None  # None: the pair's default preset.

  @property
  def preset(self) -> preset_registry.Preset:
    if self.preset_name is not None:
      return preset_registry.get(self.preset_name)
    preset = preset_registry.default_for(self.agent, self.env)
    if preset is None:
      raise ValueError(f'{self.agent} on {self.env} has no default preset.')
    return preset

  @property
  def key(self) -> str:
    """What `--only` names it by: `env/agent`, or `env/preset` for a
    setting of a preset other than the pair's default."""
    return f'{self.env}/{self.preset_name or self.agent}'

  @property
  def target(self) -> str:
    if self.min_return is not None:
      return f'greedy mean return >= {self.min_return:g}'
    return f'greedy mean episode length <= {self.max_length:g}'

  def met(self, result: Dict[str, Any]) -> bool:
    if self.min_return is not None:
      return result['eval_mean_return'] >= self.min_return
    return result['eval_mean_episode_length'] <= self.max_length


_CATCH = dict(min_return=0.9)
_CARTPOLE = dict(eval_episodes=20, min_return=475.0)
# Plane Strike: every agent's exported model within 13 strikes (the app's
# own model: 12.8; exact Bayes-greedy play: 11.93).
_PLANE_STRIKE = dict(eval_episodes=1000, max_length=13.0, export_tflite=True)
# Pendulum's usual "solved" return; the exported deterministic
# policy is verified against JAX too.
_PENDULUM = dict(eval_episodes=100, min_return=-200.0, export_tflite=True)
# DQN on gymnax's classic control: CartPole's usual "solved" bar; Acrobot
# and MountainCar: what CleanRL's dqn.py reaches in 500k steps (3-seed
# means -91.54 and -194.95, docs.cleanrl.dev/rl-algorithms/dqn).
_GYMNAX_CARTPOLE = dict(eval_episodes=20, min_return=475.0)
_ACROBOT = dict(eval_episodes=100, min_return=-91.5)
_MOUNTAINCAR = dict(eval_episodes=100, min_return=-195.0)
# MinAtar Breakout: ten bricks a game.
_BREAKOUT = dict(eval_episodes=100, min_return=10.0)

GRID = (
    Setting('catch', 'reinforce', **_CATCH),
    Setting('catch', 'dqn', **_CATCH),
    Setting('catch', 'a2c', **_CATCH),
    Setting('catch', 'ppo', **_CATCH),
    Setting('catch', 'pqn', **_CATCH),
    Setting('catch', 'impala', **_CATCH),
    Setting('catch', 'c51', **_CATCH),
    Setting('catch', 'qr_dqn', **_CATCH),
    Setting('catch', 'alphazero', **_CATCH),
    # MuZero beside PPO at MuZero's budget (PPO's own preset is above).
    Setting('catch', 'muzero', **_CATCH),
    Setting('catch', 'ppo', preset_name='ppo_catch_muzero_budget',
            **_CATCH),
    Setting('gymnax:Breakout-MinAtar', 'muzero', **_BREAKOUT),
    Setting('gymnax:Breakout-MinAtar', 'ppo',
            preset_name='ppo_breakout_minatar_muzero_budget', **_BREAKOUT),
    Setting('plane_strike', 'muzero', **_PLANE_STRIKE),
    Setting('plane_strike', 'alphazero', **_PLANE_STRIKE),
    Setting('cartpole', 'dqn', **_CARTPOLE),
    Setting('cartpole', 'a2c', **_CARTPOLE),
    Setting('cartpole', 'ppo', **_CARTPOLE),
    Setting('plane_strike', 'reinforce', **_PLANE_STRIKE),
    Setting('plane_strike', 'dqn', **_PLANE_STRIKE),
    Setting('plane_strike', 'a2c', **_PLANE_STRIKE),
    Setting('plane_strike', 'ppo', **_PLANE_STRIKE),
    Setting('plane_strike', 'pqn', **_PLANE_STRIKE),
    Setting('plane_strike', 'impala', **_PLANE_STRIKE),
    Setting('plane_strike', 'c51', **_PLANE_STRIKE),
    Setting('plane_strike', 'qr_dqn', **_PLANE_STRIKE),
    Setting('gymnax:CartPole-v1', 'dqn', **_GYMNAX_CARTPOLE),
    Setting('gymnax:Acrobot-v1', 'dqn', **_ACROBOT),
    Setting('gymnax:MountainCar-v0', 'dqn', **_MOUNTAINCAR),
    Setting('gymnax:Pendulum-v1', 'ppo', **_PENDULUM),
    Setting('gymnax:Pendulum-v1', 'sac', **_PENDULUM),
    Setting('gymnax:Pendulum-v1', 'td3', **_PENDULUM),
    # Brax's pole balancing: 1 a step alive, 1000 steps at most.
    Setting('brax:inverted_pendulum', 'ppo', eval_episodes=20,
            min_return=950.0, export_tflite=True),
)


def find(env: str, agent: str) -> Setting:
  """The grid's setting of (env, agent) with the pair's default preset."""
  (setting,) = [s for s in GRID if (s.env, s.agent) == (env, agent) and
                s.preset_name is None]
  return setting


def config(setting: Setting) -> config_lib.ExperimentConfig:
  """Seed 0's experiment config of `setting`: its preset, as `train` would
  use it."""
  preset = setting.preset
  return config_lib.ExperimentConfig(
      agent=setting.agent, env=setting.env, seed=0,
      agent_config=agent_registry.make_config(setting.agent, **preset.config),
      preset=preset.name, network=preset.network,
      hidden_sizes=preset.hidden_sizes, num_envs=preset.num_envs,
      num_episodes=preset.num_episodes, num_steps=preset.num_steps,
      eval_episodes=setting.eval_episodes, eval_every_episodes=0,
      log_every_episodes=100, export_tflite=setting.export_tflite)


def run_seeds(config_0: config_lib.ExperimentConfig, num_seeds: int,
              root: str) -> List[Dict[str, Any]]:
  """Trains seeds 0 … num_seeds-1 of seed 0's `config_0` under `root`
  (or reads their finished results), one result per seed."""
  groups = run_groups.groups_for(config_0, num_seeds, root)
  for group in groups:  # A root may hold another preset's finished runs
    # of the same agent and environment: refused, not taken for these.
    if os.path.exists(os.path.join(group.workdir, workdir_lib.CONFIG)):
      workdir_lib.check(group.config, group.workdir)
  train = functools.partial(group_runner.run_group, train=driver.run_experiment)
  per_group = launchers.LocalLauncher().run(train, groups,
                                            [g.name for g in groups])
  return [result for results in per_group for result in results]


def setting_root(setting: Setting, root: str) -> str:
  """Where `setting`'s runs go under `root`: a pair's default preset at
  the root (runs/<env>/<agent>/), another preset of the pair in a folder
  of its own, so that the two never share a run directory."""
  if setting.preset_name is None:
    return root
  return os.path.join(root, 'presets', setting.preset_name)


def run_setting(setting: Setting, num_seeds: int,
                root: str) -> List[Dict[str, Any]]:
  """`run_seeds` of `setting`'s config, under `setting_root`."""
  return run_seeds(config(setting), num_seeds, setting_root(setting, root))


def per_seed(results: List[Dict[str, Any]]) -> Dict[str, Any]:
  """The seeds' figures (`per_seed`, diverged seeds left out) and the
  seeds that diverged (`diverged_seeds`: listed, never scored)."""
  return {
      'per_seed': [{k: r[k] for k in ('seed', 'eval_mean_return',
                                      'env_steps', 'wall_seconds')}
                   for r in results if r.get('status') != 'diverged'],
      'diverged_seeds': [r['seed'] for r in results
                         if r.get('status') == 'diverged'],
  }


def protocol(results: List[Dict[str, Any]]) -> Dict[str, Any]:
  """The final evaluation's protocol (policy, ε where ε-greedy, episodes)
  as every seed's `result.json` says it, and the seeds: one for the row.

  Raises:
    ValueError: the seeds were evaluated under different protocols.
  """
  found = {json.dumps({**r['eval_protocol'], 'episodes': r['eval_episodes']},
                      sort_keys=True) for r in results}
  if len(found) != 1:
    raise ValueError(f'The seeds evaluated under different protocols: '
                     f'{sorted(found)}.')
  (only,) = found
  return {**json.loads(only), 'seeds': len(results)}


def write_output(num_seeds: int, rows: List[Dict[str, Any]],
                 output: Optional[str],
                 measured: Optional[Dict[str, Any]] = None) -> None:
  """Prints the benchmark's JSON, and writes it to `output` if given;
  `measured`: what it measured (`benchmarks.fingerprints.measured`),
  so that its tables can tell when they are stale."""
  text = json.dumps({'seeds': num_seeds, 'results': rows,
                     **({'measured': measured} if measured else {})},
                    indent=2)
  print(text)
  if output:
    atomic_files.write_bytes(output, (text + '\n').encode())


def rows_kept(output: Optional[str], num_seeds: int
              ) -> List[Dict[str, Any]]:
  """The rows `output` holds from earlier launches, each recording what it
  measured, so that a launch running some rows keeps the others (adding
  one reproduction does not rerun the rest). Called before any run: a file
  of another seed count, or one that is not such a JSON, is refused first.
  """
  if not output or not os.path.exists(output):
    return []
  try:
    with open(output, encoding='utf-8') as f:
      data = json.load(f)
    rows = data['results']
    seeds = data['seeds']
  except (OSError, ValueError, KeyError, TypeError) as e:
    raise ValueError(f'--output {output}: not a benchmark JSON this '
                     f'command wrote ({e}); name another file.') from e
  if seeds != num_seeds:
    raise ValueError(f'--output {output} holds {seeds}-seed rows: run with '
                     f'--seeds={seeds}, or name another file.')
  if any('measured' not in row for row in rows):
    raise ValueError(f'--output {output}: its rows do not each record what '
                     f'they measured; name another file.')
  return rows


def merged(kept: List[Dict[str, Any]], rows: List[Dict[str, Any]],
           key: Callable[[Dict[str, Any]], Any]) -> List[Dict[str, Any]]:
  """`kept` with each of `rows` in place of the kept row of its `key`;
  rows of new keys follow."""
  fresh = {key(row): row for row in rows}
  out = [fresh.pop(key(row), row) for row in kept]
  return out + [row for row in rows if key(row) in fresh]


def _median(values) -> Optional[float]:
  return float(np.median(values)) if values else None


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to run': ('only', 'seeds'),
    'Output': ('output', 'workdir'),
}


def define_run_flags(seeds_help: str, only_help: Optional[str] = None
                    ) -> None:
  """`--seeds`, `--output` and `--workdir`, as every learning benchmark
  (this one, `memory`, `time_limits`, …) takes them, and `--only` where
  it picks some of its runs (`only_help`)."""
  flags.DEFINE_integer('seeds', 3, seeds_help, lower_bound=1)
  flags.DEFINE_string('output', None, 'Also write the JSON here.')
  flags.DEFINE_string('workdir', None, 'Root of the runs; default a temp dir.')
  if only_help:
    flags.DEFINE_list('only', None, only_help)


def run_root(prefix: str) -> Tuple[str, Set[str]]:
  """`(--workdir or a new temporary folder named from prefix, the runs
  --only names)` of a learning benchmark; quiets the libraries' logs."""
  library_logs.quiet()
  return (flags.FLAGS.workdir or tempfile.mkdtemp(prefix=f'{prefix}-'),
          set(getattr(flags.FLAGS, 'only', None) or ()))


def check_only(only: Set[str]) -> None:
  """Raises `app.UsageError` naming the `--only` keys that are no
  setting's (`Setting.key`), listing the grid's, before anything runs."""
  unknown = sorted(only - {setting.key for setting in GRID})
  if unknown:
    raise app.UsageError(
        f'--only: no setting {", ".join(unknown)}; the grid\'s: '
        f'{", ".join(setting.key for setting in GRID)}.')


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  define_run_flags('Seeds per pair (0..N-1).',
                   'Run only these pairs, e.g. catch/dqn,cartpole/ppo (a '
                   'preset other than the pair\'s default by its name, '
                   'e.g. catch/ppo_catch_muzero_budget).')


def main(argv):
  del argv
  root, only = run_root('learning')
  check_only(only)
  rows, configs = [], []
  for setting in GRID:
    if only and setting.key not in only:
      continue
    start = time.perf_counter()
    everything = run_setting(setting, flags.FLAGS.seeds, root)
    # Diverged seeds are listed, never scored (nor silently dropped).
    results = [r for r in everything if r.get('status') != 'diverged']
    median = {
        key: _median([r[key] for r in results])
        for key in ('eval_mean_return', 'eval_mean_episode_length',
                    'env_steps', 'wall_seconds')
    }
    row = {
        'env': setting.env, 'agent': setting.agent,
        'preset': setting.preset.name,
        'overrides': dict(setting.preset.config),
        'budget_steps': setting.preset.num_steps,
        'budget_episodes': setting.preset.num_episodes,
        'target': setting.target,
        'median': median,
        'target_met_by_median': setting.met(median),
        'protocol': protocol(results) if results else None,
        'per_seed': [{k: r[k] for k in ('seed', 'eval_mean_return',
                                        'eval_mean_episode_length',
                                        'env_steps', 'wall_seconds')}
                     for r in results],
        'diverged_seeds': [r['seed'] for r in everything
                           if r.get('status') == 'diverged'],
        'seconds': time.perf_counter() - start,
    }
    if setting.export_tflite:
      row['tflite_greedy_strikes' if setting.max_length is not None else
          'tflite_greedy_return'] = [
              r['tflite']['mean_episode_length' if setting.max_length
                          is not None else 'mean_return'] for r in results]
      row['tflite_max_abs_diff'] = [r['tflite']['max_abs_diff']
                                    for r in results]
    rows.append(row)
    configs.append(config(setting))
    print(json.dumps({k: row[k] for k in ('env', 'agent', 'median',
                                           'target', 'target_met_by_median')
                      }), flush=True)
  write_output(flags.FLAGS.seeds, rows, flags.FLAGS.output,
               fingerprints.measured(configs))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
