"""Scripts that the side env .venv-flex runs (scripts/setup_flex_env.sh), not
the project: each imports only the standard library, numpy and TensorFlow,
and `experiments.export.flex_check` runs it by path in a subprocess."""
