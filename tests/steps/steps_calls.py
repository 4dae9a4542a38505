"""What the step tests' tools really did, shared by both agents' tool modules."""

CALLS: list[tuple[str, dict]] = []
