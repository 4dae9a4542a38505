"""The LangGraph door: stalwart-agents' people-in-the-loop service over a graph a team already has.

LangGraph is an optional extra (``pip install -e '.[langgraph]'``);
importing stalwart_agents never imports it.
"""
