"""Named, tuned settings per (agent, environment): `registry`."""
