from stalwart_agents.fanout import handler  # noqa: F401  (the Lambda entry point)
