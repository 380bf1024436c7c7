r"""The Python API: the command line's runs, from a notebook or a script.

  from experiments import api
  run = api.train(agent='ppo', env='gymnax:CartPole-v1',
                  workdir='/tmp/cartpole')
  run.curves.eval.plot(y='mean_return')   # learning curve (pandas)
  policy = run.policy()                    # or api.load_policy(workdir)
  api.evaluate(policy, episodes=100)       # each episode's return, length
  api.export('/tmp/cartpole', quantize='dynamic')

Each function takes its command's flags as keywords, with the same names
and defaults (`python -m experiments.<command> --helpfull` says what each
means), and runs exactly what the command runs: the commands are thin
layers over these functions, so the same settings give the same run and
the same `result.json`. `config={...}` and `env_config={...}` hold the
`--config.<key>` and `--env_config.<key>` values. Runs, comparisons and
sweeps come back as objects (`Run`, `Study`: configs, results, curves,
policies); `load_run` and `load_study` open them from their workdirs.

Bad input raises `UsageError` before anything is built or written, with
the command's message (it names the setting by its flag, lists the valid
names or says the valid range). A run that fails once started raises what
the command reports as FATAL (`RUN_FAILURES`, `tflite.VerificationError`),
and Ctrl-C raises `stop_signals.Interrupted` after a checkpoint.
"""

import contextlib
import inspect
from typing import Any, Dict, Iterator, Optional

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments import studies
from experiments.comparison import budgets
from experiments.comparison import group_runner
from experiments.comparison import launchers
from experiments.comparison import pair_settings
from experiments.comparison import plan as comparison_lib
from experiments.comparison import report
from experiments.comparison import study_settings
from experiments.driver import export_settings
from experiments.driver import run as driver
from experiments.driver import run_export
from experiments.driver import saved_run
from experiments.driver import trained_policy
from experiments.loops import evaluation
from experiments.presets import registry as preset_registry
from experiments.setup import build as build_lib
from experiments.setup import compilation_cache
from experiments.setup import config as config_lib
from experiments.setup import env_settings
from experiments.setup import extras
from experiments.setup import library_logs
from experiments.setup import settings as settings_lib
from experiments.setup import train_settings
from experiments.setup import user_modules
from experiments.storage import workdir_lock
from experiments.sweeps import ranking
from experiments.sweeps import search_space
from experiments.sweeps import sweep_plan

# Failures of a started run (a locked workdir, a checkpoint that does not
# restore, divergence, a corrupt log); the commands print them as FATAL.
RUN_FAILURES = driver.RUN_FAILURES


UsageError = settings_lib.UsageError


_INPUT_ERRORS = (ValueError, launchers.LauncherError)  # ValueError: layers'.


@contextlib.contextmanager
def _bad_input() -> Iterator[None]:
  """Raises `UsageError` for the input errors of the layers below (each a
  ValueError with the command's message) in the set-up it wraps."""
  try:
    yield
  except UsageError:
    raise
  except _INPUT_ERRORS as e:  # E.g. SettingError, an --imports module.
    raise UsageError(str(e)) from e


def _study_settings(settings_class: type, settings: Dict[str, Any],
                    command: str, what: str) -> Any:
  """A study's settings (`compare`'s, `sweep`'s) checked, with the report
  extra it needs and the user's modules imported."""
  s = settings_lib.build(settings_class, settings,
                         f', and workdir, command for {command}')
  extras.require('report', what)
  user_modules.import_modules(list(s.imports))
  return s


def default_workdir(config: config_lib.ExperimentConfig) -> str:
  """Where a run goes when no workdir is given."""
  return f'runs/{config.agent}_{config.env}_seed{config.seed}'


def experiment_config(**settings: Any) -> config_lib.ExperimentConfig:
  """The config `train(**settings)` runs (nothing is built or written).

  Raises:
    UsageError: an unknown keyword (the valid ones listed) or a bad value.
  """
  try:
    return train_settings.experiment_config(settings_lib.build(
        train_settings.TrainSettings, settings,
        ', and workdir, progress, reevaluate for train'))
  except settings_lib.SettingError as e:
    raise UsageError(str(e)) from e


