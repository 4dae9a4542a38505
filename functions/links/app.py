from stalwart_agents.lambdas import handler

handler = handler("links")
