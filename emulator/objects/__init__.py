"""S3 object change capture: every bucket's object writes and deletes, as a durable change log (volume streams)."""
