from stalwart_agents.aws.fanout import handler  # noqa: F401  (the Lambda entry point)
