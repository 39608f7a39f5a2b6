"""The emulator's tunables, with AWS's values as defaults."""

from __future__ import annotations

from dataclasses import dataclass

#: how long wait_idle / assert_delivered (and POST /_eddy/idle, /_eddy/delivered) wait for delivery by default: a
#: bound on a condition, met as soon as everything is delivered, so a generous one costs a passing test nothing
#: and spares a correct handler on a busy machine (AWS has no such wait; the figure is Eddy's)
WAIT_TIMEOUT = 60.0


@dataclass
class Settings:
    #: how long stream records are kept (AWS: 24 hours)
    retention_seconds: float = 24 * 3600
    #: an open shard closes and a child takes over after this long on the emulator's clock (AWS: ~4 hours)
    shard_rollover_seconds: float = 4 * 3600
    #: a shard that receives more records than this within one second of the clock splits into two children
    #: (None: never split on load; emu.split_shard still splits on demand)
    split_records_per_second: int | None = 1000
    #: a shard iterator expires this long after it was issued (AWS: 15 minutes)
    iterator_ttl_seconds: float = 15 * 60
    #: GetRecords calls allowed per shard per second before LimitExceededException (None: no throttle)
    get_records_per_second_per_shard: int | None = None
    #: how often (real seconds) the housekeeper sweeps TTL and rolls, trims and splits shards (None: only on demand)
    housekeeping_interval: float | None = 1.0
    #: a change-log segment file is closed and a new one started past this size
    segment_max_bytes: int = 16 * 1024 * 1024
    #: every invocation's log is written into CloudWatch Logs, as Lambda writes it (False: not; moto keeps every
    #: log event in memory, which a benchmark of millions of invocations may not want)
    function_logs: bool = True
    #: a sealed segment of at least this size gets a columnar (Parquet) copy beside it, which Spark reads instead
    #: of its JSON lines (None: never); a smaller one is not worth the copy's process start
    columnar_copy_min_bytes: int | None = 1024 * 1024
    #: a write reaches a global table's other replicas this long after it committed, on the emulator's clock (AWS:
    #: multi-Region eventually consistent replication "typically" within a second)
    replication_delay_seconds: float = 0.5
    #: a replica added to (removed from) a global table is CREATING (DELETING) this long on the emulator's clock
    #: (AWS, recorded: 14 to 49 s for an empty table's replica to be ACTIVE)
    replica_transition_seconds: float = 30.0
    #: an update of a Lambda function's code or configuration is in progress this long on the emulator's clock unless
    #: its state is read sooner (invocations meanwhile run the function as it was: functions/function.py
    #: update_started). AWS publishes no figure: "In most cases, this process is very fast" (the Lambda Developer
    #: Guide); its recorded reads right after an update answer InProgress, and boto3's waiter polls once a second
    function_update_seconds: float = 5.0
    #: each retry of an SNS notification to an HTTP/S endpoint comes up to this share of its delivery policy's delay
    #: sooner, drawn at random: SNS "applies jittering to delivery retries" (the SNS Developer Guide, "Amazon SNS
    #: message delivery retries"; the share is Eddy's, AWS's is not documented; 0: each retry exactly on time)
    sns_retry_jitter: float = 0.1
