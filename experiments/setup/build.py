"""From an experiment config to the objects it describes: the environment
spec, the agent, the training loop and the environments of each role.

Shared by the driver, comparisons (which check every run before training)
and the exporter, so each builds a run the same way.
"""

import dataclasses
import functools
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import dm_env
import jax

from agents import agent as agent_lib
from agents import registry as agent_registry
from agents import search as search_lib
from environments import dm_env_wrapper
from environments import registry as env_registry
from environments import specs
from environments import two_player
from experiments.loops import compiled_training
from experiments.loops import device_mesh
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.loops import python_training
from experiments.loops import seeding
from experiments.setup import config as config_lib
from experiments.storage import wandb_logger
from networks import registry as network_registry


class ExperimentError(ValueError):
  """An experiment that cannot run as asked; raised before any training."""


# The periodic evaluations' default share of the training budget, and the
# most episodes one of them plays by default (`periodic_eval_episodes`).
EVAL_SHARE = 0.1
MAX_PERIODIC_EVAL_EPISODES = 100
# Episode length assumed of an environment without a JAX core (whose
# longest episode is not declared).
UNDECLARED_EPISODE_STEPS = 1000


@dataclasses.dataclass(frozen=True)
class Built:
  """The objects an experiment config describes.

  `periodic_eval_episodes`: the config's, or its default
  (`periodic_eval_episodes`)."""
  config: config_lib.ExperimentConfig
  environment_spec: specs.EnvironmentSpec
  agent: Any
  periodic_eval_episodes: int = MAX_PERIODIC_EVAL_EPISODES

  def environment(self, environment_seed: int) -> dm_env.Environment:
    """The config's environment, seeded with `environment_seed`."""
    return self.config.environment.environment(environment_seed,
                                               **self.config.env_kwargs)

  def export_environment(self, stream: int = 0) -> dm_env.Environment:
    """Games played through the exported model (`stream` > 0: other games
    of the same role, e.g. for fine-tuning it); a two-player game against
    its opponent, as evaluation plays it."""
    seed = seeding.environment_seed(self.config.seed, seeding.EXPORT,
                                    *([stream] if stream else []))
    if self.environment_spec.num_players == 1:
      return self.environment(seed)
    return dm_env_wrapper.DmEnvironment(two_player.evaluation_core(
        self.config.environment.core(**self.config.env_kwargs)), seed)

  def for_seed(self, seed: int) -> 'Built':
    """The same run as seen by one seed of a multi-seed run."""
    return dataclasses.replace(
        self, config=dataclasses.replace(self.config, seed=seed))


def build(config: config_lib.ExperimentConfig) -> Built:
  """Environment spec and agent for `config` (no training state yet).

  Raises:
    ExperimentError: if the agent (or the network) cannot act in the
      environment, or logging to W&B is asked for without `wandb`.
  """
  if config.wandb_project is not None:
    try:
      wandb_logger.check_installed()
    except (ImportError, wandb_logger.WandbError) as e:
      raise ExperimentError(str(e)) from e
  spec = environment_spec(config)
  if spec.num_players > 1 and config.loop == 'python':
    raise ExperimentError(
        f'--loop=python: {config.env} is a two-player game, which trains '
        f'and is evaluated against its opponent in the compiled loop only; '
        f'use --loop=compiled.')
  check_eval_protocol(config, spec)
  return Built(config, spec, make_agent(config, spec),
               periodic_eval_episodes(config))


def eval_protocol(config: config_lib.ExperimentConfig) -> evaluation.Protocol:
  """How the run's evaluations act (`--eval_policy`, `--eval_epsilon`)."""
  return evaluation.Protocol(config.eval_policy, config.eval_epsilon)


