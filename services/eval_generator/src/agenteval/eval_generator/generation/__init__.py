"""Generation as the service runs it: the request's checks and events (``request``), jobs
queued and claimed through the database (``jobs``), choosing what is saved (``selection``)
and the other services it reads and tests through (``backends``)."""
