"""Experiment configuration: environment, agent, network and run settings."""

import dataclasses
import functools
from typing import Any, Dict, Mapping, Optional, Tuple

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.setup import eval_defaults
from experiments.setup import user_modules

# Changing these makes a different experiment; the rest (budget, logging,
# export) may change when a run is resumed.
IDENTITY_KEYS = ('agent', 'env', 'seed', 'env_kwargs', 'network',
                 'hidden_sizes', 'agent_config', 'loop', 'num_envs',
                 'num_seeds', 'trials')
LOOPS = ('compiled', 'python')
# Checkpoints a new run keeps unless `keep_checkpoints` says otherwise.
KEPT_CHECKPOINTS = 2
# Logging and periodic evaluation intervals (0: off; None: from the budget).
INTERVAL_KEYS = ('log_every_episodes', 'log_every_steps',
                 'eval_every_episodes', 'eval_every_steps')
# Default rows of train.csv over a run (the compiled loop cuts a row of more
# than ~64k steps into equal parts: `loops.row_plans.CHUNK_STEPS`).
LOG_POINTS = 30
EVAL_POINTS = 10  # Default periodic evaluations over a run.
# Budgets and intervals the counters hold exactly (the compiled loop counts
# in two int32 words, `loops.wide_counters`; 2^60 steps is centuries).
MAX_COUNT = 1 << 60
# Seeds become int64 PRNG seeds.
MAX_SEED = (1 << 63) - 1


