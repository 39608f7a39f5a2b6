"""The DynamoDB API's door (X-Amz-Target DynamoDB_20120810.<Operation>): door.py (every operation's request parsed,
checked, run by the engine's emulator.dynamodb and answered), tables.py (CreateTable and UpdateTable: their
StreamSpecification and key schema read and checked, the engine's dynamodb/tables.py making the change)."""
