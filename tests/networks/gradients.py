"""What the network tests share: which modules a gradient reaches."""

import jax.numpy as jnp


def assert_reaches_only(grads, reaches) -> None:
  """Each module of `grads` (`{module: {name: array}}`) has a non-zero
  gradient where `reaches(module)`, else an exactly zero one (a head's
  loss never moves the other heads' parameters)."""
  for module, entries in grads.items():
    total = sum(float(jnp.abs(g).sum()) for g in entries.values())
    if reaches(module):
      assert total > 0.0, module
    else:
      assert total == 0.0, (module, total)
