"""Reading a DynamoDB stream's shards through the DynamoDB Streams API with boto3, as AWS sends the records.

Works against `eddy serve` and, unchanged, against AWS. GetRecords answers are taken as the JSON the service
sent (images stay DynamoDB JSON, exactly what the source's columns hold): botocore's own parsing of every
attribute value is skipped, which is most of a GetRecords loop's client-side time.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Iterator, Mapping

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from ..errors import StreamPositionTrimmedError, StreamSourceError
from .positions import AT, TRIM_HORIZON, Shard, sequence_after

#: GetRecords' largest page
PAGE = 1000
#: an open shard that answers this many empty pages in a row while records are expected is not serving them
EMPTY_PAGES = 20
#: what a client needs from the source's options (names as the source takes them, lower-cased)
CLIENT_OPTIONS = ("endpointurl", "region", "accesskeyid", "secretaccesskey", "sessiontoken", "profile")


def client_options(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The options a streams client is made from, as a hashable key (the same on the driver and executors)."""
    return tuple((name, options[name]) for name in CLIENT_OPTIONS if options.get(name))


@lru_cache(maxsize=8)
def streams_client(options: tuple[tuple[str, str], ...]) -> Any:
    """One DynamoDB Streams client per process and options; credentials from the options or boto3's chain."""
    given = dict(options)
    session = boto3.session.Session(profile_name=given.get("profile"))
    client = session.client(
        "dynamodbstreams",
        endpoint_url=given.get("endpointurl"),
        region_name=given.get("region"),
        aws_access_key_id=given.get("accesskeyid"),
        aws_secret_access_key=given.get("secretaccesskey"),
        aws_session_token=given.get("sessiontoken"),
        config=Config(retries={"mode": "standard", "max_attempts": 10}, max_pool_connections=4),
    )
    client.meta.events.register("before-parse.dynamodb-streams.GetRecords", _keep_raw_records)
    return client


def _keep_raw_records(response_dict: dict[str, Any], customized_response_dict: dict[str, Any], **_: Any) -> None:
    """Hand GetRecords' records on as the service sent them; botocore parses only the rest of the answer."""
    if response_dict.get("status_code") != 200:
        return
    body = json.loads(response_dict["body"])
    customized_response_dict["Records"] = body.pop("Records", [])
    response_dict["body"] = json.dumps(body).encode()


def describe_shards(client: Any, stream_arn: str) -> tuple[list[Shard], str]:
    """Every shard the stream lists (DescribeStream, page by page) and its StreamViewType."""
    shards, start, view_type = [], None, ""
    while True:
        kwargs = {"StreamArn": stream_arn, **({"ExclusiveStartShardId": start} if start else {})}
        description = _call(client.describe_stream, stream_arn, "", "", **kwargs)["StreamDescription"]
        view_type = description.get("StreamViewType", view_type)
        shards.extend(Shard.from_description(shard) for shard in description.get("Shards", []))
        start = description.get("LastEvaluatedShardId")
        if not start:
            return shards, view_type


class ShardPages:
    """A shard's records after `position`, page by page; once iterated, `ended` says whether the shard ended.

    upto "AFTER n": through sequence number n; upto END: to the closed shard's end; upto None: until the shard has
    nothing more for now (an empty page) or ends - what the driver reads to learn where a micro-batch ends.
    """

    def __init__(
        self, client: Any, stream_arn: str, shard_id: str, starting: str, position: str, upto: str | None = None
    ) -> None:
        self.client, self.stream_arn, self.shard_id = client, stream_arn, shard_id
        self.starting, self.position, self.upto = starting, position, upto
        self.ended = False

    def __iter__(self) -> Iterator[list[dict[str, Any]]]:
        iterator = _first_iterator(self.client, self.stream_arn, self.shard_id, self.starting, self.position)
        last = sequence_after(self.upto) if self.upto else None
        target = int(last) if last is not None else None
        empty = 0
        while iterator:
            page = _call(
                self.client.get_records,
                self.stream_arn,
                self.shard_id,
                self.position,
                ShardIterator=iterator,
                Limit=PAGE,
            )
            found, iterator = page["Records"], page.get("NextShardIterator")
            if target is not None and found and int(found[-1]["dynamodb"]["SequenceNumber"]) >= target:
                yield [record for record in found if int(record["dynamodb"]["SequenceNumber"]) <= target]
                return
            if found:
                yield found
                empty = 0
            elif self.upto is None:
                return
            elif target is not None:
                empty += 1
                if empty >= EMPTY_PAGES:
                    raise StreamSourceError(
                        f"shard {self.shard_id} of {self.stream_arn} stopped short of sequence "
                        f"number {last}: {EMPTY_PAGES} empty GetRecords answers in a row"
                    )
        self.ended = True


def _first_iterator(client: Any, stream_arn: str, shard_id: str, starting: str, position: str) -> str:
    kwargs = {"StreamArn": stream_arn, "ShardId": shard_id}
    sequence_number = sequence_after(position)
    if sequence_number is not None:
        kwargs.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=sequence_number)
    elif position == AT:
        try:
            return client.get_shard_iterator(**kwargs, ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=starting)[
                "ShardIterator"
            ]
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                _raise(error, stream_arn, shard_id, position)
        # a shard no record has reached yet has no first sequence number to stand at: its start is its horizon
        kwargs.update(ShardIteratorType=TRIM_HORIZON)
    else:
        kwargs.update(ShardIteratorType=TRIM_HORIZON)
    return _call(client.get_shard_iterator, stream_arn, shard_id, position, **kwargs)["ShardIterator"]


def _call(operation: Any, stream_arn: str, shard_id: str, position: str, **kwargs: Any) -> dict[str, Any]:
    try:
        return operation(**kwargs)
    except ClientError as error:
        _raise(error, stream_arn, shard_id, position)
        raise  # _raise always raises


def _raise(error: ClientError, stream_arn: str, shard_id: str, position: str) -> None:
    code = error.response["Error"]["Code"]
    if code == "TrimmedDataAccessException":
        raise StreamPositionTrimmedError(
            f"shard {shard_id} of {stream_arn}: the query's position ({position}) is older than the stream keeps "
            "(24 hours), so records it had not read are gone. Start the query again without its checkpoint "
            "(from TRIM_HORIZON or LATEST) to go on, knowing those records were lost."
        ) from error
    where = f"{stream_arn} {shard_id}".strip()
    raise StreamSourceError(f"{code} reading {where}: {error.response['Error'].get('Message', '')}") from error
