"""What Eddy keeps on moto's DynamoDB tables beyond moto's own fields, so it lives and dies with the table:
resource_policies.py (a table's and its streams' resource-based policies), time_to_live_changes.py (when its Time to
Live was last changed); definition_requests.py, a table's definition request run again through moto
(recovery's); ttl.py, its items read for Time to Live; batch_writes.py, BatchWriteItem written into them all or
nothing; puts.py and gets.py, PutItem's and GetItem's plainest forms answered without moto's work for the other
forms; lookups.py, a table found by its name as moto's get_table finds it."""
