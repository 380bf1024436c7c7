"""Each run's default evaluation protocol: what its field reports.

`--eval_policy` unset plays evaluations as results on the game are usually
reported (`EnvironmentEntry.evaluation`): greedily, as the exported
model plays, on most games; on MinAtar as the policy acts, sampled from a
policy agent's probabilities and ε-greedy for a value agent. `--eval_epsilon`
unset is `EPSILON`.
"""

from typing import Optional

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import suites
from experiments.loops import evaluation
from networks import registry as network_registry

# ε of ε-greedy evaluations unless `--eval_epsilon` gives one: DQN's
# evaluation ε on Atari (Mnih et al., 2015). The policy agents, which have
# no published convention, use the same, so that one protocol compares them.
EPSILON = 0.05


def protocol(agent: agent_registry.AgentEntry,
             environment: env_registry.EnvironmentEntry,
             policy: Optional[str] = None,
             epsilon: Optional[float] = None) -> evaluation.Protocol:
  """The protocol of `agent` on `environment` (their resolved entries):
  `policy` and `epsilon` where given, else their defaults (see the module
  docstring)."""
  if epsilon is None:
    epsilon = EPSILON
  if policy is None:
    policy = 'greedy'
    if (environment.evaluation == suites.ACTING_EVALUATION and
        agent.action_space == agent_registry.DISCRETE):
      policy = ('epsilon_greedy'
                if agent.network_kind in network_registry.Q_KINDS
                else 'sampled')
  return evaluation.Protocol(policy, epsilon)

