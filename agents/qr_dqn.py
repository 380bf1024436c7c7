"""QR-DQN (Dabney et al., 2018): DQN learning quantiles of each action's
return by quantile regression (`value_distributions.quantile`).

Everything else is DQN's (`agents.dqn`): replay (uniform or prioritised),
n-step targets, double Q-learning, ε-greedy acting on the quantiles'
mean, target copies, time limits.
"""

import dataclasses

import haiku as hk

from agents import agent as agent_lib
from agents import config_checks
from agents import dqn
from agents import value_distributions
from environments import specs

# The quantile Huber loss (κ = 1, the paper's) or the plain quantile loss.
LOSSES = {'quantile_huber': 1.0, 'quantile': 0.0}


@dataclasses.dataclass(frozen=True)
class QRDQNConfig(dqn.DQNConfig):
  """QR-DQN's hyperparameters: DQN's (`dqn.DQNConfig`, whose `loss` is
  here one of the quantile regression losses), and its quantiles.

  Attributes:
    loss: 'quantile_huber' (the quantile Huber loss, κ = 1, the paper's)
      or 'quantile' (κ = 0).
    num_quantiles: quantiles learned per action (200 in the paper).
  """
  loss: str = 'quantile_huber'
  num_quantiles: int = 200

  def __post_init__(self):
    super().__post_init__()
    config_checks.check_positive_integer(self, 'num_quantiles')
    if self.num_quantiles < 2:
      raise ValueError(f'QRDQNConfig.num_quantiles must be >= 2; got '
                       f'{self.num_quantiles}.')

  def check_loss(self) -> None:
    if self.loss not in LOSSES:
      raise ValueError(
          f'QRDQNConfig.loss {self.loss!r} has no quantile form: quantiles '
          f'learn by quantile regression, loss one of {tuple(LOSSES)}; the '
          f'Huber and L2 losses are for one value per action (agent dqn).')

  def network_options(self) -> dict:
    """The network's outputs per action
    (`agents.registry.network_options`)."""
    return {'num_atoms': self.num_quantiles}


def value_head(config: QRDQNConfig) -> value_distributions.ValueHead:
  return value_distributions.quantile(config.num_quantiles,
                                      LOSSES[config.loss])


def make_agent(config: QRDQNConfig, environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed) -> agent_lib.Agent:
  """QR-DQN around a return-distribution network (`[N, A,
  num_quantiles]` quantiles)."""
  return dqn.make_agent(config, environment_spec, network,
                        value_head(config))
