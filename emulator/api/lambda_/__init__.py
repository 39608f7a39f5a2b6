"""The Lambda API (REST-JSON: every path starts with its API's date, /2015-03-31/functions/...) and function URLs:
door.py (functions and event source mappings, and the REST-JSON reading the other Lambda modules share), functions/
(a function's parameters), invoke/ (Invoke, InvokeAsync), resources/ (versions, aliases, permissions, tags,
concurrency, URL configurations, code locations), async_invocation/ (event invoke configurations), function_urls/
(the URLs served)."""