def check_eval_protocol(config: config_lib.ExperimentConfig,
                        spec: specs.EnvironmentSpec) -> None:
  """Refuses a protocol the agent cannot act by on this environment.

  Raises:
    ExperimentError: naming --eval_policy, the agent and what works.
  """
  why = protocol_refusal(config, spec, config.eval_policy)
  if why:
    raise ExperimentError(f'--eval_policy={config.eval_policy}: {why}. '
                          f'greedy works for every agent.')


def protocol_refusal(config: config_lib.ExperimentConfig,
                     spec: specs.EnvironmentSpec,
                     policy: str) -> Optional[str]:
  """Why the agent of `config` cannot act by the protocol `policy` on an
  environment of `spec` (None: it can)."""
  if policy == 'greedy':
    return None
  if policy == 'search':
    return _search_refusal(config)
  if spec.is_continuous:
    return (f'{config.env} has continuous actions, whose exported policy '
            f'is deterministic')
  if (policy == 'sampled' and
      config.agent_entry.network_kind in network_registry.Q_KINDS):
    return (f'{config.agent_entry.title} acts by its Q-values, with no '
            f'probabilities to sample (use epsilon_greedy)')
  return None


def _search_refusal(config: config_lib.ExperimentConfig) -> Optional[str]:
  """Why the agent of `config` cannot play by its search there (None: it
  can)."""
  agent = config.agent_entry
  if not issubclass(agent.config_class, search_lib.SearchSettings):
    searching = [n for n in agent_registry.names() if issubclass(
        agent_registry.get(n).config_class, search_lib.SearchSettings)]
    return (f'{agent.title} does not search; the search protocol plays the '
            f'search of {", ".join(searching)}')
  if agent.plans and not config.environment.has_core:
    return (f'{agent.title} searches with the game\'s JAX step, and '
            f'{config.env} has none')
  return None


