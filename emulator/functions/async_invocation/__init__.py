"""Lambda's asynchronous invocation: each function's event queue (queue.py), an event and what follows each attempt
(events.py), and where an event's outcome goes (destinations.py)."""
