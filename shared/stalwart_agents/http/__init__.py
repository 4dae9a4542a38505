"""The HTTP edge: the boundary, the routes over a door, the inbox, the link pages, the stream, the app."""
