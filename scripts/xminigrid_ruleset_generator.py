r"""Makes one of XLand-MiniGrid's benchmarks on a machine that cannot
download it, with the package's own generator.

xminigrid downloads a benchmark (`--env_config.benchmark=trivial-21k`) on
first use into $XLAND_MINIGRID_DATA (else ~/.xland_minigrid). Offline, its
generator (`scripts/ruleset_generator.py` of a checkout of
github.com/dunnolab/xland-minigrid), given the arguments its
`scripts/generate_benchmarks.sh` lists for a benchmark and its default
seed, samples the same rulesets in the same order. This runs that script
unchanged but for one call: `jnp.vstack` of the padded rulesets is done in
NumPy and given back as a JAX array (the same values), since XLA compiles
one concatenate of 21,000 operands for longer than the sampling takes (the
unchanged script had not saved trivial-21k when stopped after 13
minutes here; this saves it in 2 min 44 s).

  python scripts/xminigrid_ruleset_generator.py PATH/TO/xland-minigrid \
      --chain_depth=0 --num_distractor_objects=3 --total_rulesets=21_000 \
      --save_path=$HOME/.xland_minigrid/trivial_21k

The file name is the one xminigrid looks for (`trivial_21k` for
trivial-21k; `xminigrid.benchmarks.NAME2HFFILENAME` lists the others).
"""

import os
import runpy
import sys
from typing import Sequence

import jax.numpy as jnp
import numpy as np


def stack_in_numpy(arrays: Sequence[jnp.ndarray]) -> jnp.ndarray:
  """`jnp.vstack(arrays)`, stacked by NumPy."""
  return jnp.asarray(np.vstack([np.asarray(a) for a in arrays]))


def main(argv: Sequence[str]) -> None:
  if len(argv) < 2 or not os.path.isdir(argv[1]):
    raise SystemExit('usage: python scripts/xminigrid_ruleset_generator.py '
                     'PATH/TO/xland-minigrid [its generator\'s arguments]; '
                     f'got {argv[1:2] or "no checkout"}.')
  script = os.path.join(argv[1], 'scripts', 'ruleset_generator.py')
  if not os.path.isfile(script):
    raise SystemExit(f'{argv[1]} is not a checkout of xland-minigrid: it '
                     'has no scripts/ruleset_generator.py.')
  vstack, sys_argv = jnp.vstack, sys.argv
  jnp.vstack, sys.argv = stack_in_numpy, [script, *argv[2:]]
  try:
    runpy.run_path(script, run_name='__main__')
  finally:
    jnp.vstack, sys.argv = vstack, sys_argv


if __name__ == '__main__':
  main(sys.argv)
