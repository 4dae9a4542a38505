"""``make_app``: the service, as one FastAPI application, for ``stalwart serve`` or a team's own server.

The application is assembled in ``http/app.py``; this is where a team imports it from.
"""

from .http.app import ROUTES, make_app

__all__ = ["ROUTES", "make_app"]
