"""Pollers: what runs an enabled event source mapping (or a pipe), split as Lambda's pollers work.

- sources.py: what a poller reads: a stream source (a DynamoDB stream or a Kinesis data stream, a Protocol both
  answer) or an SQS queue (QueueSource);
- stream_pollers.py: a stream mapping's MappingRunner: a lane per shard (ParallelizationFactor lanes per shard),
  following the shard lineage, parents first; checkpoints per shard;
- lanes.py: one lane: its share of a shard's records taken in order, batched (BatchSize, the batching window,
  6 MB, tumbling windows), waiting by notification;
- batch_processor.py: a batch through FilterCriteria to the sender, and what follows the outcome (retries with
  back-off, bisection, partial batch failures, MaximumRecordAgeInSeconds, the on-failure destination), as
  batch_policy.py's pure functions say; tumbling_windows.py: a lane's window and its state;
- queue_pollers.py: an SQS mapping's QueueRunner: a poller per concurrent batch, received messages deleted once
  they succeed; sqs_events.py: the event it sends and the reading of its answer;
and the sender they all send to (triggers/senders.py): a function, or a pipe's target.
"""
