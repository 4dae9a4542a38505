"""The chapter's confirmation, from the person's side: python examples/shop/demo.py"""

import json
from pathlib import Path

from stalwart_agents import Desk

desk = Desk.from_file(Path(__file__).with_name("agent.yaml"), storage="memory://")
user = "u-17"

reply = desk.send(user, "look up order 4411 and charge 40 to order 4411")
print(json.dumps(reply.steps[0].result, sort_keys=True))
waiting = reply.waiting[0]
print(waiting.tool, "|", waiting.question, "|", waiting.answers)
for argument in waiting.arguments:
    print("  ", argument)

reply = desk.confirm(user, "approve")
print(json.dumps(reply.steps[-1].result, sort_keys=True))
