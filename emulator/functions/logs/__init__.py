"""A function's logs: logging_configs.py (LoggingConfig as the Lambda API reads and answers it) and log_groups.py
(every invocation's log written into CloudWatch Logs as Lambda writes it)."""
