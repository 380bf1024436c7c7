"""The real bsuite environments, by bsuite id (e.g. 'catch/0').

bsuite environments are `dm_env.Environment`s already, so they are returned
as they are; they run in the Python loop only (no JAX core).

Seeding: `bsuite.load_from_id` takes no seed (every sweep setting that has a
'seed' entry leaves it None, i.e. unseeded), and it prints a banner. So this
module does what `load_from_id` does — look the id's settings up in
`bsuite.sweep.SETTINGS` and call `bsuite.load` — quietly, and passes `seed` to
the environment when its constructor takes a `seed` argument (the RNG of
episodes and noise). Settings that define the experiment itself, such as
'mapping_seed', are never changed. Environments whose constructor takes no
seed ignore it: bandit and discounting_chain are deterministic given their
settings; deep_sea_stochastic is random and cannot be seeded through bsuite.
"""

import difflib
import inspect
from typing import Optional

import bsuite
from bsuite import bsuite as bsuite_lib
from bsuite import sweep
import dm_env

_LIST_IDS = ('list them with `from bsuite import sweep; print(sweep.SWEEP)`, '
             'e.g. catch/0, cartpole/0, deep_sea/0')


def check_id(bsuite_id: str) -> None:
  """Raises ValueError naming `bsuite_id` unless it is in `sweep.SWEEP`."""
  if bsuite_id in sweep.SETTINGS:
    return
  close = difflib.get_close_matches(str(bsuite_id), sweep.SWEEP, n=3)
  hint = f' Did you mean {", ".join(close)}?' if close else ''
  raise ValueError(f'Unknown bsuite id {bsuite_id!r}.{hint} Valid ids are '
                   f'bsuite.sweep.SWEEP: {_LIST_IDS}.')


def takes_seed(bsuite_id: str) -> bool:
  """Whether `make_environment(bsuite_id, seed)` applies the seed."""
  check_id(bsuite_id)
  experiment, _ = bsuite_lib.unpack_bsuite_id(bsuite_id)
  constructor = bsuite_lib.EXPERIMENT_NAME_TO_ENVIRONMENT[experiment]
  return 'seed' in inspect.signature(constructor).parameters


def make_environment(bsuite_id: str,
                     seed: Optional[int] = None) -> dm_env.Environment:
  """bsuite environment `bsuite_id`, seeded where bsuite allows it.

  Args:
    bsuite_id: an id of `bsuite.sweep.SWEEP`, such as 'catch/0'.
    seed: seed of the environment's RNG; None keeps bsuite's default (for most
      environments, unseeded). Ignored where the constructor has no seed (see
      the module docstring).

  Returns:
    The bsuite environment (a `dm_env.Environment`).

  Raises:
    ValueError: `bsuite_id` is not a bsuite id.
  """
  check_id(bsuite_id)
  experiment, _ = bsuite_lib.unpack_bsuite_id(bsuite_id)
  kwargs = dict(sweep.SETTINGS[bsuite_id])
  if seed is not None and takes_seed(bsuite_id):
    kwargs['seed'] = int(seed)
  return bsuite.load(experiment, kwargs)
