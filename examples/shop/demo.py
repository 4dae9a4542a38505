"""The confirmation, from the person's side: python examples/shop/demo.py prints what the README shows."""

from pathlib import Path

from stalwart_agents import Desk

desk = Desk.from_file(Path(__file__).with_name("agent.yaml"), storage="memory://")
reply = desk.send("u-17", "look up order 4411 and charge 40 to order 4411")
print(reply.steps[0].tool, reply.steps[0].result)
pause = reply.waiting[0]
print(pause.tool, "|", pause.question, "|", pause.answers)
for argument in pause.arguments:
    print(f"   {argument['name']} = {argument['value']!r} ({argument['origin']})")
reply = desk.confirm("u-17", "approve")
print(reply.steps[-1].tool, reply.steps[-1].result)
