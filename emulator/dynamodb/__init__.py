"""DYNAMODB, the engine's side: the one way a DynamoDB request reaches moto's tables (operations.py: under the
engine's lock, through the seam, each write captured and committed before it answers) and the item operations'
fast path through moto's model (fast_path.py). The front door, api/dynamodb/door.py, parses, calls and shapes."""
