"""The settings of one training run as a person gives them, and the
`ExperimentConfig` they make.

Each setting is declared once, a field of `TrainSettings` with its default,
help and bounds: `experiments.train`'s flags (`cli.settings_flags`) and
`experiments.api.train`'s keywords are made from it, and both build the
run's config here, so the same settings give the same run.

The preset (`experiments.presets`) fills what the settings leave unset:
its agent config (under `config` overrides and the `learning_rate` and
`batch_size` shorthands), network, widths, environments per seed and, when
neither budget is given, its budget.
"""

import dataclasses
from typing import Any, Mapping, Optional, Sequence, Tuple

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.loops import evaluation
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import env_settings
from experiments.setup import extras
from experiments.setup import settings as settings_lib
from experiments.setup import user_modules


SettingError = settings_lib.SettingError
_setting = settings_lib.setting


_INTERVAL_DEFAULTS = (
    f'Default for each pair: {config_lib.LOG_POINTS} log rows and '
    f'{config_lib.EVAL_POINTS} evaluations over the budget, by steps when '
    f'--num_steps is set, else by episodes; setting one of a pair turns the '
    f'other off.')
_DEFAULTS = config_lib.ExperimentConfig
_PLANE_STRIKE = env_registry.resolve('plane_strike')


@dataclasses.dataclass(frozen=True)
class TrainSettings:
  """One training run's settings, named as `experiments.train`'s flags.

  Each field is the setting's one declaration (`_setting`), its flag's and
  `api.train` keyword's. `config` and `env_config` hold `--config.<key>`
  and `--env_config.<key>` values by key; `hidden_sizes` is a sequence of
  widths; `max_abs_param` 0 checks only finiteness.
  """
  agent: str = _setting(_DEFAULTS.agent, lambda: (
      f'Agent to train: one of {", ".join(agent_registry.names())}, or one '
      f'registered by --imports.'))
  env: str = _setting(_DEFAULTS.env, lambda: (
      f'Environment: one of {env_registry.describe_names()}, or one '
      f'registered by --imports.'))
  preset: Optional[str] = _setting(None, lambda: (
      'Tuned settings to start from: a preset name, a preset file (.json, '
      'e.g. written by experiments.sweep) or none (the agent\'s defaults); '
      'default: the agent\'s preset for --env, if it has one. --config.* '
      f'flags override its values. Presets: '
      f'{", ".join(preset_registry.names())}.'))
  preset_on_other_env: bool = _setting(
      False, 'Use a --preset tuned on another environment anyway (refused '
      'otherwise: its settings may not suit this one); the run\'s config '
      'records it.')
  config: Mapping[str, Any] = _setting(factory=dict, flag=False)
  env_config: Mapping[str, Any] = _setting(factory=dict, flag=False)
  learning_rate: Optional[float] = _setting(
      None, 'Shorthand for --config.learning_rate; default: the agent '
      'config\'s.')
  batch_size: Optional[int] = _setting(
      None, 'Shorthand for --config.batch_size: episodes per update '
      '(reinforce), sequences per update (a2c, ppo), SGD minibatch (dqn, '
      'sac); default: the agent config\'s.', lower=1)
  network: Optional[str] = _setting(
      None, 'A registered network of the kind the agent needs (e.g. '
      'mlp_policy for reinforce), or one registered by --imports; default: '
      'the agent\'s.')
  hidden_sizes: Optional[Sequence[int]] = _setting(
      None, 'Network hidden layer widths, e.g. 64,64; default: the '
      'environment\'s (Plane Strike: the reference 2·B², B² layout).')
  seed: int = _setting(0, 'Random seed, 0 to 2^63 - 1 (with '
                       '--num_seeds=K, seed + K - 1 at most that).',
                       lower=0, upper=config_lib.MAX_SEED)
  imports: Sequence[str] = _setting((), flag=False)
  num_steps: Optional[int] = _setting(
      None, 'Training budget in environment steps. With both budgets set, '
      'training stops at whichever is reached first.', lower=1)
  num_episodes: Optional[int] = _setting(
      None, 'Training budget in episodes; default: the preset\'s budget, '
      f'else {_DEFAULTS.num_episodes}, unless --num_steps is set.', lower=1)
  max_abs_param: float = _setting(
      _DEFAULTS.max_abs_param, 'Divergence guard: stop the run when any '
      'actor parameter exceeds this in magnitude (non-finite numbers always '
      'stop it); 0 checks only finiteness.', lower=0)
  eval_episodes: Optional[int] = _setting(
      None, 'Greedy episodes of the final evaluation, the run\'s score; '
      f'default: the environment\'s ({env_registry.DEFAULT_EVAL_EPISODES}; '
      f'Plane Strike: {_PLANE_STRIKE.eval_episodes}, as the app\'s model is '
      'judged).', lower=1)
  eval_every_steps: Optional[int] = _setting(
      None, 'Greedy evaluation (eval.csv) every this many environment steps '
      f'(0: not by steps). {_INTERVAL_DEFAULTS}', lower=0)
  eval_every_episodes: Optional[int] = _setting(
      None, f'... every this many episodes (0: not by episodes). '
      f'{_INTERVAL_DEFAULTS}', lower=0)
  periodic_eval_episodes: Optional[int] = _setting(
      _DEFAULTS.periodic_eval_episodes, 'Greedy episodes of each evaluation '
      'along the way; default: as many as keep all of them within about a '
      'tenth of the training budget (in environment steps, counting each '
      'episode at the game\'s longest), between 1 and 100.', lower=1)
  eval_policy: str = _setting(
      _DEFAULTS.eval_policy, 'How evaluation episodes are played: greedy '
      '(the most probable legal action, or the deterministic continuous '
      'one: what the exported model does), sampled (drawn from the '
      'policy\'s probabilities; policy agents on discrete actions) or '
      'epsilon_greedy (a uniform legal action with probability '
      '--eval_epsilon, else greedy; discrete actions) or search (the move '
      'the agent\'s search picks, without exploration: alphazero, muzero). '
      'Unset: as results on '
      'the game are reported: greedy, but on MinAtar sampled for policy '
      'agents and epsilon_greedy for value agents. Evaluation episodes '
      'always come from the seed\'s own evaluation stream, never its '
      'training one; result.json and the reports record the protocol.',
      choices=evaluation.PROTOCOLS)
  eval_epsilon: float = _setting(
      _DEFAULTS.eval_epsilon, '--eval_policy=epsilon_greedy\'s exploration '
      'rate, in [0, 1]. Unset: the agent\'s own (DQN: 0.05, its evaluation '
      'ε on Atari, Mnih et al., 2015; the policy agents use the same).',
      lower=0, upper=1)
  export_tflite: bool = _setting(
      True, 'Export the trained policy to TFLite and verify it against JAX '
      'in the LiteRT interpreter.')
  export_check_episodes: Optional[int] = _setting(
      None, 'Greedy games the exported model plays in the TFLite '
      'interpreter when verified (at most {max_check_steps:,} observations; '
      'each, and 1000 from random play, must match JAX within '
      '{tolerance:g}); default: the environment\'s '
      f'({env_registry.DEFAULT_EXPORT_CHECK_EPISODES}; Plane Strike: '
      f'{_PLANE_STRIKE.export_check_episodes}).', lower=1,
      facts=('max_check_steps', 'tolerance'))
  log_every_steps: Optional[int] = _setting(
      None, 'Write a row of train.csv (and TensorBoard) every this many '
      f'environment steps (0: not by steps). {_INTERVAL_DEFAULTS}', lower=0)
  log_every_episodes: Optional[int] = _setting(
      None, f'... every this many episodes (0: not by episodes). '
      f'{_INTERVAL_DEFAULTS}', lower=0)
  checkpoint_every_seconds: float = _setting(
      _DEFAULTS.checkpoint_every_seconds, 'Checkpoint at least this often '
      '(wall time; also every --checkpoint_every_updates, and first after '
      'about 10 s of training), so a killed run loses at most about this '
      'much work.', lower=1)
  checkpoint_every_updates: Optional[int] = _setting(
      None, 'Also checkpoint every this many updates (default: by wall time '
      'only, --checkpoint_every_seconds).', lower=1)
  keep_checkpoints: int = _setting(
      _DEFAULTS.keep_checkpoints, 'How many of the newest checkpoints to '
      'keep (0: every one, e.g. for an Elo ladder of them: python -m '
      'experiments.ladder). Default: 2 for a new run; a resumed run keeps '
      'as many as it was started with.', lower=0)
  wandb_project: Optional[str] = _setting(
      None, 'Also log to this Weights & Biases project (needs the wandb '
      'extra: pip install -e \'.[wandb]\').')
  loop: Optional[str] = _setting(
      None, 'compiled: acting, stepping and learning in one XLA program '
      '(environments with a JAX core); python: the dm_env loop (any '
      'environment). Default: compiled when possible.',
      choices=config_lib.LOOPS)
  num_envs: Optional[int] = _setting(
      None, 'Environments per seed, stepped side by side. Compiled loop: '
      'must divide the agent\'s sequences per update (default: that '
      'number). Python loop: any number (default 1), one batched act per '
      'step; a resumed run goes on exactly where every environment was '
      'between episodes (one environment always is), else restarts them on '
      'fresh episodes.', lower=1)
  actor_thread: bool = _setting(
      False, 'Python loop: act in a thread of its own that runs ahead of '
      'the learner, handing it batches through a queue (IMPALA\'s Sebulba '
      'pattern; agents that correct stale actors: impala). Each update logs '
      'actor_lag, the updates since the params that acted its batch.')
  num_seeds: int = _setting(
      1, 'Compiled loop: train seeds --seed … --seed+K-1 side by side in one '
      'program, sharded over the local devices; each gets '
      '<workdir>/seed_<n>/.', lower=1)
  devices_per_seed: int = _setting(
      1, 'Compiled loop: split each seed\'s environments and batch over this '
      'many devices (data parallel: gradients averaged over them; each '
      'update as on one device, to float rounding). Must divide --num_envs '
      'and the agent\'s split sizes (PPO: its minibatch; DQN: batch_size); '
      '--num_seeds seeds take rows of this many devices, across hosts with '
      '--coordinator_address.', lower=1)
  updates_per_chunk: Optional[int] = _setting(
      None, 'Compiled loop: updates per log row, at most; default: one '
      'logging interval, cut into equal parts of at most about 64k '
      'environment steps. A host call runs about a second of rows.',
      lower=1)


