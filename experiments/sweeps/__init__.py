"""Hyperparameter sweeps: search spaces, shape groups, ranking."""
