"""The benchmark harness: measures the framework from outside it.

Speed suites, learning results, reproductions of published figures, peers'
programs run beside ours, and the tables of docs/benchmarks/, drawn from
the JSON each command writes here (`benchmarks/*.json`). Run from a
checkout (`python -m benchmarks.suites --help`); the package is not
installed with the framework, and nothing in the framework imports it.
"""
