"""A TFLite policy that keeps learning on the device (on-device training).

One `.tflite` with the weights in resource variables and these signatures:

  infer(board [1, *obs] f32)         -> probabilities [1, A] (0 if illegal)
  train(boards [N, *obs] f32, actions [N] i32, returns [N] f32) -> loss
      one policy-gradient step on loss = -mean(returns · log π(a|board)),
      with SGD or Adam whose state also lives on the device
  get_weights()                      -> every variable (builtin ops only)
  set_weights(every variable)        -> restores them (builtin ops only)
  save(checkpoint_path)              -> writes every variable to a file
  restore(checkpoint_path)           -> reads them back

Gradients and optimizer steps are the JAX ones (`jax.value_and_grad`, Optax),
converted with jax2tf, so the device takes exactly the steps JAX would take.
`save`/`restore` use TF's Save/Restore ops, as the TFLite on-device training
guide does: they are the model's only Select TF ops, so an app that calls
them links the Flex delegate (Android: `tensorflow-lite-select-tf-ops`);
`get_weights`/`set_weights` persist the same state with builtin ops only.
"""

import contextlib
import re
import tempfile
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from absl import logging

import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import agent as agent_lib
from agents import optimizers
from environments import specs

SIGNATURES = ('infer', 'train', 'get_weights', 'set_weights', 'save',
              'restore')
# Probabilities of taken actions are clipped here before the log: an action
# whose probability underflows to 0 then contributes no gradient, not NaN.
_MIN_PROBABILITY = 1e-30


def make_optimizer(name: str,
                   learning_rate: float) -> optax.GradientTransformation:
  """The on-device optimizer: 'adam' or 'sgd', as the agents build it."""
  if learning_rate <= 0:
    raise ValueError(f'learning_rate must be > 0; got {learning_rate}.')
  return optimizers.make_optimizer(learning_rate, name)


def policy_gradient_loss(agent: agent_lib.Agent, params: agent_lib.Params,
                         boards: jax.Array, actions: jax.Array,
                         returns: jax.Array) -> jax.Array:
  """-mean(returns · log π(a|board)) through the agent's exported policy.

  The taken action's probability is picked with a one-hot product, not a
  gather: LiteRT cannot run the scatter that a gather's gradient becomes.
  """
  probabilities = agent.deployable_policy(params, boards)
  one_hot = jax.nn.one_hot(actions, probabilities.shape[-1],
                           dtype=probabilities.dtype)
  taken = jnp.sum(probabilities * one_hot, axis=-1)
  log_probability = jnp.log(jnp.maximum(taken, _MIN_PROBABILITY))
  return -jnp.mean(returns * log_probability)


def make_train_step(agent: agent_lib.Agent,
                    optimizer: optax.GradientTransformation) -> Callable:
  """`(params, opt_state, boards, actions, returns) -> (params, opt_state,
  loss)`: the step `train` takes, also what the JAX reference runs."""

  def train_step(params, opt_state, boards, actions, returns):
    loss, grads = jax.value_and_grad(policy_gradient_loss, argnums=1)(
        agent, params, boards, actions, returns)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  return train_step


def _names(prefix: str, tree: Any) -> List[str]:
  """Signature-safe names of a pytree's leaves, e.g. `param_mlp_linear_0_w`."""
  paths = jax.tree_util.tree_flatten_with_path(tree)[0]
  names = []
  for i, (path, _) in enumerate(paths):
    key = '_'.join(str(getattr(k, 'key', getattr(k, 'idx', k)))
                   for k in path)
    key = re.sub(r'[^A-Za-z0-9]+', '_', key).strip('_')
    names.append(f'{prefix}_{i}_{key}' if key else f'{prefix}_{i}')
  return names


def weight_names(params: agent_lib.Params, opt_state: Any) -> List[str]:
  """Names of the model's variables: the params, then the optimizer state."""
  return _names('param', params) + _names('opt', opt_state)


