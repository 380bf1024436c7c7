"""Each environment's step budget in a comparison.

`--num_steps=400000` gives every environment that budget;
`--num_steps=plane_strike:2000000,catch:20000` one per environment (the
others get the default). By default an environment gets the largest budget
the compared agents' presets were tuned at on it, so that no agent runs
short of its own tuning and all agents on one environment get the same
budget; an environment without such a preset gets `DEFAULT_STEPS`.
"""

from typing import (Any, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Union)

from experiments.comparison import pair_settings
from experiments.setup import budget_checks
from experiments.setup import config as config_lib

DEFAULT_STEPS = 100_000

Given = Union[None, int, str, Mapping[str, int]]


def parse(value: Given, envs: Sequence[str]) -> Dict[str, int]:
  """The budgets `value` sets, by environment (empty: none given).

  Raises:
    ValueError: naming `--num_steps`, for text that is neither a count nor
      `env:count,...`, an environment not in `envs`, or a count < 1.
  """
  if value is None:
    return {}
  if isinstance(value, bool):
    raise ValueError(f'--num_steps: a count or env:count,...; got {value!r}.')
  if isinstance(value, int):
    given = {env: value for env in envs}
  elif isinstance(value, Mapping):
    given = dict(value)
  else:
    text = str(value).strip()
    if text.replace('_', '').isdigit():
      given = {env: int(text.replace('_', '')) for env in envs}
    else:
      given = {}
      for part in text.split(','):
        env, sep, count = part.rpartition(':')
        if not sep or not count.replace('_', '').isdigit():
          raise ValueError(
              f'--num_steps: {part!r} is not <env>:<steps>; give one count '
              f'for every environment (e.g. 400000) or env:steps pairs '
              f'(e.g. plane_strike:2000000,catch:20000).')
        if env in given:
          raise ValueError(
              f'--num_steps: {env!r} is given twice ({given[env]} and '
              f'{count}); give each environment one budget.')
        given[env] = int(count.replace('_', ''))
  for env, count in given.items():
    if env not in envs:
      raise ValueError(f'--num_steps: {env!r} is not one of --envs '
                       f'({",".join(envs)}).')
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
      raise ValueError(f'--num_steps: {env} needs a step count >= 1; got '
                       f'{count!r}.')
  return given


def tuned(agents: Sequence[str], env: str,
          presets: Sequence[str]) -> Optional[int]:
  """The largest step budget a compared agent's preset was tuned at on
  `env`; None if none of them has one."""
  budgets = [preset.num_steps for preset in (
      pair_settings.choose_preset(presets, agent, env) for agent in agents)
             if preset is not None and preset.num_steps]
  return max(budgets) if budgets else None


def resolve(value: Given, agents: Sequence[str], envs: Sequence[str],
            presets: Sequence[str]) -> Dict[str, int]:
  """Every environment's budget: given, else tuned, else `DEFAULT_STEPS`.

  Raises:
    ValueError: see `parse`.
  """
  given = parse(value, envs)
  return {env: given.get(env) or tuned(agents, env, presets) or DEFAULT_STEPS
          for env in envs}


def budget_of(comparison: Mapping[str, Any], env: str) -> int:
  """Environment `env`'s step budget in a saved `comparison.json` (one
  count for all in comparisons saved before budgets per environment)."""
  steps = comparison['num_steps']
  return steps[env] if isinstance(steps, Mapping) else steps


def warnings(configs: Iterable[config_lib.ExperimentConfig]) -> List[str]:
  """What the budgets cut short, once per agent × environment
  (`budget_checks.warnings`)."""
  found = {}
  for config in configs:
    for warning in budget_checks.warnings(config):
      found.setdefault(warning, None)
  return list(found)
