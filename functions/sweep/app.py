from stalwart_agents.sweep import handler  # noqa: F401  (the Lambda entry point)
