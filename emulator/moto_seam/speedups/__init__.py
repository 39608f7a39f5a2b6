"""Some of moto's model methods, replaced while an emulator is active by ones that give the same answers in less
time, each pinned by a test against moto's own (tests/emulator/moto_seam/test_speedups*.py):

  dynamodb.py  Item / Table / DynamoType: items built in linear time, plain puts, key hashing, queries by partition
  sqs.py       Queue.delete_message found by its receipt handle, Queue.messages read lazily: DeleteMessage and
               ReceiveMessage cost O(batch), not O(messages in the queue)

Each module's patches go on when moto's service is loaded while an emulator is open (moto_seam/__init__.py's
PATCHES); plain moto in the same process keeps its own.
"""
