"""Tests of the command benchmarks' timing and arithmetic (not of speed)."""

from absl.testing import absltest

from benchmarks import commands


class SecondsUntilTest(absltest.TestCase):

  def test_times_the_lines_a_process_prints(self):
    timing = commands._seconds_until(
        ['-c', 'import sys, time; print("ready", file=sys.stderr, '
         'flush=True); time.sleep(0.3); print("done", file=sys.stderr)'],
        ('ready', 'done', 'never'))
    # Times are when this process reads each line, so only their order and
    # the whole run's length (at least the child's sleep) are certain.
    self.assertIsNone(timing['never'])
    self.assertLess(timing['ready'], timing['done'])
    self.assertLessEqual(timing['done'], timing['seconds'])
    self.assertGreaterEqual(timing['seconds'], 0.3)

  def test_a_failing_command_is_an_error(self):
    with self.assertRaisesRegex(RuntimeError, 'boom'):
      commands._seconds_until(
          ['-c', 'import sys; sys.exit("boom")'])


class StartupTest(absltest.TestCase):

  def test_medians_and_setup_over_imports(self):
    calls = []

    def fake(args, lines=()):
      calls.append(args)
      if args[0] == '-c':
        seconds = {commands.IMPORTS: 5.0,
                   commands.LEAN_IMPORTS: 1.0}[args[1]]
        return {'seconds': seconds}
      if '--helpshort' in args:
        return {'seconds': 2.0 if args[1] == 'experiments.report' else 1.2}
      return {'seconds': 9.0, 'Compiling the training program': 1.5,
              'Compiled in': 4.0}

    with absltest.mock.patch.object(commands, '_seconds_until',
                                    fake):
      recorded = []
      report = commands.startup(self.create_tempdir().full_path, 3,
                                recorded.append)
    self.assertEqual(recorded, [commands.STARTUP_TRAIN])
    self.assertLen(calls, 3 * (2 + len(commands.ENTRY_POINTS) + 1))
    self.assertEqual(report['slowest_helpshort'], 'report')
    self.assertEqual(report['max_median_helpshort_seconds'], 2.0)
    self.assertLen(report['seconds']['train: compiled'], 3)
    self.assertAlmostEqual(
        report['train_setup_over_imports_seconds'],
        1.5 - report['median_seconds'][commands.LEAN_IMPORTS])

  def test_a_missing_line_is_an_error(self):
    def fake(args, lines=()):
      del args
      return {'seconds': 1.0, **{line: None for line in lines}}

    with absltest.mock.patch.object(commands, '_seconds_until',
                                    fake):
      with self.assertRaisesRegex(RuntimeError, 'never printed'):
        commands.startup(self.create_tempdir().full_path, 1, print)


if __name__ == '__main__':
  absltest.main()
