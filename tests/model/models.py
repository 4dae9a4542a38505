"""A model as a Python callable, for agent.yaml's model: {python: models:propose}."""


def propose(agent, turn, tools):
    names = [schema["name"] for schema in tools]
    return {
        "text": f"{agent} saw {len(names)} tools.",
        "calls": [{"tool": "look_up_order", "arguments": {"order_id": "4412"}}],
    }
