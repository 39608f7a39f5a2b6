"""Kinesis Data Streams for DynamoDB: a table's changes put on a Kinesis data stream (moto's Kinesis is the store)."""