def make_module(agent: agent_lib.Agent, params: agent_lib.Params,
                opt_state: Any, train_step: Callable,
                environment_spec: specs.EnvironmentSpec):
  """The tf.Module whose tf.functions become the model's signatures; the
  variables start at `params` and `opt_state`."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from jax.experimental import jax2tf  # pylint: disable=g-import-not-at-top

  param_leaves, param_def = jax.tree.flatten(params)
  opt_leaves, opt_def = jax.tree.flatten(opt_state)
  names = weight_names(params, opt_state)
  obs_shape = tuple(environment_spec.observations.shape)
  dims = ','.join(str(d) for d in obs_shape)

  def infer_fn(leaves, board):
    return agent.deployable_policy(jax.tree.unflatten(param_def, leaves),
                                      board)

  def train_fn(leaves, opt, boards, actions, returns):
    new_params, new_opt, loss = train_step(
        jax.tree.unflatten(param_def, leaves),
        jax.tree.unflatten(opt_def, opt), boards, actions, returns)
    return jax.tree.leaves(new_params), jax.tree.leaves(new_opt), loss

  # AutoGraph would try (and fail, slowly) to convert JAX's internals.
  signature = lambda inputs: tf.function(input_signature=inputs,
                                         autograph=False)
  path_spec = tf.TensorSpec((), tf.string, name='checkpoint_path')
  weight_specs = [tf.TensorSpec(np.shape(x), tf.as_dtype(np.asarray(x).dtype),
                                name=n)
                  for x, n in zip(param_leaves + opt_leaves, names)]

  class TrainablePolicy(tf.Module):
    """Weights in variables; each method is one signature."""

    def __init__(self):
      super().__init__()
      self.weights = [tf.Variable(np.asarray(x), name=n)
                      for x, n in zip(param_leaves + opt_leaves, names)]
      self.params = self.weights[:len(param_leaves)]
      self.opt = self.weights[len(param_leaves):]

    @signature([tf.TensorSpec((1,) + obs_shape, tf.float32, name='board')])
    def infer(self, board):
      probabilities = jax2tf.convert(infer_fn)(
          [v.read_value() for v in self.params], board)
      return {'probabilities': probabilities}

    @signature([
        tf.TensorSpec((None,) + obs_shape, tf.float32, name='boards'),
        tf.TensorSpec((None,), tf.int32, name='actions'),
        tf.TensorSpec((None,), tf.float32, name='returns')])
    def train(self, boards, actions, returns):
      new_params, new_opt, loss = jax2tf.convert(
          train_fn, polymorphic_shapes=[None, None, f'(n,{dims})', '(n,)',
                                        '(n,)'])(
              [v.read_value() for v in self.params],
              [v.read_value() for v in self.opt], boards, actions, returns)
      for variable, value in zip(self.weights, new_params + new_opt):
        variable.assign(value)
      return {'loss': loss}

    @signature([])
    def get_weights(self):
      return {n: v.read_value() for n, v in zip(names, self.weights)}

    @signature(weight_specs)
    def set_weights(self, *values):
      for variable, value in zip(self.weights, values):
        variable.assign(value)
      return {'weights_set': tf.constant(len(values), tf.int32)}

    @signature([path_spec])
    def save(self, checkpoint_path):
      tf.raw_ops.Save(filename=checkpoint_path, tensor_names=names,
                      data=[v.read_value() for v in self.weights])
      return {'checkpoint_path': checkpoint_path}

    @signature([path_spec])
    def restore(self, checkpoint_path):
      for name, variable in zip(names, self.weights):
        variable.assign(tf.raw_ops.Restore(file_pattern=checkpoint_path,
                                           tensor_name=name,
                                           dt=variable.dtype))
      return {'checkpoint_path': checkpoint_path}

  return TrainablePolicy()


@contextlib.contextmanager
def _quiet_tensorflow() -> Iterator[None]:
  """Hides TF's warnings about jax2tf's gradient functions, which the
  SavedModel round trip repeats for every signature (the model never asks
  TF for their gradients), and restores the previous verbosity."""
  verbosity = logging.get_verbosity()
  logging.set_verbosity(logging.ERROR)
  try:
    yield
  finally:
    logging.set_verbosity(verbosity)


def to_trainable_tflite(agent: agent_lib.Agent, params: agent_lib.Params,
                        environment_spec: specs.EnvironmentSpec,
                        optimizer: optax.GradientTransformation,
                        saved_model_dir: Optional[str] = None) -> bytes:
  """Converts the policy and its training step to a trainable TFLite model.

  Through a SavedModel (written to `saved_model_dir`, or a temporary one) so
  that the variables become resource variables shared by the signatures.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  module = make_module(agent, params, optimizer.init(params),
                   make_train_step(agent, optimizer), environment_spec)
  with tempfile.TemporaryDirectory() as tmp, _quiet_tensorflow():
    directory = saved_model_dir or tmp
    tf.saved_model.save(module, directory, signatures={
        name: getattr(module, name).get_concrete_function()
        for name in SIGNATURES})
    converter = tf.lite.TFLiteConverter.from_saved_model(
        directory, signature_keys=list(SIGNATURES))
    converter.target_spec.supported_ops = [
        tf.lite.OpsSet.TFLITE_BUILTINS,
        tf.lite.OpsSet.SELECT_TF_OPS,  # Save and Restore only.
    ]
    converter.experimental_enable_resource_variables = True
    return converter.convert()


