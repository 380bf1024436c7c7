"""The tables of docs/benchmarks/, drawn from the JSON in benchmarks/."""