def periodic_eval_episodes(config: config_lib.ExperimentConfig) -> int:
  """Greedy episodes of each periodic evaluation: the config's, or as many
  as keep all of them within `EVAL_SHARE` of the training budget, between
  1 and `MAX_PERIODIC_EVAL_EPISODES`.

  A budget in episodes compares episodes; one in steps compares steps,
  counting each evaluation episode at the game's longest (the JAX core's
  `max_episode_steps`; `UNDECLARED_EPISODE_STEPS` without a core): greedy
  episodes of a good policy often last that long. PPO on gymnax
  CartPole-v1 for 500k steps, evaluated 10 times, gets 10 episodes.
  """
  if config.periodic_eval_episodes is not None:
    return config.periodic_eval_episodes
  if config.num_steps is not None and config.eval_every_steps:
    budget, every = config.num_steps, config.eval_every_steps
    environment = config.environment
    per_episode = (environment.core(**config.env_kwargs).max_episode_steps
                   if environment.has_core else UNDECLARED_EPISODE_STEPS)
  elif config.num_episodes is not None and config.eval_every_episodes:
    budget, every, per_episode = (config.num_episodes,
                                  config.eval_every_episodes, 1)
  else:  # No periodic evaluation by the budget's measure.
    return MAX_PERIODIC_EVAL_EPISODES
  evaluations = max(1, budget // every)
  return int(min(MAX_PERIODIC_EVAL_EPISODES, max(
      1, EVAL_SHARE * budget // (evaluations * per_episode))))


def make_agent(config: config_lib.ExperimentConfig,
               spec: specs.EnvironmentSpec) -> agent_lib.Agent:
  """`config`'s agent for an environment of `spec` (building it computes
  nothing).

  Raises:
    ExperimentError: the agent does not act in the environment's action
      space, the network cannot take its observations, or the agent's
      config does not fit the environment (e.g. squashing actions into
      bounds it lacks).
  """
  agent = config.agent_entry
  try:  # Agent and environment must share an action space.
    agent.check_action_space(spec)
  except ValueError as e:
    raise ExperimentError(f'--env={config.env}: {e}') from e
  if spec.num_players > 1 and not agent.self_play:
    able = [n for n in agent_registry.names()
            if agent_registry.get(n).self_play]
    raise ExperimentError(
        f'--env={config.env}: agent {config.agent!r} plays alone; this is '
        f'a {spec.num_players}-player game, which agents learn by '
        f'self-play: {", ".join(able) or "none registered"}.')
  try:  # The network must take these observations (a conv needs images).
    agent.network_entry(config.network, spec)
  except ValueError as e:
    raise ExperimentError(f'network: {e}') from e
  model = planning_model(config)
  try:
    return agent.build(config.agent_config, spec,
                       config.resolved_hidden_sizes(), config.network,
                       model=model)
  except ValueError as e:
    raise ExperimentError(f'--agent={config.agent} on {config.env}: {e}'
                         ) from e


def planning_model(config: config_lib.ExperimentConfig) -> Any:
  """The JAX core a planning agent searches with (`AgentEntry.plans`);
  None for the others.

  Raises:
    ExperimentError: the environment has no JAX core, or hides part of
      its state from the player (search would see it).
  """
  if not config.agent_entry.plans:
    return None
  why = planning_refusal(config.agent, config.env, config.env_kwargs)
  if why:
    raise ExperimentError(why)
  return config.environment.core(**config.env_kwargs)


def planning_refusal(agent: str, env: str,
                     env_kwargs: Optional[Mapping[str, Any]] = None
                    ) -> Optional[str]:
  """Why planning agent `agent` cannot search in `env` (None: it can, or
  it does not plan): the game has no JAX core, or its state holds what a
  player may not see."""
  if not agent_registry.get(agent).plans:
    return None
  environment = env_registry.resolve(env)
  if not environment.has_core:
    return (f'--agent={agent} plans with the environment\'s own JAX step, '
            f'and {env} steps in Python. Train it on a game with a JAX core '
            f'({", ".join(env_registry.names())}, gymnax:<id>, pgx:<id>), '
            f'or use --agent=muzero, which plans with a model it learns.')
  core = environment.core(**(env_kwargs or {}))
  if (getattr(core, 'hidden_state', False) and
      not hasattr(core, 'sample_state')):
    return (f'--agent={agent} searches by stepping the game itself, and '
            f'{env} hides part of its state from the player (a search would '
            f'see it) and draws no states from what the player knows (a '
            f'core\'s sample_state). Use --agent=muzero, which plans with a '
            f'model it learns from what the player sees, or another agent, '
            f'e.g. --agent=ppo.')
  return None


def environment_spec(config: config_lib.ExperimentConfig
                    ) -> specs.EnvironmentSpec:
  """The spec of `config`'s environment (made, read, closed)."""
  return spec_of(config.environment, config.env_kwargs)


def spec_of(env: Union[str, env_registry.EnvironmentEntry],
            env_kwargs: Optional[Mapping[str, Any]] = None
           ) -> specs.EnvironmentSpec:
  """The spec of environment `env` (a name, or its entry) with settings
  `env_kwargs` (made, read, closed)."""
  if isinstance(env, str):
    env = env_registry.resolve(env)
  environment = env.environment(**(env_kwargs or {}))
  spec = specs.make_environment_spec(environment)
  environment.close()
  return spec


def agents_for(envs: Sequence[str]) -> List[str]:
  """The registered agents that act in the action space of every
  environment of `envs` (a comparison's default `--agents`)."""
  env_specs = {env: spec_of(env) for env in envs}
  spaces = {env: spec.action_space
            for env, spec in env_specs.items()}

  def plays_every_one(name):
    entry = agent_registry.get(name)
    return all(entry.self_play or spec.num_players == 1
               for spec in env_specs.values()) and not any(
                   planning_refusal(name, env) for env in envs)

  agents = [name for name in agent_registry.names()
            if set(spaces.values()) <= set(agent_registry.get(name).networks)
            and plays_every_one(name)]
  if not agents:
    described = ', '.join(
        f'{env} ({space or "unsupported"} actions'
        f'{", two-player" if env_specs[env].num_players > 1 else ""})'
        for env, space in spaces.items())
    raise ValueError(
        f'no registered agent plays every one of {described} (one action '
        f'space; two-player games need an agent that self-plays, games '
        f'hiding state one that does not search); name --agents, or compare '
        f'environments that agents share.')
  return agents


def network_name(config: config_lib.ExperimentConfig) -> str:
  """The network `build` gives the agent, as `result.json` records it:
  `config.network`, else the agent's default for the environment's
  observations (the conv network of its kind on images)."""
  return config.agent_entry.network_entry(
      config.network,
      None if config.network else environment_spec(config)).name


def seeds(config: config_lib.ExperimentConfig) -> list[int]:
  """The seed of each lane a config trains side by side (a sweep repeats
  them for each trial: every trial sees the same seeds)."""
  return [config.seed + i for _ in (config.trials or [None])
          for i in range(config.num_seeds)]


def lane_names(config: config_lib.ExperimentConfig) -> list[str]:
  """Each lane's directory under the workdir: `seed_<n>`, or for a sweep
  `trial_<t>/seed_<n>` (one lane, no sweep: the workdir itself, '')."""
  if not config.trials:
    if config.num_seeds == 1:
      return ['']
    return [f'seed_{s}' for s in seeds(config)]
  width = len(str(len(config.trials) - 1))
  return [f'trial_{t:0{width}d}/seed_{config.seed + i}'
          for t in range(len(config.trials))
          for i in range(config.num_seeds)]


def lane_trial(config: config_lib.ExperimentConfig,
               index: int) -> Optional[int]:
  """The sweep trial of lane `index`, or None without trials."""
  return index // config.num_seeds if config.trials else None


def _lane_values(config: config_lib.ExperimentConfig
                ) -> Dict[str, List[float]]:
  """Each trial's values, repeated for its seeds: `{key: [lanes]}`."""
  if not config.trials:
    return {}
  return {key: [float(trial[key]) for trial in config.trials
                for _ in range(config.num_seeds)]
          for key in config.trials[0]}


def make_loop(built: Built) -> interface.TrainingLoop:
  """The training loop `built.config.loop` names, at its initial state.

  Raises:
    ExperimentError: for loop settings the agent cannot take (e.g. a
      `num_envs` that does not divide its batch).
  """
  config = built.config
  if config.loop == 'python':
    return python_training.PythonTraining(built.agent, built.environment,
                                          config.seed,
                                          config.log_every_episodes,
                                          num_envs=config.num_envs,
                                          eval_protocol=eval_protocol(config),
                                          actor_thread=config.actor_thread,
                                          make_batch=functools.partial(
                                              config.environment.batch,
                                              **config.env_kwargs))
  core = config.environment.core(**config.env_kwargs)

  def lane_agent(values):
    return config.agent_entry.build(
        agent_registry.traced_config(config.agent_config, values),
        built.environment_spec, config.resolved_hidden_sizes(),
        config.network, model=core if config.agent_entry.plans else None)

  envs = config.num_envs
  try:
    device_mesh.check_devices_per_seed(
        config.devices_per_seed, envs,
        agent_registry.batch_splits(
            config.agent_config,
            recurrent=built.agent.recurrence is not None),
        len(jax.devices()), agent=config.agent_entry.title)
  except ValueError as e:
    raise ExperimentError(str(e)) from e
  try:
    return compiled_training.CompiledTraining(
        built.agent, built.environment_spec, core, envs, seeds(config),
        config.updates_per_chunk, config.log_every_episodes,
        config.log_every_steps,
        _lane_values(config), lane_agent if config.trials else None,
        devices_per_seed=config.devices_per_seed,
        eval_protocol=eval_protocol(config))
  except ValueError as e:
    raise ExperimentError(f'--num_envs: {e}') from e

