"""Tests for the preset registry: choosing, files, and bad input."""

import json
import os

from absl.testing import absltest

from agents import registry as agent_registry
from experiments.presets import library
from experiments.presets import preset as preset_lib
from experiments.presets import registry
from experiments.setup import build


class RegistryTest(absltest.TestCase):

  def test_every_built_in_preset_is_valid_and_one_default_per_pair(self):
    pairs = set()
    for preset in library.PRESETS:
      preset.check()
      if preset.default:
        self.assertNotIn((preset.agent, preset.env), pairs)
        pairs.add((preset.agent, preset.env))
    # Every agent has a default preset on each of our games of its action
    # space (continuous control: gymnax's Pendulum) that it can play
    # (AlphaZero's search would see Plane Strike's plane).
    for env, space in (('catch', agent_registry.DISCRETE),
                       ('plane_strike', agent_registry.DISCRETE),
                       ('gymnax:Pendulum-v1', agent_registry.CONTINUOUS)):
      for agent in agent_registry.names():
        if (space in agent_registry.get(agent).networks and
            not build.planning_refusal(agent, env)):
          self.assertIsNotNone(registry.default_for(agent, env),
                               (agent, env))

  def test_built_in_files_hold_presets_a_preset_file_may_hold(self):
    names = []
    for name in library.FILES:
      path = os.path.join(library.FOLDER, f'{name}.json')
      with open(path, encoding='utf-8') as f:
        entries = json.load(f)
      self.assertNotEmpty(entries, path)
      for values in entries:
        names.append(preset_lib.from_dict(values, path).name)
    self.assertEqual(names, [p.name for p in library.PRESETS])
    self.assertLen(set(names), len(names))
    # Every file of the folder is read.
    self.assertCountEqual(
        [f'{name}.json' for name in library.FILES],
        [f for f in os.listdir(library.FOLDER) if f.endswith('.json')])

  def test_a_damaged_built_in_file_names_itself(self):
    folder = self.create_tempdir()
    folder.create_file('bad.json', json.dumps(
        [{'name': 'x', 'agent': 'ppo', 'env': 'catch'}]))
    original = library.FOLDER
    library.FOLDER = folder.full_path
    try:
      with self.assertRaisesRegex(ValueError, r'bad\.json: .*budget'):
        library.read('bad')
    finally:
      library.FOLDER = original

  def test_resolve_default_none_and_name(self):
    self.assertEqual(registry.resolve(None, 'ppo', 'plane_strike').name,
                     'ppo_plane_strike')
    self.assertIsNone(registry.resolve('none', 'ppo', 'plane_strike'))
    self.assertIsNone(registry.resolve(None, 'ppo', 'gym:CartPole-v1'))
    self.assertEqual(registry.resolve('ppo_catch', 'ppo', 'catch').name,
                     'ppo_catch')

  def test_a_preset_of_another_game_is_refused_unless_asked(self):
    with self.assertRaisesRegex(
        ValueError, r"Preset 'rainbow_plane_strike' was tuned on "
        r'plane_strike, not catch: .* Presets of c51 on catch: c51_catch; '
        r'or none .*; or --preset_on_other_env to use it anyway'):
      registry.resolve('rainbow_plane_strike', 'c51', 'catch')
    self.assertEqual(registry.resolve('rainbow_plane_strike', 'c51', 'catch',
                                      other_env=True).name,
                     'rainbow_plane_strike')

  def test_a_preset_file_with_a_result_is_refused_saying_why(self):
    path = os.path.join(self.create_tempdir().full_path, 'old.json')
    with open(path, 'w') as f:
      json.dump({'name': 'old', 'agent': 'ppo', 'env': 'catch',
                 'num_steps': 1000, 'result': 'return 1.0'}, f)
    with self.assertRaisesRegex(
        ValueError, r"preset file '.*old.json': unknown preset key\(s\) "
        r"\['result'\].* A preset holds settings, not results: delete "
        r'"result"'):
      preset_lib.read_file(path)

  def test_unknown_name_lists_the_valid_ones(self):
    with self.assertRaisesRegex(ValueError, r"Unknown preset 'nope'.*"
                                r"ppo_plane_strike.*none"):
      registry.resolve('nope', 'ppo', 'plane_strike')

  def test_preset_of_another_agent_is_refused(self):
    with self.assertRaisesRegex(ValueError, r"is for agent 'ppo', not 'a2c'"
                                r".*a2c_plane_strike"):
      registry.resolve('ppo_plane_strike', 'a2c', 'plane_strike')

  def test_file_round_trip(self):
    preset = registry.get('dqn_plane_strike')
    path = os.path.join(self.create_tempdir().full_path, 'best.json')
    with open(path, 'w') as f:
      json.dump(preset.to_dict(), f)
    self.assertEqual(registry.resolve(path, 'dqn', 'plane_strike'), preset)

  def test_bad_files_are_named(self):
    directory = self.create_tempdir().full_path
    missing = os.path.join(directory, 'missing.json')
    with self.assertRaisesRegex(ValueError, 'missing.json.*cannot be read'):
      registry.resolve(missing, 'ppo', 'plane_strike')
    bad_key = os.path.join(directory, 'bad_key.json')
    with open(bad_key, 'w') as f:
      json.dump({**registry.get('ppo_catch').to_dict(),
                 'config': {'learning_rat': 1.0}}, f)
    with self.assertRaisesRegex(ValueError,
                                r"bad_key.json.*learning_rat.*Valid keys"):
      registry.resolve(bad_key, 'ppo', 'catch')
    extra = os.path.join(directory, 'extra.json')
    with open(extra, 'w') as f:
      json.dump({**registry.get('ppo_catch').to_dict(), 'colour': 1}, f)
    with self.assertRaisesRegex(ValueError, r"extra.json.*unknown preset "
                                r"key.*colour"):
      registry.resolve(extra, 'ppo', 'catch')

  def test_a_second_default_for_a_pair_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'already the default'):
      registry.register(preset_lib.Preset(
          'my_ppo_catch', 'ppo', 'catch', {}, num_steps=10, default=True))

  def test_a_preset_needs_its_budget(self):
    with self.assertRaisesRegex(ValueError, 'budget'):
      preset_lib.Preset('p', 'ppo', 'catch', {})


if __name__ == '__main__':
  absltest.main()
