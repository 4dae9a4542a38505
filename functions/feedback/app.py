from stalwart_agents.aws.handlers import handler

handler = handler("feedback")