class TrainableTFLitePolicy:
  """Runs a trainable export's signatures in the LiteRT interpreter."""

  def __init__(self, path: str):
    from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top
    self._interpreter = interpreter.Interpreter(model_path=path)
    missing = set(SIGNATURES) - set(self._interpreter.get_signature_list())
    if missing:
      raise ValueError(f'{path} lacks the signatures {sorted(missing)}; '
                       'export it with --export=trainable.')
    self._runners = {name: self._interpreter.get_signature_runner(name)
                     for name in SIGNATURES}

  def __call__(self, observation: np.ndarray) -> np.ndarray:
    """`[*obs]` observation -> `[A]` probabilities, as `TFLitePolicy`."""
    board = np.asarray(observation, np.float32)[None]
    return self._runners['infer'](board=board)['probabilities'][0]

  def train(self, boards: np.ndarray, actions: np.ndarray,
            returns: np.ndarray) -> float:
    """One on-device update; returns the loss before it."""
    return float(self._runners['train'](
        boards=np.asarray(boards, np.float32),
        actions=np.asarray(actions, np.int32),
        returns=np.asarray(returns, np.float32))['loss'])

  def get_weights(self) -> Dict[str, np.ndarray]:
    return {k: np.array(v) for k, v in self._runners['get_weights']().items()}

  def set_weights(self, weights: Dict[str, np.ndarray]) -> None:
    self._runners['set_weights'](**weights)

  def save(self, checkpoint_path: str) -> None:
    self._runners['save'](checkpoint_path=np.array(checkpoint_path.encode()))

  def restore(self, checkpoint_path: str) -> None:
    self._runners['restore'](
        checkpoint_path=np.array(checkpoint_path.encode()))


def reference_weights(agent: agent_lib.Agent, params: agent_lib.Params,
                      optimizer: optax.GradientTransformation,
                      batches: List[Tuple[np.ndarray, np.ndarray, np.ndarray]]
                      ) -> Tuple[Dict[str, np.ndarray], List[float]]:
  """The variables and losses after JAX takes the `train` steps of
  `batches` ((boards, actions, returns) each) from `params`."""
  opt_state = optimizer.init(params)
  step = jax.jit(make_train_step(agent, optimizer))
  losses = []
  for boards, actions, returns in batches:
    params, opt_state, loss = step(params, opt_state, boards, actions,
                                   returns)
    losses.append(float(loss))
  values = jax.tree.leaves(params) + jax.tree.leaves(opt_state)
  return ({n: np.asarray(v) for n, v in
           zip(weight_names(params, opt_state), values)}, losses)
