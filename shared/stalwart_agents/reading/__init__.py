"""Reading a turn: the selector, its language, the model behind delegate, the check and its CEL."""
