"""Command-line pieces shared by the entry points: `--config.<key>` agent
overrides, `--env_config.<key>` environment settings, `--imports` of the
user's modules, and the grouped help (`--help`, `--helpconfig`)."""
