from stalwart_agents.aws.sweep import handler  # noqa: F401  (the Lambda entry point)
