"""From settings to a runnable experiment: the config dataclass, building
agent, environments and training loop from it, and importing the user's
own modules that register agents, environments and networks."""
