"""The Lambda API's asynchronous invocation settings (event invoke configurations)."""
