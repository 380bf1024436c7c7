"""The settings of each lane (seed) of a run, flat, for the loggers that
compare runs by setting: TensorBoard's HParams tab and Weights & Biases'
config. Also how W&B names and groups a lane's run.

Values are what those tools filter on: numbers, bools and strings; None
becomes 'None' and tuples their text ('(64, 64)'), so that a setting keeps
one type from run to run.
"""

import dataclasses
import os
import re
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

Setting = Union[str, int, float, bool]


def flat_value(value: Any) -> Setting:
  """A setting as HParams and W&B take it (None -> 'None', tuples -> text)."""
  if isinstance(value, (bool, str)):
    return value
  if isinstance(value, (int, float)):
    return value
  if value is None:
    return 'None'
  if isinstance(value, (list, tuple)):
    return str(tuple(value))
  return str(value)


def _flatten(prefix: str, values: Mapping[str, Any]) -> Dict[str, Setting]:
  return {f'{prefix}{key}': flat_value(value) for key, value in
          sorted(values.items())}


def lane_settings(config: config_lib.ExperimentConfig, lane: int,
                  network: Optional[str] = None) -> Dict[str, Setting]:
  """Lane `lane`'s settings: agent, env, loop, seed (the lane's), trial (a
  sweep's), preset, network, hidden sizes, num_envs, num_seeds, budget,
  env_kwargs (as `env_kwargs.<key>`) and every key of the lane's agent
  config (a sweep trial's values in), by its own name unless a run setting
  has it (then `agent_config.<key>`).

  `network`: what the run resolved (`build.network_name`); None: the
  config's.
  """
  trial = build_lib.lane_trial(config, lane)
  settings: Dict[str, Any] = {
      'agent': config.agent, 'env': config.env, 'loop': config.loop,
      'seed': build_lib.seeds(config)[lane],
      'preset': config.preset,
      'network': network if network is not None else config.network,
      'hidden_sizes': config.resolved_hidden_sizes(),
      'num_envs': config.num_envs,
      'num_seeds': config.num_seeds,
      'num_steps': config.num_steps, 'num_episodes': config.num_episodes}
  if trial is not None:
    settings['trial'] = trial
  flat = _flatten('', settings)
  flat.update(_flatten('env_kwargs.', config.env_kwargs))
  agent_config = (config.agent_config if trial is None else
                  config.trial_config(trial))
  for key, value in dataclasses.asdict(agent_config).items():
    flat['agent_config.' + key if key in flat else key] = flat_value(value)
  return flat


def _shown(path: str) -> str:
  """`path` relative to the working directory if inside it, else
  absolute."""
  relative = os.path.relpath(path)
  return (os.path.abspath(path) if relative.startswith(os.pardir) else
          relative)


def wandb_names(config: config_lib.ExperimentConfig, workdir: str,
                lane: int) -> Tuple[str, str]:
  """`(name, group)` of lane `lane`'s W&B run: the group is the workdir
  (without a comparison's trailing `seed_<n>`, so that its seeds group
  together; with `trial_<t>` for a sweep's trial), the name the group and
  `seed_<n>`."""
  group = _shown(os.path.normpath(workdir))
  if config.num_seeds == 1 and not config.trials and re.fullmatch(
      r'seed_\d+', os.path.basename(group)):
    group = os.path.dirname(group) or group
  trial = build_lib.lane_trial(config, lane)
  if trial is not None:
    group = os.path.join(group, os.path.dirname(
        build_lib.lane_names(config)[lane]))
  return f'{group}/seed_{build_lib.seeds(config)[lane]}', group
