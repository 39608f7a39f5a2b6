"""Some of moto's model methods, replaced while an emulator is active by ones that give the same answers in less
time, each pinned by a test against moto's own (tests/emulator/moto_seam/test_speedups*.py):

  dynamodb.py  DynamoType's key hashing, queries by partition (and installs the two below)
  dynamodb_items.py  Item: items built in linear time, untracked
  dynamodb_puts.py   Table.put_item without a condition, and a BatchWriteItem's puts
  dynamodb_text_items.py  a validated put's item kept as its image's text, its attributes decoded on moto's first read
  action_lookup.py  BaseResponse.call_action's look for the request's action: the one name asked, not every member
  sqs.py       Queue.delete_message found by its receipt handle, Queue.messages read lazily: DeleteMessage and
               ReceiveMessage cost O(batch), not O(messages in the queue)

Each module's patches go on when moto's service is loaded while an emulator is open (moto_seam/__init__.py's
PATCHES); plain moto in the same process keeps its own.
"""
