"""GLOBAL TABLES (version 2019.11.21): a table replicated across regions through Eddy's own streams engine.

replica_groups.py  which regions hold a replica of a table, each CREATING / ACTIVE / DELETING on the clock
replication.py     writes queued from each replica's stream and applied to the others after the replication
                   delay, last writer wins; pause and resume a region, wait until replicas converge
journal.py         what a restart needs beyond the tables and streams: groups, and the last write applied per pair
"""
