"""moto's Kinesis: streams made to keep lineage (streams.py), and their state for persistence (state.py)."""
