from stalwart_agents.aws.slack import handler

handler = handler()
