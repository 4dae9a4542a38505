"""The AWS functions: each route's handler, the fan-out, the sweep, secrets and metrics."""
