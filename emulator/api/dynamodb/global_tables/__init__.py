"""Global tables in the DynamoDB API (version 2019.11.21: tables with replicas in other regions).

replica_updates.py  UpdateTable ReplicaUpdates: a replica created (made, filled, streamed), updated or deleted
replica_tables.py   what a replica's table answers differently, and the rest of the global tables API
"""
