"""What the network tests share: an image spec, the layers' shapes, and
which modules a gradient reaches."""

from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import specs


def image_spec(shape=(10, 10, 4)):
  """A MinAtar-like spec: float32 [H, W, C] images, 3 actions."""
  return specs.make_spec(
      dm_specs.Array(shape, np.float32),
      dm_specs.DiscreteArray(3))


def weight_shapes(network, observation_shape):
  """The sorted weight shapes of `network` initialised on one observation
  of `observation_shape`."""
  params = network.init(jax.random.PRNGKey(0),
                        jnp.zeros((1,) + tuple(observation_shape)))
  return sorted(p['w'].shape for p in params.values())


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
