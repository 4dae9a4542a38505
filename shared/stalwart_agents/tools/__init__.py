"""Tools: Python functions, a team's own steps, and tools from MCP servers."""
