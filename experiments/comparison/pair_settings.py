"""The settings of one agent × environment pair of a comparison.

Each agent runs at its best known settings: the pair's preset (unless the
comparison names other presets, or none), then the comparison's overrides
for every agent that has the key, then the overrides for that agent alone
(`--config.<agent>.<key>`). The comparison's budget and evaluation apply to
every pair alike.
"""

import dataclasses
from typing import Any, Dict, Mapping, Optional, Sequence

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.loops import evaluation
from experiments.presets import preset as preset_lib
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib


def config_keys(agent: str) -> set:
  return {f.name for f in
          dataclasses.fields(agent_registry.get(agent).config_class)}


def split_overrides(values: Mapping[str, Any], agents: Sequence[str]
                   ) -> tuple[Dict[str, Any], Dict[str, Dict[str, Any]]]:
  """`--config.*` values as (for every agent, per agent): a key
  `<agent>.<key>` goes to that agent alone."""
  common, per_agent = {}, {}
  for key, value in values.items():
    agent, _, inner = key.partition('.')
    if inner and agent in agents:
      per_agent.setdefault(agent, {})[inner] = value
    else:
      common[key] = value
  return common, per_agent


def check_overrides(agents: Sequence[str], common: Mapping[str, Any],
                    per_agent: Mapping[str, Mapping[str, Any]]) -> None:
  """Raises ValueError for a key no agent of `agents` has (common), or
  that its agent lacks (per agent), naming the valid keys."""
  used = set()
  for agent in agents:
    used.update(set(common) & config_keys(agent))
  unused = sorted(set(common) - used)
  if unused:
    valid = sorted(set().union(*(config_keys(a) for a in agents)))
    raise ValueError(
        f'--config.{unused[0]}: no agent of --agents ({",".join(agents)}) '
        f'has config key(s) {unused}. Valid keys: {", ".join(valid)}; '
        f'--config.<agent>.<key> sets one agent\'s.')
  for agent, values in per_agent.items():
    unknown = sorted(set(values) - config_keys(agent))
    if unknown:
      raise ValueError(
          f'--config.{agent}.{unknown[0]}: agent {agent!r} has no config '
          f'key(s) {unknown}. Valid keys: '
          f'{", ".join(sorted(config_keys(agent)))}.')


def choose_preset(presets: Sequence[str], agent: str,
                  env: str) -> Optional[preset_registry.Preset]:
  """The preset of one pair: one of `presets` (names or files) made for
  this agent and environment, else the pair's default; none with
  `presets == ('none',)`."""
  if tuple(presets) == (preset_registry.NONE,):
    return None
  for value in presets:
    preset = preset_registry.resolve(value, agent, env, other_env=True) if (
        _preset_agent(value) == agent) else None
    if preset is not None and preset.env == env:
      return preset
  return preset_registry.default_for(agent, env)


def _preset_agent(value: str) -> str:
  """The agent a `--preset` value is for (read from its file or entry)."""
  if preset_registry.is_file(value):
    return preset_lib.read_file(value).agent
  return preset_registry.get(value).agent


def check_presets(presets: Sequence[str], agents: Sequence[str],
                  envs: Sequence[str]) -> None:
  """Raises ValueError for a preset that is unknown, unreadable, or made
  for no pair of the comparison."""
  if preset_registry.NONE in presets and len(presets) > 1:
    raise ValueError(f'--preset: {preset_registry.NONE} excludes naming '
                     f'presets; got {list(presets)}.')
  if tuple(presets) == (preset_registry.NONE,):
    return
  for value in presets:
    agent = _preset_agent(value)
    preset = preset_registry.resolve(value, agent, '', other_env=True)
    if agent not in agents or preset.env not in envs:
      raise ValueError(
          f'--preset: {value!r} is for {agent} on {preset.env}, which is '
          f'not a pair of --agents {",".join(agents)} × --envs '
          f'{",".join(envs)}.')


def experiment_config(agent: str, env: str, *, num_steps: int,
                      eval_points: int, eval_episodes: int,
                      periodic_eval_episodes: int,
                      checkpoint_every_seconds: float,
                      imports: Sequence[str], presets: Sequence[str],
                      wandb_project: Optional[str] = None,
                      eval_protocol: evaluation.Protocol = (
                          evaluation.RUN_DEFAULT),
                      common: Mapping[str, Any],
                      per_agent: Mapping[str, Mapping[str, Any]]
                     ) -> config_lib.ExperimentConfig:
  """Seed 0's config of one pair (see the module docstring)."""
  preset = choose_preset(presets, agent, env)
  keys = config_keys(agent)
  values = dict(preset.config) if preset else {}
  values.update({k: v for k, v in common.items() if k in keys})
  values.update(per_agent.get(agent, {}))
  compiled = env_registry.has_functional(env)
  return config_lib.ExperimentConfig(
      agent=agent, env=env, seed=0,
      agent_config=agent_registry.make_config(agent, **values),
      preset=preset and preset.name,
      network=preset and preset.network,
      hidden_sizes=preset and preset.hidden_sizes,
      num_envs=preset.num_envs if preset and compiled else None,
      num_episodes=None, num_steps=num_steps,
      eval_episodes=eval_episodes, eval_every_episodes=0,
      eval_every_steps=max(1, num_steps // eval_points),
      periodic_eval_episodes=periodic_eval_episodes,
      checkpoint_every_seconds=checkpoint_every_seconds,
      export_tflite=False, imports=tuple(imports),
      wandb_project=wandb_project, eval_policy=eval_protocol.policy,
      eval_epsilon=eval_protocol.epsilon)