def train(workdir: Optional[str] = None, progress: bool = True,
          reevaluate: bool = False, announce: bool = True,
          **settings: Any) -> saved_run.Run:
  """Trains, evaluates and exports, as `python -m experiments.train`:
  `run(experiment_config(**settings), workdir, …)`.

  Rerunning with the same workdir resumes from its newest checkpoint; a
  finished run is returned as saved unless `reevaluate`. `announce` prints
  the resolved settings and the compilation (stderr), as the command does.

  Returns:
    The run (`Run`): `.result` is its `result.json` (for several seeds
    `{'seeds': [result, …]}`, each also in `seed_<n>/result.json`).
  """
  return run(experiment_config(**settings), workdir, progress=progress,
             reevaluate=reevaluate, announce=announce)


def run(config: config_lib.ExperimentConfig, workdir: Optional[str] = None,
        progress: bool = True, reevaluate: bool = False,
        announce: bool = True) -> saved_run.Run:
  """Runs `experiment_config`'s config in `workdir`; see `train`."""
  library_logs.quiet()
  workdir = workdir or default_workdir(config)
  try:
    result = driver.run_experiment(config, workdir, progress=progress,
                                   reevaluate=reevaluate, announce=announce)
  except build_lib.ExperimentError as e:  # Refused before training.
    raise UsageError(str(e)) from e
  return saved_run.Run(workdir, result)


def load_study(workdir: str) -> studies.Study:
  """The comparison or sweep saved in `workdir` (finished or not).

  Raises:
    UsageError: neither is there.
  """
  library_logs.quiet()
  return studies.Study(workdir)


def load_run(workdir: str) -> saved_run.Run:
  """The training run saved in `workdir` (finished or still training).

  Raises:
    UsageError: no run there, or one this framework cannot read.
  """
  library_logs.quiet()
  compilation_cache.enable()  # Its policy compiles.
  with _bad_input():
    return saved_run.Run(workdir)


# `help(api.train)` and notebooks show every setting with its default.
train.__signature__ = settings_lib.with_settings(
    inspect.signature(train), train_settings.TrainSettings)


def _call(name: str, **arguments: Any) -> str:
  """How a workdir records the API call that made it."""
  return f'experiments.api.{name}(' + ', '.join(
      f'{k}={v!r}' for k, v in arguments.items()) + ')'


def compare(workdir: str, *, command: Optional[str] = None,
            **settings: Any) -> Dict[str, Any]:
  """Compares agents across environments and seeds, as
  `python -m experiments.compare`: trains every pair, writes `report.md`.

  `num_steps`: one count, `{env: count}` or the flag's text
  (`plane_strike:2000000,catch:20000`); environments left out get the
  largest budget their agents' presets were tuned at (`budgets`). `config`
  holds `--config.*` values: `{'learning_rate': 3e-4}` for every agent with
  that key, `{'ppo.learning_rate': 3e-4}` for one. `command` is what the
  workdir records as the call that made it (default: this call). Rerunning
  resumes, and with more `seeds` adds them; finished runs are skipped.

  Returns:
    The comparison (`Study`): `.report` is `report.json`'s dict (with
    `complete` and `left_out_runs`); `.curves`, `.plot()`, `.runs`.
  """
  library_logs.quiet()
  with _bad_input():
    s = _study_settings(study_settings.CompareSettings, settings, 'compare',
                        'A comparison')
    agents, envs, preset = s.agents, list(s.envs), list(s.preset or ())
    if agents is None:
      try:
        agents = build_lib.agents_for(envs)
      except ValueError as e:
        raise UsageError(f'--envs: {e}') from e
    common, per_agent = pair_settings.split_overrides(dict(s.config),
                                                      list(agents))
    comparison = comparison_lib.Comparison(
        agents=tuple(agents), envs=tuple(envs), num_seeds=s.seeds,
        num_steps=budgets.resolve(s.num_steps, list(agents), envs, preset),
        overrides=common, agent_overrides=per_agent,
        presets=tuple(preset), eval_points=s.eval_points,
        eval_episodes=s.eval_episodes,
        periodic_eval_episodes=s.periodic_eval_episodes,
        imports=tuple(user_modules.normalise(m) for m in s.imports),
        eval_protocol=evaluation.Protocol(s.eval_policy, s.eval_epsilon),
        checkpoint_every_seconds=s.checkpoint_every_seconds,
        wandb_project=s.wandb_project)
    run_launcher = launchers.make_launcher(
        s.launcher, s.ray_address, s.ray_num_cpus, s.ray_num_gpus,
        s.ray_max_retries)
    groups = comparison_lib.plan(comparison, workdir)
    # Checked before the lock creates the workdir: refused input leaves
    # no trace.
    comparison_lib.check_workdir(comparison, groups, workdir)
  lock = workdir_lock.WorkdirLock(workdir, 'comparison')
  lock.acquire()
  try:
    with _bad_input():
      comparison_lib.prepare_workdir(
          comparison, groups, workdir, command or _call(
              'compare', workdir=workdir, agents=list(agents), envs=envs,
              seeds=s.seeds, num_steps=s.num_steps))
    for warning in budgets.warnings(g.config for g in groups):
      print(f'WARNING: {warning}', flush=True)
    group_runner.run_pending(
        groups, run_launcher, driver.run_experiment,
        s.progress and s.launcher == 'local', lambda g: g.name,
        lambda done: (f'{len(groups)} run groups, {done} finished already; '
                      f'training {len(groups) - done}.'))
    return studies.Study(workdir, report.write_report(
        workdir, bootstrap_reps=s.bootstrap_reps))
  finally:
    lock.release()


