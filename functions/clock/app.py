from stalwart_agents.aws.clock import handler  # noqa: F401  (the Lambda entry point)
