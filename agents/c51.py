"""C51 (Bellemare et al., 2017): DQN learning a categorical distribution of
each action's return over fixed atoms (`value_distributions.categorical`).

Everything else is DQN's (`agents.dqn`): replay (uniform or prioritised),
n-step targets, double Q-learning, ε-greedy acting on the distribution's
mean, target copies, time limits. With `n_step=3`, `prioritized_replay`
and the dueling `mlp_dueling_q_distribution` network, it is Rainbow
without noisy networks (Hessel et al., 2018; the `rainbow_*` presets), as
Dopamine's Rainbow is.
"""

import dataclasses

import haiku as hk

from agents import agent as agent_lib
from agents import config_checks
from agents import dqn
from agents import value_distributions
from environments import specs

LOSSES = ('cross_entropy',)


@dataclasses.dataclass(frozen=True)
class C51Config(dqn.DQNConfig):
  """C51's hyperparameters: DQN's (`dqn.DQNConfig`, whose `loss` is here
  the cross-entropy to the projected target distribution, the only loss a
  categorical distribution has), and its support.

  Attributes:
    loss: 'cross_entropy', to the target distribution projected onto the
      atoms (`rlax.categorical_double_q_learning`).
    num_atoms: atoms of the support (51 in the paper).
    v_min: the lowest return the support holds.
    v_max: the highest.
  """
  loss: str = 'cross_entropy'
  num_atoms: int = 51
  v_min: float = -10.0
  v_max: float = 10.0

  def __post_init__(self):
    super().__post_init__()
    config_checks.check_positive_integer(self, 'num_atoms')
    if self.num_atoms < 2:
      raise ValueError(f'C51Config.num_atoms must be >= 2; got '
                       f'{self.num_atoms}.')
    if not self.v_min < self.v_max:
      raise ValueError(f'C51Config.v_min ({self.v_min}) must be below v_max '
                       f'({self.v_max}).')

  def check_loss(self) -> None:
    if self.loss not in LOSSES:
      raise ValueError(
          f'C51Config.loss {self.loss!r} has no categorical form: a '
          f'categorical return distribution learns by the cross-entropy '
          f'to its projected target (loss={LOSSES[0]!r}); the Huber and L2 '
          f'losses are for one value per action (agent dqn).')

  def network_options(self) -> dict:
    """The network's outputs per action
    (`agents.registry.network_options`)."""
    return {'num_atoms': self.num_atoms}


def value_head(config: C51Config) -> value_distributions.ValueHead:
  return value_distributions.categorical(config.num_atoms, config.v_min,
                                         config.v_max)


def make_agent(config: C51Config, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed) -> agent_lib.Agent:
  """C51 around a return-distribution network (`[N, A, num_atoms]`
  logits)."""
  return dqn.make_agent(config, environment_spec, network,
                        value_head(config))
