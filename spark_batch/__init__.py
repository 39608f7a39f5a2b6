"""Eddy's Spark batch path: the change log and DynamoDB exports as DataFrames, table streams, batch jobs.

| module | what |
| --- | --- |
| session | the SparkSession: local[*] by default, any master given; nothing downloaded at run time |
| jvm | the driver's JVM: Java checked first, the UI on a free port, no incubator warning |
| io | every read and write: change-log segments, exports, Parquet, DynamoDB, the search index, offsets |
| dynamodb_json | DynamoDB JSON as Spark types (inferred), the raw JSON kept |
| changes | net changes between commit versions, a table's state at a version |
| table_history | which commits a reader may read: the table's current history, versions without records, retention |
| table_streams | named offsets on a table, read as net change sets, consumed atomically |
| export | `eddy export`: full and incremental DynamoDB exports made from Eddy |
| jobs | aggregate, ttl-archive, search-index-rebuild |
| cli | `eddy export` and `eddy spark ...`, for eddy's parser (`register(subparsers)`) |

Importing this package starts nothing; Spark starts with the first session.
"""