def sweep(workdir: str, *, command: Optional[str] = None,
          **settings: Any) -> Dict[str, Any]:
  """Sweeps an agent's hyperparameters, as `python -m experiments.sweep`:
  trains every configuration, ranks them, trains the best again on
  `held_out_seeds` fresh seeds (None: as many as `seeds`; 0: not), writes
  `best_preset.json`.

  `grid` is `{'learning_rate': [1e-3, 3e-4], …}` or the `--grid` strings;
  `random` the `--random` strings; `max_memory_gb` None is half of this
  machine's memory.

  Returns:
    The sweep (`Study`): `.report` is its ranking (`sweep_results.json`'s
    dict), best configuration first; `.curves`, `.plot()`, `.runs`.
  """
  library_logs.quiet()
  with _bad_input():
    s = _study_settings(study_settings.SweepSettings, settings, 'sweep',
                        'A sweep')
    agent, env = s.agent, s.env
    agent_registry.get(agent)
    env_registry.check_name(env)
    grid_values = search_space.parse_grid(s.grid, agent)
    space = search_space.parse_random(list(s.random), agent)
    configurations = search_space.configurations(
        grid_values, space, s.num_random, agent, s.search_seed)
    chosen = preset_registry.resolve(s.preset, agent, env,
                                     s.preset_on_other_env)
    env_settings.check_values(env, dict(s.env_config))
    num_steps = s.num_steps or (chosen and chosen.num_steps)
    if num_steps is None:
      raise UsageError(f'--num_steps: {agent} on {env} has no preset with '
                       f'a step budget; give one.')
    plan = sweep_plan.Sweep(
        agent=agent, env=env, env_kwargs=dict(s.env_config),
        configurations=tuple(configurations),
        base={**(chosen.config if chosen else {}), **s.config},
        preset=chosen and chosen.name, num_seeds=s.seeds,
        num_steps=num_steps, eval_points=s.eval_points,
        eval_episodes=s.eval_episodes,
        periodic_eval_episodes=s.periodic_eval_episodes,
        network=chosen and chosen.network,
        hidden_sizes=chosen and chosen.hidden_sizes,
        num_envs=chosen and chosen.num_envs, wandb_project=s.wandb_project,
        eval_policy=s.eval_policy, eval_epsilon=s.eval_epsilon,
        preset_on_other_env=bool(chosen and chosen.env != env))
    groups, lanes = sweep_plan.plan(plan, workdir)
    sweep_plan.check_memory(groups, int(
        (s.max_memory_gb or sweep_plan.default_max_memory_gb()) * 2**30))
    run_launcher = launchers.make_launcher(s.launcher, s.ray_address, 1, 0,
                                           2)
  lock = workdir_lock.WorkdirLock(workdir, 'sweep')
  lock.acquire()
  try:
    with _bad_input():
      sweep_plan.prepare_workdir(plan, lanes, workdir, command or _call(
          'sweep', workdir=workdir, agent=agent, env=env, grid=s.grid,
          random=list(s.random), num_random=s.num_random, seeds=s.seeds,
          num_steps=num_steps, preset=s.preset,
          preset_on_other_env=s.preset_on_other_env))
    local = s.progress and s.launcher == 'local'
    group_runner.run_pending(
        groups, run_launcher, driver.run_experiment, local,
        lambda g: (f'{g.name}, {max(1, len(g.config.trials))} '
                   f'configuration(s)'), lambda done: (
            f'{len(configurations)} configurations × {s.seeds} seeds in '
            f'{len(groups)} programs, {done} finished already; training '
            f'{len(groups) - done}.'))
    ranked = ranking.write(workdir, s.bootstrap_reps)
    best = ranked['configurations'][0]
    held_out = s.held_out_seeds
    if held_out != 0 and best['complete'] and 'mean' in best:
      again = sweep_plan.held_out_groups(
          plan, best['configuration'], held_out or s.seeds, workdir)
      group_runner.run_pending(
          again, run_launcher, driver.run_experiment, local,
          lambda g: f'{g.name} (rank 1 on fresh seeds)', lambda done: (
              f'Rank 1 again on {held_out or s.seeds} fresh seeds.'))
      ranked = ranking.write(workdir, s.bootstrap_reps)
    return studies.Study(workdir, ranked)
  finally:
    lock.release()