@dataclasses.dataclass(frozen=True)
class ExperimentConfig:
  """Everything one training run needs.

  Attributes:
    agent: a registered agent's name (`agents.registry.names()`).
    env: environment name: a registered game or a suite's id (`gymnax:`,
      `pgx:`, `brax:`, `bsuite:`, `gym:`). Each name is resolved once, to
      `agent_entry` and `environment`, the registries' entries.
    seed: seeds the agent, the actor and the environment.
    agent_config: the agent's config dataclass; None means its defaults.
      Settings derived from the budget (e.g. PPO's `anneal_learning_rate`)
      are filled in here (`agents.registry.fit_to_budget`).
    preset: the name of the preset the settings came from
      (`experiments.presets`), or None; a record, applied by the caller.
    preset_on_other_env: the preset was tuned on another environment and
      used here anyway (`--preset_on_other_env`); a record.
    env_kwargs: keyword arguments of the environment factory.
    network: a registered network of the kind the agent needs
      (`networks.registry`); None means the agent's default network.
    hidden_sizes: network hidden layers; None means the environment's
      default (`environments.registry.hidden_sizes`), else the network's.
    num_episodes: training budget in episodes; None: no episode limit.
    num_steps: budget in environment steps; None: no step limit. Training
      stops at whichever budget is reached first; at least one is needed.
    eval_episodes: greedy episodes of the final evaluation (the run's
      score); None: the environment's default
      (`EnvironmentEntry.eval_episodes`: 100, Plane Strike 1000).
    export_check_episodes: greedy games the exported TFLite model plays in
      the interpreter when it is verified (every observation of them, and
      1000 from random play, are compared with JAX); None: the
      environment's default (10; Plane Strike, the app's contract: 1000).
    eval_every_episodes: periodic greedy evaluation every this many
      episodes (0 disables).
    eval_every_steps: periodic greedy evaluation every this many environment
      steps (0 disables); with both set, either one triggers it. Both None:
      `EVAL_POINTS` evaluations over the budget, by steps when `num_steps`
      is set, else by episodes (`resolved_intervals`); one set: the other
      is off.
    periodic_eval_episodes: episodes of each periodic evaluation; None:
      as many as keep them all within about a tenth of the training budget,
      from 1 to 100 (`setup.build.periodic_eval_episodes`).
    eval_policy: how evaluations act (`loops.evaluation.PROTOCOLS`):
      greedy (what the exported model does), sampled (from the policy's
      probabilities; policy agents on discrete actions) or epsilon_greedy
      (discrete actions). Episodes come from the seed's own evaluation
      stream, never its training one. None: as the field reports the game
      (`setup.eval_defaults`: greedy, but the acting policy on MinAtar).
    eval_epsilon: epsilon_greedy's exploration rate; None: 0.05
      (`setup.eval_defaults.EPSILON`: DQN's on Atari, Mnih et al., 2015).
    log_every_episodes: scalars go to the loggers every this many episodes
      (0: not by episodes).
    log_every_steps: ... every this many environment steps (0: not by
      steps). Both None: `LOG_POINTS` rows over the budget, by steps when
      `num_steps` is set, else by episodes; one set: the other is off.
      The compiled loop logs after whole updates, so an agent learning
      from whole episodes may log somewhat more often than asked.
    checkpoint_every_updates: also checkpoint every this many updates; None
      (the default): by wall time only (`checkpoint_every_seconds`), so
      that agents with many small updates (DQN) do not stop to save every
      few hundred steps.
    checkpoint_every_seconds: also checkpoint once this much wall time has
      passed since the last checkpoint, and after the first stretch of
      training, so that a killed run loses at most about this much work.
    keep_checkpoints: how many of the newest checkpoints a run keeps; 0:
      every one (an Elo ladder plays them against each other,
      `experiments.ladder`); None: `KEPT_CHECKPOINTS` for a new run, and
      for a resumed one what it was started with (so that resuming does
      not prune the checkpoints it kept).
    max_abs_param: the divergence guard's limit on |actor parameter|
      (`driver.divergence`); None checks only that numbers stay finite.
    export_tflite: export and verify a TFLite policy at the end.
    loop: 'compiled' (the whole training in one XLA program; needs a JAX
      core) or 'python' (the dm_env loop; any environment). None picks
      'compiled' whenever the environment has a JAX core.
    num_envs: environments per seed, acting in one batched call. None
      resolves here, and only here: compiled loop, to the agent's batch
      (`agents.registry.environments_per_update`), which `num_envs` must
      divide; Python loop, to 1 (`loops.python_training`: resume).
    actor_thread: Python loop: act in a thread of its own, ahead of the
      learner through a queue of batches (Sebulba), for agents that
      correct stale actors (`AgentEntry.learns_from_stale_actors`); each
      update logs its `actor_lag` (`loops.actor_thread`).
    num_seeds: independent runs, seeds `seed … seed + num_seeds - 1`,
      trained side by side in one program (compiled loop).
    devices_per_seed: devices one seed's environments and batch are split
      over (compiled loop; data parallel: each device acts in its share
      and the agent averages over them, `agents.data_parallel`). It must
      divide `num_envs` and the agent's own batch sizes
      (`agents.registry.batch_splits`); seeds then take rows of this many
      devices. Each update equals the one-device update to float
      rounding (which can compound over a long run).
    updates_per_chunk: updates per log row of the compiled loop, at most;
      None picks one logging interval, cut evenly into parts of about 64k
      steps. A host call runs about a second of rows
      (`loops.row_plans`).
    imports: Python modules imported before the names above are looked up:
      they register a user's own environments, networks and agents.
    wandb_project: also log to this Weights & Biases project (the `wandb`
      extra); None: TensorBoard and CSV only.
    trials: a sweep's configurations, trained side by side with every seed
      in one program (compiled loop): each maps some of the agent's
      `sweepable_keys` (the same keys in every trial) to its values, which
      replace `agent_config`'s. Lane `t · num_seeds + i` is trial t, seed
      `seed + i`. Empty: one configuration, `agent_config`.
  """
  agent: str = 'ppo'
  env: str = 'plane_strike'
  seed: int = 0
  agent_config: Any = None
  preset: Optional[str] = None
  preset_on_other_env: bool = False
  env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  network: Optional[str] = None
  hidden_sizes: Optional[Tuple[int, ...]] = None
  num_episodes: Optional[int] = 30_000
  num_steps: Optional[int] = None
  eval_episodes: Optional[int] = None
  export_check_episodes: Optional[int] = None
  eval_every_episodes: Optional[int] = None
  eval_every_steps: Optional[int] = None
  periodic_eval_episodes: Optional[int] = None
  eval_policy: Optional[str] = None
  eval_epsilon: Optional[float] = None
  log_every_episodes: Optional[int] = None
  log_every_steps: Optional[int] = None
  checkpoint_every_updates: Optional[int] = None
  checkpoint_every_seconds: float = 60.0
  keep_checkpoints: Optional[int] = None
  max_abs_param: Optional[float] = 1e6
  export_tflite: bool = True
  loop: Optional[str] = None
  num_envs: Optional[int] = None
  actor_thread: bool = False
  num_seeds: int = 1
  devices_per_seed: int = 1
  updates_per_chunk: Optional[int] = None
  imports: Tuple[str, ...] = ()
  wandb_project: Optional[str] = None
  trials: Tuple[Mapping[str, float], ...] = ()

  def __post_init__(self):
    object.__setattr__(self, 'imports', tuple(self.imports))
    object.__setattr__(self, 'trials', tuple(
        dict(sorted(t.items())) for t in self.trials))
    user_modules.import_modules(self.imports)  # They may register names.
    agent = self.agent_entry  # Fails fast, listing valid agents.
    environment = self.environment  # Fails fast, listing valid names.
    try:
      agent.network_entry(self.network)
    except ValueError as e:
      raise ValueError(f'network: {e}') from e
    if self.agent_config is None:
      object.__setattr__(self, 'agent_config', agent.make_config())
    elif not isinstance(self.agent_config, agent.config_class):
      raise ValueError(
          f'agent_config is a {type(self.agent_config).__name__}, but agent '
          f'{self.agent!r} needs a {agent.config_class.__name__}.')
    object.__setattr__(self, 'agent_config', agent_registry.fit_to_budget(
        self.agent_config, self.num_steps))
    if self.eval_episodes is None:
      object.__setattr__(self, 'eval_episodes', environment.eval_episodes)
    if self.export_check_episodes is None:
      object.__setattr__(self, 'export_check_episodes',
                         environment.export_check_episodes)
    for name in ('eval_episodes', 'export_check_episodes',
                 'periodic_eval_episodes'):
      if getattr(self, name) is not None and getattr(self, name) < 1:
        raise ValueError(f'{name} must be >= 1; got {getattr(self, name)}.')
    for name in ('num_episodes', 'num_steps', 'checkpoint_every_updates'
                ) + INTERVAL_KEYS:
      value = getattr(self, name)
      if value is not None and value > MAX_COUNT:
        raise ValueError(f'{name} must be at most 2^60 ({MAX_COUNT}), the '
                         f'largest count training keeps exactly; got '
                         f'{value}.')
      lowest = 0 if name in INTERVAL_KEYS else 1
      if value is not None and value < lowest:
        raise ValueError(f'{name} must be >= {lowest}; got {value}.')
    if self.keep_checkpoints is not None and (
        isinstance(self.keep_checkpoints, bool) or
        not isinstance(self.keep_checkpoints, int) or
        self.keep_checkpoints < 0):
      raise ValueError(f'keep_checkpoints must be an integer >= 0 (0: '
                       f'every one); got {self.keep_checkpoints!r}.')
    if not (isinstance(self.checkpoint_every_seconds, (int, float)) and
            0 < self.checkpoint_every_seconds < float('inf')):
      raise ValueError(f'checkpoint_every_seconds must be a finite number '
                       f'> 0; got {self.checkpoint_every_seconds!r}.')
    if self.max_abs_param is not None and not (
        isinstance(self.max_abs_param, (int, float)) and
        0 < self.max_abs_param < float('inf')):
      raise ValueError(f'max_abs_param must be a finite number > 0 or None; '
                       f'got {self.max_abs_param!r}.')
    if self.num_episodes is None and self.num_steps is None:
      raise ValueError('Set num_episodes or num_steps (or both): training '
                       'needs a budget.')
    for key, value in resolved_intervals(self).items():
      object.__setattr__(self, key, value)
    if self.hidden_sizes is not None:
      object.__setattr__(self, 'hidden_sizes', tuple(self.hidden_sizes))
    self._check_loop()
    protocol = eval_defaults.protocol(agent, environment, self.eval_policy,
                                      self.eval_epsilon)
    object.__setattr__(self, 'eval_policy', protocol.policy)
    object.__setattr__(self, 'eval_epsilon', protocol.epsilon)
    if not 0 <= self.seed <= MAX_SEED - (self.num_seeds - 1):
      raise ValueError(
          f'seed must be between 0 and 2^63 - 1 (an int64 PRNG seed), the '
          f'last of num_seeds={self.num_seeds} seeds too; got {self.seed}.')
    self._check_trials()

  @functools.cached_property
  def environment(self) -> env_registry.EnvironmentEntry:
    """`env`'s entry: the game's facts and factories."""
    return env_registry.resolve(self.env)

  @functools.cached_property
  def agent_entry(self) -> agent_registry.AgentEntry:
    """`agent`'s entry: its config class, networks and factory."""
    return agent_registry.get(self.agent)

  def _check_trials(self) -> None:
    if not self.trials:
      return
    if self.loop != 'compiled':
      raise ValueError('trials (a sweep in one program) need loop=compiled; '
                       'sweeps of Python-loop environments run one program '
                       'per configuration.')
    sweepable = self.agent_entry.sweepable_keys()
    keys = set(self.trials[0])
    for t, trial in enumerate(self.trials):
      if set(trial) != keys:
        raise ValueError(f'trials[{t}] sets {sorted(trial)}, trials[0] '
                         f'{sorted(keys)}: every trial sets the same keys.')
      for key, value in trial.items():
        if key not in sweepable:
          raise ValueError(
              f'trials[{t}]: {key!r} cannot vary inside one program for '
              f'agent {self.agent!r} (it is not a float setting, or changes '
              f'shapes); keys that can: {", ".join(sweepable)}.')
        if isinstance(value, bool) or not isinstance(value, (int, float)):
          raise ValueError(f'trials[{t}]: {key} must be a number; got '
                           f'{value!r}.')
      self.trial_config(t)  # Validates the trial's values.

  def trial_config(self, trial: int) -> Any:
    """The agent config of sweep trial `trial` (validated)."""
    values = dataclasses.asdict(self.agent_config)
    values.update(self.trials[trial])
    try:
      return self.agent_entry.make_config(**values)
    except ValueError as e:
      raise ValueError(f'trials[{trial}]: {e}') from e

  def _check_loop(self) -> None:
    compiled_ok = self.environment.has_core
    if self.loop is None:
      object.__setattr__(self, 'loop',
                         'compiled' if compiled_ok else 'python')
    if self.loop not in LOOPS:
      raise ValueError(f'loop must be one of {LOOPS}; got {self.loop!r}.')
    if self.loop == 'compiled' and not compiled_ok:
      raise ValueError(
          f'loop=compiled needs an environment with a JAX core (one of '
          f'{", ".join(env_registry.with_core())}); {self.env!r} steps in '
          f'Python. Use loop=python.')
    if self.num_envs is None:  # The one place that says what None means.
      object.__setattr__(self, 'num_envs', 1 if self.loop == 'python' else
                         agent_registry.environments_per_update(
                             self.agent_config))
    for name in ('num_envs', 'updates_per_chunk', 'num_seeds',
                 'devices_per_seed'):
      value = getattr(self, name)
      if value is not None and value < 1:
        raise ValueError(f'{name} must be >= 1; got {value}.')
    if self.agent_entry.plans and not compiled_ok:
      raise ValueError(
          f'env={self.env!r} steps in Python, and agent {self.agent!r} '
          f'searches with the environment\'s own JAX step: train it on a '
          f'game with a JAX core (one of {", ".join(env_registry.names())}, '
          f'gymnax:<id> or pgx:<id>), or use agent=muzero, which plans '
          f'with a model it learns.')
    if self.agent_entry.plans and self.loop == 'python':
      raise ValueError(
          f'loop=python: agent {self.agent!r} searches from the '
          f'environments\' states, which only the compiled loop holds; use '
          f'loop=compiled, or agent=muzero, which plans with a model it '
          f'learns in either loop.')
    if self.actor_thread and self.loop != 'python':
      raise ValueError('actor_thread needs loop=python: the compiled loop '
                       'acts and learns in one program. Use loop=python.')
    if self.actor_thread:
      self.agent_entry.check_stale_actors('actor_thread')
    if self.loop == 'python':
      for name, default in (('num_seeds', 1), ('devices_per_seed', 1),
                            ('updates_per_chunk', None)):
        if getattr(self, name) != default:
          raise ValueError(
              f'{name} needs loop=compiled: the Python loop trains one '
              f'seed in one process. Use loop=compiled (environments '
              f'with a JAX core) or leave {name} unset.')

  def to_dict(self) -> dict:
    """JSON-ready dict, as saved in the workdir."""
    return dataclasses.asdict(self) | {'env_kwargs': dict(self.env_kwargs),
                                       'imports': list(self.imports),
                                       'trials': [dict(t) for t in
                                                  self.trials]}

  def resolved_hidden_sizes(self) -> Optional[Tuple[int, ...]]:
    """The widths the network gets: `hidden_sizes`, else the environment's
    default (e.g. Plane Strike's reference layout); None: the network's."""
    if self.hidden_sizes is not None:
      return self.hidden_sizes
    return self.environment.default_hidden_sizes(self.env_kwargs)


