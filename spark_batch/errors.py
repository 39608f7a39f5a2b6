"""What goes wrong on the Spark batch path, as classes with messages that say what to do about it."""

from __future__ import annotations


class SparkBatchError(Exception):
    """Base class of the Spark batch path's own errors."""


class MissingFileSystemError(SparkBatchError):
    """A path's scheme (s3a://, gs://, ...) has no Hadoop FileSystem class on Spark's classpath."""


class MissingChangeLogError(SparkBatchError):
    """A state directory that does not exist, or holds no change log: a wrong path, not a table without changes."""


class JavaMissingError(SparkBatchError):
    """Spark cannot start: no Java runtime (17 or later) on this machine."""


class StaleStreamError(SparkBatchError):
    """A table stream's offset is older than the retained change log: changes after it are gone."""


class IncompleteHistoryError(SparkBatchError):
    """A table's state was asked for at a version the retained change log cannot rebuild."""


class StreamNotFoundError(SparkBatchError):
    """No table stream of that name under the offsets directory."""


class StreamExistsError(SparkBatchError):
    """A table stream of that name exists already (pass replace=True to start it over)."""


class ChangeTrackingError(SparkBatchError):
    """A table stream's table has no change tracking: it does not exist, or its DynamoDB stream is not enabled."""


class TableDroppedError(SparkBatchError):
    """A table stream's table was deleted (a table created later under its name is a new table)."""


class StreamPositionTrimmedError(SparkBatchError):
    """A streaming query's position in a DynamoDB stream's shard is older than the stream keeps (24 hours)."""


class StreamSourceError(SparkBatchError):
    """The `dynamodbstreams` source was given options it cannot use, or its stream cannot be read."""