# `help(api.compare)`, `help(api.sweep)` and notebooks show every setting
# with its default.
compare.__signature__ = settings_lib.with_settings(
    inspect.signature(compare), study_settings.CompareSettings)
sweep.__signature__ = settings_lib.with_settings(
    inspect.signature(sweep), study_settings.SweepSettings)


def export(workdir: str, **settings: Any) -> Dict[str, Any]:
  """Exports a run's policy to TFLite and verifies it against JAX, as
  `python -m experiments.export_tflite` (`export='trainable'`: a model
  that keeps learning on the device).

  Returns:
    The export's report (`tflite_path`, the verification's figures).
  """
  library_logs.quiet()
  compilation_cache.enable()  # As every run's (`setup.compilation_cache`).
  with _bad_input():
    s = settings_lib.build(export_settings.ExportSettings, settings,
                           ', and workdir for export')
    extras.require('export', 'Exporting to TFLite')
  if s.quantize and s.export == 'trainable':
    raise UsageError('--quantize applies to --export=plain; a trainable '
                     'model keeps float32 weights to train them.')
  try:
    return run_export.export(workdir, s)
  except build_lib.ExperimentError as e:  # Refused before any export.
    raise UsageError(str(e)) from e


export.__signature__ = settings_lib.with_settings(
    inspect.signature(export), export_settings.ExportSettings)


def load_policy(workdir: str,
                seed: Optional[int] = None) -> trained_policy.Policy:
  """The policy of `workdir`'s newest checkpoint (`seed`: which seed of a
  several-seed run; default the run's): `policy.predict(observation)` or
  `policy(observation)` gives the greedy action, one per row for a batch;
  `predict(..., deterministic=False, key=key)` samples."""
  library_logs.quiet()
  compilation_cache.enable()
  with _bad_input():
    return saved_run.Run(workdir).policy(seed)


def evaluate(policy: Any, episodes: int = 100, env: Optional[str] = None,
             env_config: Optional[Dict[str, Any]] = None,
             protocol: str = 'greedy', epsilon: float = 0.0, seed: int = 0,
             search_settings: Optional[Dict[str, Any]] = None
            ) -> trained_policy.Episodes:
  """Plays `episodes` episodes with `policy` (a `Policy`, a `Run` or a
  workdir: its newest checkpoint) on `env` (default: its own game and
  settings; `env_config` changes them), acting by `protocol` ('greedy',
  'sampled', 'epsilon_greedy' with `epsilon`, 'search' with
  `search_settings`: `trained_policy.play`), seeded by `seed`: each
  episode's return and length (`Episodes`).

  Raises:
    UsageError: a bad argument (named, with what works), before any game.
  """
  library_logs.quiet()
  compilation_cache.enable()
  with _bad_input():
    policy = saved_run.as_policy(policy)
  # `play` refuses bad input before any episode (a failure after is not).
  return trained_policy.play(policy, episodes, env, env_config, protocol,
                             epsilon, seed, search_settings)