def resolved_intervals(config: ExperimentConfig) -> Dict[str, int]:
  """The logging and evaluation intervals, defaults filled in.

  A pair (by episodes, by steps) left unset gets `points` intervals over the
  budget: by steps when `num_steps` is set (the budget the loop counts
  most finely), else by episodes; with one of a pair set, the other is off
  (0). So a 300k-step run logs every 10,000 steps and evaluates every
  30,000, and a 30,000-episode run logs every 1,000 episodes and evaluates
  every 3,000.
  """
  resolved = {}
  for what, points in (('log', LOG_POINTS), ('eval', EVAL_POINTS)):
    episodes_key, steps_key = f'{what}_every_episodes', f'{what}_every_steps'
    episodes = getattr(config, episodes_key)
    steps = getattr(config, steps_key)
    if episodes is None and steps is None:
      if config.num_steps is not None:
        episodes, steps = 0, max(1, config.num_steps // points)
      else:
        episodes, steps = max(1, config.num_episodes // points), 0
    resolved[episodes_key] = episodes or 0
    resolved[steps_key] = steps or 0
  return resolved


def identity_mismatch(saved: Mapping[str, Any],
                      config: ExperimentConfig) -> dict:
  """Identity keys whose values differ between a saved and a new config.

  An agent-config key the saved config lacks counts as its default: the
  key was added to the agent since (e.g. PPO's `reward_scale`), and a run
  saved before trained with what its default does.
  """
  current = config.to_dict()
  saved_agent = saved.get('agent_config')
  if isinstance(saved_agent, Mapping) and saved.get('agent') == config.agent:
    defaults = dataclasses.asdict(config.agent_entry.config_class())
    saved = dict(saved, agent_config={
        **{k: v for k, v in defaults.items() if k not in saved_agent},
        **saved_agent})
  normalise = lambda v: list(v) if isinstance(v, tuple) else v
  return {
      key: (saved.get(key), current[key])
      for key in IDENTITY_KEYS
      if normalise(saved.get(key)) != normalise(current[key])
  }
