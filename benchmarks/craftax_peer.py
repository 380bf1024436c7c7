"""PPO on Craftax beside Craftax_Baselines' PPO, in its setting.

A peer suite of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, Craftax_Baselines' `ppo.py` in the
peers' own environment from a checkout, `--craftax_baselines_source`;
`benchmarks.peer_runs`):

  peers_craftax_ppo: PPO on each of `--craftax_ids`, once per network
    width of `--craftax_widths` with the budget of the same place in
    `--craftax_steps`, in the setting Craftax_Baselines' `ppo.py` trains
    every Craftax game with (its defaults; our `ppo_craftax` preset:
    1,024 envs x 64 steps, 4 epochs x 8 minibatches, lr 2e-4 annealed,
    GAE lambda 0.8, global norm 1.0, separate tanh actor and critic of
    three layers of the width): training steps per second of ours (with
    its arithmetic, time limits ending the returns) and of its
    `make_train`, and the return of 100 whole episodes of the sampled
    policy after training on both sides (the same protocol). Its default
    width is 512; a narrower network is a variant of its setting (its
    `--layer_size` flag), shown as its own row.
  peers_craftax_ppo_rnn: the same with Craftax_Baselines' recurrent PPO
    (`ppo_rnn.py`, the same PPO settings; our `ppo_rnn_craftax` preset):
    a ReLU embedding of the width, a GRU of the width and actor and
    critic heads of two ReLU layers of the width, minibatches of whole
    sequences.

Craftax_Baselines resets 1 of every 16 environments' worth of fresh
games per step and hands them to the environments that ended
("optimistic resets": two may start the same game); ours resets each
ended environment into its own next episode (`env_slots`).
"""

from typing import Any, Callable, Dict, Sequence

from absl import flags

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_craftax_ppo', 'peers_craftax_ppo_rnn')
PRESET = 'ppo_craftax'
RECURRENT_PRESET = 'ppo_rnn_craftax'
EVAL_EPISODES = 100
EVAL_POLICY = 'sampled'
# One update of the setting: 1,024 environments x 64 steps.
UPDATE_STEPS = 1024 * 64


def craftax_ppo(root: str, repeats: int, run: scaling.Runner,
                env_ids: Sequence[str], widths: Sequence[int],
                budgets: Sequence[int], recurrent: bool = False
                ) -> Dict[str, Any]:
  """PPO on each of `env_ids` at each (width, budget): ours, with the
  peer's arithmetic, and Craftax_Baselines' (`recurrent`: its
  `ppo_rnn.py` and our `ppo_rnn_craftax`, else its `ppo.py` and our
  `ppo_craftax`)."""
  network = ('a ReLU embedding, a GRU and actor and critic heads of two '
             'ReLU layers, all of the width, minibatches of whole '
             'sequences (Craftax_Baselines\' ppo_rnn.py defaults; our '
             'ppo_rnn_craftax preset)' if recurrent else
             'separate tanh actor and critic of three layers '
             '(Craftax_Baselines\' ppo.py defaults; our ppo_craftax '
             'preset)')
  report = {'setting': '1,024 envs x 64 steps, 4 epochs x 8 minibatches, '
                       'lr 2e-4 annealed, GAE lambda 0.8, gradients '
                       f'clipped to global norm 1.0, {network}, time '
                       'limits ending the returns on both sides; return '
                       f'of {EVAL_EPISODES} whole episodes of the '
                       f'{EVAL_POLICY} policy after training, both sides'}
  for env_id in env_ids:
    for width, steps in zip(widths, budgets):
      ours = dict(program='ours',
                  preset=RECURRENT_PRESET if recurrent else PRESET,
                  env=f'craftax:{env_id}', num_steps=steps,
                  hidden_sizes=(width,) * (2 if recurrent else 3),
                  agent_config=peer_runs.peer_arithmetic('craftax'),
                  **dict(peer_runs.TRAINING_ONLY,
                         eval_episodes=EVAL_EPISODES,
                         eval_policy=EVAL_POLICY))
      theirs = {'env_name': env_id, 'layer_size': width,
                'total_timesteps': steps, 'eval_episodes': EVAL_EPISODES,
                'eval_policy': EVAL_POLICY}
      if recurrent:
        theirs['script'] = 'ppo_rnn'
      runs = scaling.measure(root, {
          'ours': scaling.Measurement(ours),
          'craftax_baselines': scaling.Measurement(dict(
              program='craftax_baselines_ppo', config=theirs)),
      }, repeats, run)
      peer_runs.ratios(runs, 'ours', 'steps_per_second',
                       ('craftax_baselines',), 'speed')
      report[f'{env_id}, width {width}, {steps} steps'] = dict(
          scaling.summary(runs), env_id=env_id, width=width, steps=steps)
  return report


def define_flags() -> None:
  """This suite's flags (`benchmarks.peers.define_flags` calls it)."""
  flags.DEFINE_list('craftax_ids', ['Craftax-Classic-Symbolic-v1'],
                    'peers_craftax_ppo(_rnn): the Craftax games (symbolic ids '
                    'without "craftax:").')
  flags.DEFINE_list('craftax_widths', ['512', '64'],
                    'peers_craftax_ppo(_rnn): widths of the layers, '
                    'one setting each (512: Craftax_Baselines\' own).')
  flags.DEFINE_list('craftax_steps', ['262144', '1048576'],
                    'peers_craftax_ppo(_rnn): training steps per run, one per '
                    f'width, each a multiple of {UPDATE_STEPS:,} (one '
                    'update).')
  flags.DEFINE_string('craftax_baselines_source', None,
                      'peers_craftax_ppo(_rnn): a checkout of '
                      'github.com/MichaelTMatthews/Craftax_Baselines (the '
                      'folder holding ppo.py and ppo_rnn.py).')
  flags.register_multi_flags_validator(
      ['craftax_widths', 'craftax_steps'],
      lambda values: peer_runs.widths_and_budgets(
          values['craftax_widths'], values['craftax_steps'], UPDATE_STEPS),
      message='--craftax_widths and --craftax_steps: one budget per width, '
              'each width an int >= 1, each budget a positive multiple of '
              f'{UPDATE_STEPS:,} (1,024 envs x 64 steps).')


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values

  def suite(recurrent):
    return lambda: craftax_ppo(
        root, f.seeds, run, f.craftax_ids,
        [int(w) for w in f.craftax_widths],
        [int(s) for s in f.craftax_steps], recurrent)

  return {'peers_craftax_ppo': suite(False),
          'peers_craftax_ppo_rnn': suite(True)}
