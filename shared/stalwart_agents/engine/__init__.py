"""The engine: turns become runs, answers move them, an undo walks them back; it knows no HTTP and no AWS."""
