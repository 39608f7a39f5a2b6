"""PartiQL for DynamoDB: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.

Eddy reads each statement itself (lexer.py, syntax.py) and runs it as the DynamoDB item operation that does
the same (statements.py, expressions.py): SELECT a Query or Scan, INSERT a PutItem that refuses an existing
key, UPDATE an UpdateItem of an existing item (SET with literals of every type, `+`/`-`, list_append,
set_add, set_delete, nested paths; REMOVE), DELETE a DeleteItem, EXISTS a ConditionCheck; batches statement
by statement, transactions as TransactWriteItems or TransactGetItems (operations.py). Those operations take
the DynamoDB API's own path, so their changes are captured in the stream exactly like the item operations'.

The reader and its operations (operations.py's `answer`) load with the first statement; OPERATIONS names them.
"""

#: the DynamoDB API's PartiQL operations
OPERATIONS = frozenset({"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"})
