"""The built-in presets, read from the JSON files of `builtin/`.

Each file holds a list of presets in the format of a preset file
(`preset.FIELDS`; `--preset=<file>.json` reads one object of it), so a
built-in preset is also a template for your own. The files:

- our tuned settings: catch, cartpole, plane_strike, gymnax_ppo (PureJaxRL's
  CartPole and MinAtar settings), dqn_classic_control, pqn,
  continuous_control, memory. Most are the default preset of their
  (agent, environment) pair, which `train` and `compare` use;
- published sources' own settings, carried over value by value, for
  `benchmarks.reproductions`: rl_baselines3_zoo, cleanrl, gymnax_blines.
  None is a default.

Each preset's `source` says where its values come from and why, and the
command that measures it; what it measures lives in the benchmark docs
(docs/benchmarks/), re-measured with the code.
"""

import json
import os
from typing import Tuple

from experiments.presets import preset as preset_lib

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      'builtin')
FILES = ('catch', 'cartpole', 'plane_strike', 'gymnax_ppo',
         'dqn_classic_control', 'pqn', 'continuous_control', 'memory',
         'rl_baselines3_zoo', 'cleanrl', 'gymnax_blines', 'board_games',
         'minatar', 'jax_suites')


def read(name: str) -> Tuple[preset_lib.Preset, ...]:
  """The presets of `builtin/<name>.json`, in its order. Their agents,
  environments and networks are checked when registered
  (`registry.register`) and by tests/experiments/presets/registry_test.py,
  not here: reading them builds nothing."""
  path = os.path.join(FOLDER, f'{name}.json')
  with open(path, encoding='utf-8') as f:
    entries = json.load(f)
  presets = []
  for values in entries:
    try:
      presets.append(preset_lib.Preset(**values))
    except (TypeError, ValueError) as e:
      raise ValueError(f'{path}: {e}') from e
  return tuple(presets)


PRESETS = tuple(preset for name in FILES for preset in read(name))
