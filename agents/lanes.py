"""The hook through which a compiled update agrees across lanes.

The compiled loop runs several seeds (and sweep trials) side by side as
lanes of one `vmap` over the named axis `LANES` (`experiments.loops.
lane_map`), and runs a single lane as itself, unmapped. Under `vmap` a
`lax.cond` or `lax.while_loop` whose predicate differs per lane runs
every branch and selects per lane; a predicate made the same in every lane
(`any_lane`) keeps one branch, or one trip count, for all of them. Outside
a mapping over lanes (one lane, the Python loop, evaluation) it is the
identity, so one definition of an update serves every loop.
"""

import jax
import jax.numpy as jnp

# The named axis the compiled loop maps its lanes over.
LANES = 'lanes'


def any_lane(flag: jax.Array) -> jax.Array:
  """True if `flag` (a bool scalar) is true in any lane: the same,
  unbatched value in every lane (`flag` itself when lanes are not
  mapped)."""
  try:
    return jax.lax.pmax(jnp.asarray(flag, jnp.int32), LANES) > 0
  except NameError:  # One lane, run as itself.
    return flag
