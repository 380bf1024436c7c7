"""Tests for experiments/comparison/caveats.py."""

from experiments.comparison import caveats


def _report(seeds_by_pair):
  envs = {}
  for (env, agent), seeds in seeds_by_pair.items():
    envs.setdefault(env, {'agents': {}})['agents'][agent] = {
        'seeds': list(range(seeds))}
  return {'envs': envs}


def test_few_seeds_lists_pairs_below_ten():
  report = _report({('catch', 'ppo'): 3, ('catch', 'dqn'): 10,
                    ('plane_strike', 'ppo'): 9})
  assert caveats.few_seeds(report) == [
      {'env': 'catch', 'agent': 'ppo', 'seeds': 3},
      {'env': 'plane_strike', 'agent': 'ppo', 'seeds': 9}]
  assert caveats.few_seeds(_report({('catch', 'ppo'): 10})) == []


def test_exact_range_up_to_three_seeds():
  # n**-n: 1, 1/4, 1/27 (>= 2.5%); 1/256 (< 2.5%).
  assert [caveats.exact_range(n) for n in (1, 2, 3, 4, 10)] == [
      True, True, True, False, False]
  assert not caveats.exact_range(0)


def test_warning_text():
  assert caveats.markdown([]) == []
  text = '\n'.join(caveats.markdown(
      [{'env': 'catch', 'agent': 'ppo', 'seeds': 3},
       {'env': 'catch', 'agent': 'dqn', 'seeds': 5},
       {'env': 'plane_strike', 'agent': 'ppo', 'seeds': 4}],
      title=str.upper))
  assert text.startswith('> **Few seeds')
  assert 'Fewer than 10 seeds on some environment: PPO (3 seeds), DQN (5 ' in (
      text)
  assert 'With 3 seeds or fewer it is exactly [worst seed, best seed]' in text
  assert '`--seeds=10`' in text
  five = '\n'.join(caveats.markdown([{'env': 'c', 'agent': 'p', 'seeds': 5}]))
  assert 'exactly' not in five and 'never be wider' in five
  assert 'p (5 seeds)' in five
  one = '\n'.join(caveats.markdown([{'env': 'c', 'agent': 'p', 'seeds': 1}]))
  assert 'p (1 seed).' in one and 'With 1 seed or fewer' in one


def test_budget_and_run_warnings_are_named_or_absent():
  assert caveats.budget_markdown([]) == []
  assert caveats.run_markdown([]) == []
  budget = caveats.budget_markdown(['DQN on catch trains 100 steps, below'])
  assert budget[0].startswith('> **Budgets cut some agents short')
  assert '> - DQN on catch trains 100 steps, below' in budget
  runs = caveats.run_markdown(
      [{'agent': 'ppo', 'env': 'catch', 'seed': 2,
        'warning': 'learning collapsed: entropy 0.0'}], str.upper)
  assert '> - PPO on catch, seed 2: learning collapsed: entropy 0.0' in runs
