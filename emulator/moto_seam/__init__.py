"""The one seam between Eddy and moto's internals: every module that imports from moto's models, responses or
backends lives here, each patch pinned by a test against moto's original (tests/emulator/moto_seam/), so a moto
upgrade fails in one place.

  bridge.py    moto's DynamoDB backend: requests in, the items an operation touched out (capture), tables
  actions.py   moto's DynamoHandler actions called without its per-request machinery (the fast path)
  speedups/    moto's methods replaced by equivalent, faster ones: dynamodb.py (Item / Table / DynamoType),
               sqs.py (Queue.delete_message, Queue.messages)
  all_or_nothing.py  moto's writes made all or nothing, and its errors read for the door
  s3.py        moto's S3Backend put_object / delete_object wrapped for object changes (volume streams)
  kinesis.py   moto's Kinesis made to keep lineage, read under Eddy's lock, trimmed on Eddy's clock
  layers.py    moto's Lambda layer versions, read for a function's Layers
"""
