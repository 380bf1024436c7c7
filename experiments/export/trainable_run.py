"""A trained run's model that keeps learning on the device
(`python -m experiments.export_tflite --export=trainable`): the trainable
export (`trainable`), checked in the interpreter (`on_device`) and, where a
Flex interpreter is set up, through save and restore (`flex_check`)."""

from typing import Any, Dict, Optional

from agents import registry as agent_registry
from experiments.export import flex_check
from experiments.export import on_device
from experiments.export import trainable as trainable_export
from experiments.storage import atomic_files


class NotTrainable(ValueError):
  """The run cannot train on the device; the message says why and what
  to export instead. Raised before anything is written."""


def export(built: Any, params: Any, path: str,
           optimizer_name: Optional[str], learning_rate: Optional[float],
           fine_tune_games: int) -> Dict[str, Any]:
  """A trained run's trainable export (`export_tflite --export=trainable`):
  writes, verifies (save/restore too, where a Flex interpreter is set up)
  and, with `fine_tune_games`, fine-tunes a copy through the interpreter.

  Args:
    built: the run's seed (`experiments.setup.build.Built.for_seed`).
    params: its actor parameters.
    path: where the model goes, once verified.
    optimizer_name: the on-device optimizer; None: the agent config's
      (else adam).
    learning_rate: the on-device learning rate; None: the agent config's
      (else 1e-3).
    fine_tune_games: games of the fine-tuning check (0: none).

  Raises:
    NotTrainable: continuous actions, an agent with no policy gradient, or
      an unknown optimizer.
    tflite.VerificationError: the model failed verification (not
      published).
  """
  config = built.config
  name = optimizer_name or getattr(config.agent_config, 'optimizer', 'adam')
  learning_rate = learning_rate or getattr(config.agent_config,
                                           'learning_rate', 1e-3)
  # Returns on the device are discounted as the agent was trained.
  discount = getattr(config.agent_config, 'discount', 1.0)
  if built.environment_spec.is_continuous:
    raise NotTrainable(
        f'--export=trainable: on-device training is built for discrete '
        f'action probabilities; {config.env!r} has continuous actions. '
        f'Export the deterministic policy instead (--export=plain).')
  if built.agent.recurrence is not None:
    raise NotTrainable(
        f'--export=trainable: on-device training is built for policies '
        f'without memory; {config.network or "this network"} carries a '
        f'state. Export the policy with its state in and out instead '
        f'(--export=plain).')
  if not config.agent_entry.trainable_on_device:
    trainable_agents = [n for n in agent_registry.names()
                        if agent_registry.get(n).trainable_on_device]
    raise NotTrainable(
        f'--export=trainable: on-device training needs a policy-gradient '
        f'agent ({", ".join(trainable_agents)}); {config.agent!r} exports '
        f'a policy with no gradient to train.')
  try:
    optimizer = trainable_export.make_optimizer(name, learning_rate)
  except ValueError as e:
    raise NotTrainable(f'--export=trainable: {e}') from e
  with atomic_files.published_if_verified(path) as candidate:
    report = on_device.export_and_verify_trainable(
        built.agent, params, built.environment_spec, candidate, optimizer,
        built.export_environment(), on_device.WEIGHT_TOLERANCES[name],
        discount=discount)
    # Replaces LiteRT's 'not run' (it has no Flex delegate).
    report['save_restore'] = flex_check.check_trainable_export(
        candidate, built.environment_spec, built.export_environment(),
        discount)
  report.update(optimizer=name, learning_rate=learning_rate)
  if fine_tune_games:
    # Game streams 1 (learning) and 2 (greedy play before and after).
    report['fine_tune'] = on_device.fine_tune(
        path, built.environment_spec, built.export_environment,
        num_games=fine_tune_games, discount=discount, seed=1)
  return report
