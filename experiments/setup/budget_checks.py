"""What a run's budget cuts short, said before it trains.

An agent's preset was tuned at its own budget, and some settings schedule
over environment steps (DQN's ε decay): a shorter run scores the agent on
settings that never played out (DQN at 50k steps of a 500k-step ε decay
still explores 90% of the time). `train` prints these warnings with its
settings; `compare` prints them and puts them in its report.
"""

from typing import List

from agents import registry as agent_registry
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib


def _tuned_budget(config: config_lib.ExperimentConfig):
  """The registered preset's step budget, if the run started from one."""
  if config.preset is None:
    return None
  try:
    return preset_registry.get(config.preset).num_steps
  except ValueError:  # A preset file: its budget is not registered.
    return None


def warnings(config: config_lib.ExperimentConfig) -> List[str]:
  """One line per thing the step budget cuts short; empty if none (or if
  the run has only an episode budget)."""
  budget = config.num_steps
  if budget is None:
    return []
  who = f'{config.agent_entry.title} on {config.env}'
  found = []
  tuned = _tuned_budget(config)
  if tuned is not None and budget < tuned:
    found.append(
        f'{who} trains {budget:,} steps, below the {tuned:,} its preset '
        f'{config.preset} was tuned for: its settings may not play out.')
  ends = agent_registry.schedule_ends(config.agent_config)
  for schedule, end in ends.items():
    if end > budget:
      found.append(
          f'{who}: the {schedule} ends at step {end:,}, after the budget of '
          f'{budget:,} steps; the run stops {budget / end:.1%} of the way '
          f'through it.')
  return found