def names() -> Tuple[str, ...]:
  """The settings' names, in order."""
  return settings_lib.names(TrainSettings)


def _check_values(settings: TrainSettings) -> None:
  """What the flags' own parsers and validators check beyond each scalar's
  type and bounds (`settings.build` checks those)."""
  if settings.hidden_sizes is not None and (
      isinstance(settings.hidden_sizes, (str, bytes)) or
      not isinstance(settings.hidden_sizes, Sequence) or not all(
          isinstance(s, int) and not isinstance(s, bool) and s > 0
          for s in settings.hidden_sizes)):
    raise SettingError(f'--hidden_sizes: must be positive integers, e.g. '
                       f'(64, 64); got {settings.hidden_sizes!r}.')
  if settings.export_tflite:
    try:
      extras.require('export', '--export_tflite (on by default)',
                     'or pass --noexport_tflite')
    except extras.MissingExtra as e:
      raise SettingError(str(e)) from e


def experiment_config(settings: TrainSettings
                     ) -> config_lib.ExperimentConfig:
  """The run's config: the preset's values, then the settings'.

  Raises:
    SettingError: naming the bad setting and what is valid, before
      anything is built or written.
  """
  _check_values(settings)
  try:
    user_modules.import_modules(settings.imports)
  except ValueError as e:
    raise SettingError(str(e)) from e
  try:
    agent_registry.get(settings.agent)
  except ValueError as e:
    raise SettingError(f'--agent: {e}') from e
  try:
    environment = env_registry.resolve(settings.env)
  except ValueError as e:
    raise SettingError(f'--env: {e}') from e
  try:
    preset = preset_registry.resolve(settings.preset, settings.agent,
                                     settings.env,
                                     settings.preset_on_other_env)
  except ValueError as e:
    raise SettingError(f'--preset: {e}') from e
  shorthands = {key: getattr(settings, key)
                for key in ('learning_rate', 'batch_size')
                if getattr(settings, key) is not None}
  try:
    agent_config = agent_registry.make_config(
        settings.agent, **{**(preset.config if preset else {}),
                           **settings.config, **shorthands})
  except (TypeError, ValueError) as e:
    named = [key for key in shorthands if f'.{key} ' in str(e)]
    raise SettingError(f'--{named[0] if named else "config"}: {e}') from e
  try:
    env_settings.check_values(settings.env, settings.env_config)
  except ValueError as e:
    raise SettingError(str(e)) from e
  try:
    config = _config(settings, agent_config, preset, environment.has_core)
  except (TypeError, ValueError) as e:
    raise SettingError(f'Bad setting: {e}') from e
  if settings.eval_epsilon is not None and (
      config.eval_policy != 'epsilon_greedy'):
    raise SettingError(
        f'--eval_epsilon: applies to --eval_policy=epsilon_greedy only; '
        f'this run evaluates with {config.eval_policy!r}. Set '
        f'--eval_policy=epsilon_greedy, or leave --eval_epsilon unset.')
  return config


