"""A sweep's search space: grid values and random draws of agent settings.

    --grid=learning_rate:1e-3,3e-4     every value, crossed with every other
    --random=discount:uniform:0.5:0.99 --num_random=8
    --random=learning_rate:log_uniform:1e-4:1e-2
    --random=num_epochs:choice:2,4,8

A configuration is one value per swept key; the sweep trains every grid
combination crossed with `num_random` random draws (drawn once, from
`search_seed`, and saved with the sweep). Values are parsed to the type of
the agent config's field, so a bad key or value is refused before anything
runs, naming it.
"""

import dataclasses
import itertools
import math
import typing
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

import numpy as np

from agents import registry as agent_registry

DISTRIBUTIONS = ('uniform', 'log_uniform', 'choice')


class SearchSpaceError(ValueError):
  """A grid or random specification that cannot be swept."""


def _field_types(agent: str) -> Dict[str, Any]:
  entry = agent_registry.get(agent)
  hints = typing.get_type_hints(entry.config_class)
  return {f.name: hints[f.name]
          for f in dataclasses.fields(entry.config_class)}


def _parse_value(text: str, kind: Any, where: str) -> Any:
  """`text` as a value of field type `kind` (None allowed if Optional)."""
  text = text.strip()
  options = [t for t in typing.get_args(kind) if t is not type(None)]
  optional = type(None) in typing.get_args(kind)
  if optional and text.lower() in ('none', 'null'):
    return None
  kind = options[0] if options else kind
  try:
    if kind is bool:
      if text.lower() not in ('true', 'false'):
        raise ValueError('not true or false')
      return text.lower() == 'true'
    if kind is int:
      value = float(text)
      if not value.is_integer():
        raise ValueError('not an integer')
      return int(value)
    if kind is float:
      value = float(text)
      if not math.isfinite(value):
        raise ValueError('not finite')
      return value
    if kind is str:
      return text
  except ValueError as e:
    raise SearchSpaceError(f'{where}: {text!r} is not a valid '
                           f'{getattr(kind, "__name__", kind)} ({e}).') from e
  raise SearchSpaceError(f'{where}: settings of type {kind} cannot be swept.')


def _key_and_rest(spec: str, flag: str, types: Dict[str, Any],
                  agent: str) -> Tuple[str, str]:
  key, sep, rest = spec.partition(':')
  key = key.strip()
  if not sep or not rest.strip():
    raise SearchSpaceError(f'--{flag}={spec!r}: write <key>:<values>, e.g. '
                           f'--grid=learning_rate:1e-3,3e-4.')
  if key not in types:
    raise SearchSpaceError(
        f'--{flag}={spec!r}: agent {agent!r} has no config key {key!r}. '
        f'Valid keys: {", ".join(sorted(types))}.')
  return key, rest


def parse_grid(specs: Union[Sequence[str], Mapping[str, Sequence[Any]]],
               agent: str) -> Dict[str, List[Any]]:
  """`{key: values}` of `--grid=<key>:<v1>,<v2>,...` flags, or of such a
  mapping (the API's `grid={'learning_rate': [1e-3, 3e-4]}`), each value
  read as its flag's would be."""
  if isinstance(specs, Mapping):
    specs = [f'{key}:{",".join(str(v) for v in values)}'
             for key, values in specs.items()]
  types, grid = _field_types(agent), {}
  for spec in specs:
    key, rest = _key_and_rest(spec, 'grid', types, agent)
    if key in grid:
      raise SearchSpaceError(f'--grid: {key!r} is given twice.')
    values = [_parse_value(v, types[key], f'--grid={key}')
              for v in rest.split(',')]
    if len(set(map(repr, values))) != len(values):
      raise SearchSpaceError(f'--grid={key}: a value is repeated.')
    grid[key] = values
  return grid


def parse_random(specs: Sequence[str],
                 agent: str) -> Dict[str, Tuple[str, List[Any]]]:
  """`{key: (distribution, arguments)}` of `--random=<key>:<dist>:...`."""
  types, space = _field_types(agent), {}
  for spec in specs:
    key, rest = _key_and_rest(spec, 'random', types, agent)
    distribution, _, arguments = rest.partition(':')
    where = f'--random={key}'
    if distribution not in DISTRIBUTIONS:
      raise SearchSpaceError(f'{where}: unknown distribution '
                             f'{distribution!r}; valid: '
                             f'{", ".join(DISTRIBUTIONS)}.')
    if distribution == 'choice':
      values = [_parse_value(v, types[key], where)
                for v in arguments.split(',')]
    else:
      bounds = arguments.split(':')
      if len(bounds) != 2:
        raise SearchSpaceError(f'{where}: write {key}:{distribution}:<low>:'
                               f'<high>.')
      if types[key] not in (float, int, typing.Optional[float],
                            typing.Optional[int]):
        raise SearchSpaceError(f'{where}: {distribution} needs a numeric '
                               f'setting; use choice.')
      values = [_parse_value(b, float, where) for b in bounds]
      low, high = values
      if not low < high or (distribution == 'log_uniform' and low <= 0):
        raise SearchSpaceError(f'{where}: need 0 < low < high for '
                               f'log_uniform, low < high for uniform; got '
                               f'{low:g}, {high:g}.')
    if key in space:
      raise SearchSpaceError(f'--random: {key!r} is given twice.')
    space[key] = (distribution, values)
  return space


def _draw(space: Dict[str, Tuple[str, List[Any]]], agent: str,
          rng: np.random.Generator) -> Dict[str, Any]:
  types, values = _field_types(agent), {}
  for key, (distribution, arguments) in sorted(space.items()):
    if distribution == 'choice':
      value = arguments[int(rng.integers(len(arguments)))]
    else:
      low, high = arguments
      if distribution == 'log_uniform':
        low, high = math.log(low), math.log(high)
      value = float(rng.uniform(low, high))
      if distribution == 'log_uniform':
        value = math.exp(value)
      if int in (types[key], *typing.get_args(types[key])):
        value = int(round(value))
      else:
        value = float(f'{value:.4g}')  # Readable, and exactly reproducible.
    values[key] = value
  return values


def configurations(grid: Dict[str, List[Any]],
                   space: Dict[str, Tuple[str, List[Any]]], num_random: int,
                   agent: str, search_seed: int = 0) -> List[Dict[str, Any]]:
  """Every grid combination crossed with `num_random` random draws (one
  draw if no random keys); refuses a key in both, and an empty sweep."""
  both = sorted(set(grid) & set(space))
  if both:
    raise SearchSpaceError(f'{both} given by both --grid and --random.')
  if not grid and not space:
    raise SearchSpaceError('Nothing to sweep: give --grid=<key>:<values> '
                           'and/or --random=<key>:<distribution>:...')
  if space and num_random < 1:
    raise SearchSpaceError('--random needs --num_random >= 1.')
  rng = np.random.default_rng(search_seed)
  draws = ([_draw(space, agent, rng) for _ in range(num_random)]
           if space else [{}])
  keys = sorted(grid)
  combos = [dict(zip(keys, values))
            for values in itertools.product(*(grid[k] for k in keys))]
  return [{**combo, **draw} for combo in combos for draw in draws]
