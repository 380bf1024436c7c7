"""Command-line pieces shared by the entry points: `--config.<key>`
agent overrides and `--imports` of the user's modules."""