def _config(settings: TrainSettings, agent_config: Any,
            preset: Optional[preset_registry.Preset], has_core: bool
           ) -> config_lib.ExperimentConfig:
  num_episodes, num_steps = settings.num_episodes, settings.num_steps
  if num_episodes is None and num_steps is None:
    if preset is not None:
      num_episodes, num_steps = preset.num_episodes, preset.num_steps
    else:
      num_episodes = config_lib.ExperimentConfig.num_episodes
  preset_envs = (preset.num_envs if preset and settings.loop != 'python' and
                 has_core else None)
  hidden_sizes = (None if settings.hidden_sizes is None
                  else tuple(settings.hidden_sizes))
  return config_lib.ExperimentConfig(
      agent=settings.agent,
      env=settings.env,
      seed=settings.seed,
      agent_config=agent_config,
      preset=preset and preset.name,
      preset_on_other_env=bool(preset and preset.env != settings.env),
      env_kwargs=dict(settings.env_config),
      network=settings.network or (preset and preset.network),
      hidden_sizes=hidden_sizes or (preset and preset.hidden_sizes),
      num_episodes=num_episodes,
      num_steps=num_steps,
      eval_episodes=settings.eval_episodes,
      export_check_episodes=settings.export_check_episodes,
      **{key: getattr(settings, key)
         for key in config_lib.INTERVAL_KEYS + ('periodic_eval_episodes',)},
      eval_policy=settings.eval_policy,
      eval_epsilon=settings.eval_epsilon,
      export_tflite=settings.export_tflite,
      loop=settings.loop,
      num_envs=settings.num_envs or preset_envs,
      actor_thread=settings.actor_thread,
      num_seeds=settings.num_seeds,
      devices_per_seed=settings.devices_per_seed,
      updates_per_chunk=settings.updates_per_chunk,
      checkpoint_every_updates=settings.checkpoint_every_updates,
      keep_checkpoints=settings.keep_checkpoints,
      checkpoint_every_seconds=settings.checkpoint_every_seconds,
      max_abs_param=settings.max_abs_param or None,
      imports=tuple(user_modules.normalise(entry)
                    for entry in settings.imports),
      wandb_project=settings.wandb_project)
