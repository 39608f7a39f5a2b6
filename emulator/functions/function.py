"""A Lambda function as Eddy keeps it: `Function`, its $LATEST or one of its published versions, and its states (a
creation, an update in progress); its name's and ARN's forms, its tags within AWS's limit, and Lambda's LastModified
format. What the Lambda API answers of it (FunctionConfiguration) is functions/configuration.py's; the registry that
holds them is functions/registry.py; the name CreateFunction makes is api/lambda_/functions/names.py's."""

from __future__ import annotations

import dataclasses
import itertools
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.errors import InvalidParameterValueException, ResourceConflictException
from eddy.emulator.functions.logs.logging_configs import logging_config
from eddy.emulator.functions.versions import LATEST, Alias

FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
FUNCTION_ARN = re.compile(
    r"^arn:aws[a-z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([A-Za-z0-9_-]{1,64})(?::(\$LATEST|[A-Za-z0-9_-]+))?$"
)
_REVISIONS = itertools.count(1)
#: AWS's limit of tags on a function
MAX_TAGS = 50


def checked_tags(tags: Any, existing: dict[str, str] | None = None) -> dict[str, str]:
    """Tags as CreateFunction or TagResource gives them, merged over `existing`, within AWS's limit (its words:
    LocalStack's AWS-recorded snapshots, test_lambda_api.snapshot.json TestLambdaTags)."""
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise InvalidParameterValueException("An error occurred and the request cannot be processed.")
    merged = {**(existing or {}), **tags}
    if len(merged) > MAX_TAGS:
        raise InvalidParameterValueException("Number of tags exceeds resource tag limit.")
    return merged


@dataclass
class Function:
    name: str
    account_id: str
    region: str
    handler: str
    runtime: str = "python3.11"
    timeout: int = 3
    memory_size: int = 128
    environment: dict[str, str] = field(default_factory=dict)
    #: whether Environment was ever given: Lambda then answers it, even without variables ({"Variables": {}})
    environment_given: bool = False
    role: str = ""
    description: str = ""
    #: a registered in-process callable, or None for uploaded code
    target: Callable[[Any, Any], Any] | None = None
    #: where uploaded code was unpacked
    code_dir: Path | None = None
    code_sha256: str = ""
    code_size: int = 0
    last_modified: str = ""
    #: the function's layers in order, as FunctionConfiguration lists them: [{"Arn": ..., "CodeSize": ...}]
    layers: list[dict[str, Any]] = field(default_factory=list)
    #: PutFunctionEventInvokeConfig's settings (MaximumRetryAttempts, MaximumEventAgeInSeconds, DestinationConfig)
    event_invoke_config: dict[str, Any] | None = None
    #: DeadLetterConfig.TargetArn: where a failed asynchronous event goes (SQS queue or SNS topic)
    dead_letter_target: str | None = None
    #: unique to this version of the function's code and configuration: workers of another revision are stale
    revision: int = field(default_factory=lambda: next(_REVISIONS))
    #: LoggingConfig, as the Lambda API answers it (functions/logs/log_groups.py): Text into /aws/lambda/<name> unless set
    logging_config: dict[str, str] = field(default_factory=dict)
    #: the function's tags (CreateFunction's Tags, TagResource)
    tags: dict[str, str] = field(default_factory=dict)
    #: its resource-based policy's statements, in the order AddPermission added them (api/lambda_/resources/)
    policy: list[dict[str, Any]] = field(default_factory=list)
    #: PutFunctionConcurrency's ReservedConcurrentExecutions: at most this many invocations at once (None: unreserved)
    reserved_concurrency: int | None = None
    #: PutProvisionedConcurrencyConfig's by version or alias, on $LATEST: {qualifier: {"requested": N, "since": time}}
    provisioned_concurrency: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: CreateFunctionUrlConfig's, on $LATEST, by alias ("" for the function's own URL): {"UrlId", "AuthType", ...}
    url_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: RevisionId, as GetFunction and GetPolicy answer it: new with each change of code, configuration or policy
    revision_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    #: "$LATEST", or a published version's number (functions/versions.py: a frozen copy of $LATEST)
    version: str = LATEST
    #: $LATEST's published versions by number and its aliases by name (a version has neither)
    versions: dict[str, "Function"] = field(default_factory=dict)
    aliases: dict[str, Alias] = field(default_factory=dict)
    #: the highest version number ever published: a deleted version's number is never given again
    last_version: int = 0
    #: a version's: what $LATEST was made of when it was published (functions/versions.py fingerprint)
    source_fingerprint: str = ""
    #: Architectures, EphemeralStorage.Size (MB), TracingConfig.Mode and SnapStart.ApplyOn, kept and answered as
    #: given (the machine's own processor runs the code, with the machine's /tmp, untraced, never snapshotted)
    architectures: list[str] = field(default_factory=lambda: ["x86_64"])
    ephemeral_storage: int = 512
    tracing_mode: str = "PassThrough"
    snap_start: str = "None"
    #: PutFunctionRecursionConfig's RecursiveLoop (Terminate until one is put; Eddy detects no loops)
    recursive_loop: str = "Terminate"
    #: the execution role's session its workers run as (AWS_ACCESS_KEY_ID, ...), made with its CreateFunction and
    #: kept with it, so a new worker needs no write (functions/runtimes/credentials.py); None: made by a worker
    role_session: dict[str, str] | None = None
    #: a version's $LATEST (not written down: recovery links them again)
    latest: "Function | None" = field(default=None, repr=False, compare=False)
    #: a change of state in progress until its state is read (`update_read`, `creation_completed`): ("creating",
    #: RevisionId) while $LATEST is Pending after CreateFunction, ("created", RevisionId) while a version
    #: UpdateFunctionCode published is being created; None when none is. Not written down: a restart completes it
    #: (the function recovered Active)
    transition: tuple[str, str] | None = field(default=None, compare=False)
    #: $LATEST's update in progress (UpdateFunctionCode, UpdateFunctionConfiguration), with the function as it was
    #: before it, which invocations run until it completes (`update_started`); written down with the function
    update: "Update | None" = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.logging_config = logging_config(None, self.name, self.logging_config or None)

    @property
    def opt_dir(self) -> Path | None:
        """Where the function's layers are laid, in order, as Lambda lays them in /opt (None without layers): beside
        its code folder, so that each code folder has layers of its own (an update's new code and layers are laid in
        a folder of their own: registry.py) and an update's do not replace those the function runs until it
        completes."""
        return self.code_dir.parent / "opt" if self.layers and self.code_dir is not None else None

    @property
    def arn(self) -> str:
        """The function's ARN (unqualified, whichever version this is)."""
        return f"arn:aws:lambda:{self.region}:{self.account_id}:function:{self.name}"

    @property
    def version_arn(self) -> str:
        return f"{self.arn}:{self.version}"

    @property
    def qualified_arn(self) -> str:
        """The ARN the registry knows this by: the function's for $LATEST, qualified by its number for a version."""
        return self.arn if self.version == LATEST else self.version_arn

    @property
    def root(self) -> "Function":
        """$LATEST: what holds the function's tags, concurrency, versions and aliases."""
        return self.latest or self

    def changed(self) -> None:
        """Its code or configuration changed: workers running the old one are stale."""
        self.revision = next(_REVISIONS)
        self.revision_id = str(uuid.uuid4())

    def copied(self, **changes: Any) -> "Function":
        """A copy of $LATEST under it (`latest`), with containers of its own, no versions, aliases or change in
        progress, and `changes` (a published version: versions/published.py; $LATEST as it was before an update)."""
        return dataclasses.replace(
            self,
            **{
                "versions": {},
                "aliases": {},
                "latest": self,
                "transition": None,
                "update": None,
                "environment": dict(self.environment),
                "layers": [dict(layer) for layer in self.layers],
                "logging_config": dict(self.logging_config),
                "architectures": list(self.architectures),
                **changes,
            },
        )

    def as_before_update(self) -> "Function":
        """$LATEST as it is now, to be run while the update about to change it is in progress (`update_started`): its
        code folder, handler, runtime, environment, memory, timeout, layers and logging, and its revision (the
        workers it has warm go on serving it); it answers to $LATEST (`root`) for what is kept there (concurrency,
        tags, aliases)."""
        return self.copied()

    def update_started(self, previous: "Function", now: float, seconds: float) -> None:
        """UpdateFunctionCode or UpdateFunctionConfiguration changed $LATEST (`previous`: as it was before, from
        `as_before_update`; registry.saved gave it the RevisionId it has once the update completes): the update is
        in progress from `now` for `seconds` on the emulator's clock (Settings.function_update_seconds), answered
        InProgress under a RevisionId of its own, and until it completes every invocation of $LATEST runs `previous`
        (`running`), as the Lambda Developer Guide says ("Lambda function states", Function states while updating:
        "InProgress – An update is happening on an existing function. While a function update is in progress,
        invocations go to the function's previous code and configuration.").

        What completes it, whichever comes first: its state read (`update_read`; or the version UpdateFunctionCode
        published with it read Active: registry.update_read), or its `seconds` past on the emulator's clock
        (`updating`), which moves with the computer's and with every advance. A read, because a caller that waits
        reads (boto3's function_updated_v2 waiter, SAM, the CDK, CloudFormation) and AWS's recordings show the read
        right after an update InProgress and the next Successful (`update_read`): so waiting costs one poll. The
        clock, because on AWS an update completes within seconds whether or not anybody reads: a caller that updates
        and never reads would otherwise run the old code for ever. Not an invocation by one of Lambda's services (a
        mapping's batch, SNS, S3, EventBridge, Pipes, an asynchronous event): on AWS those run the previous code
        during the update like any other (unlike a Pending function's creation, `creation_completed`). A restart
        neither completes nor restarts it: it is written down with its end on the clock (functions/durable)."""
        self.update = Update(ends=now + seconds, revision_id=str(uuid.uuid4()), previous=previous)

    def publishing_started(self) -> None:
        """A version UpdateFunctionCode published (Publish) is Pending until read, as AWS answered it
        (test_lambda_api.snapshot.json, TestLambdaVersions::test_publish_with_update: the update's answer and
        "get_function_version_result" Pending under one RevisionId; PublishVersion's own versions are Active at once:
        test_version_lifecycle's "first_publish_response")."""
        self.transition = ("created", str(uuid.uuid4()))

    def updating(self, now: float) -> bool:
        """Whether an update of the function's $LATEST is in progress at `now` (`update_started`)."""
        update = self.root.update
        return update is not None and now < update.ends

    def running(self, now: float) -> "Function":
        """What an invocation of this version runs at `now`: $LATEST as it was before its update while the update is
        in progress (`update_started`), else itself."""
        if self.update is not None and self.updating(now):
            return self.update.previous
        return self

    def creation_started(self) -> None:
        """CreateFunction made it: State Pending (StateReasonCode Creating) until it is first read, or a service of
        Lambda's invokes it (`creation_completed`), the same deterministic model as an update's (`update_read`): no
        clock, no sleep. Meanwhile Invoke (`check_active`) and the updates and PublishVersion (`check_not_updating`)
        are refused, as the Lambda Developer Guide says ("Lambda function states": "Lambda does not invoke a function
        during pending state. Any invocations or other API actions that operate on the function will fail")."""
        self.transition = (CREATING, str(uuid.uuid4()))

    def creation_completed(self) -> None:
        """The function is Active: its creation (CreateFunction's Pending) is complete, under a RevisionId of its own.

        What completes it: the first GetFunction or GetFunctionConfiguration of any of its versions, which then
        answers Active, not Pending. No AWS recording shows a read right after CreateFunction (LocalStack's
        AWS-validated tests all wait with their create_lambda_function fixtures: test_lambda.snapshot.json
        test_function_state's "get-fn-response" and test_lambda_api.snapshot.json TestLambdaRevisions::
        test_function_revisions_basic's "get_function_response_rev2" are Active, read after the wait), so a waiter
        (boto3's function_active_v2 and function_exists poll GetFunction, function_active GetFunctionConfiguration)
        goes on at its first poll instead of sleeping its 1 second delay for each function made. Also: an invocation
        by one of Lambda's services (an event source mapping, SNS, S3, EventBridge, Pipes, an asynchronous event's
        retry: Invoker.invoke), which on AWS runs long after the function became Active, and Eddy's own deploy paths
        (its CloudFormation engine reads the function before it goes on, as AWS's waits for it; a registered callable
        is never Pending)."""
        root = self.root
        if root.transition is not None and root.transition[0] == CREATING:
            root.transition = None

    @property
    def pending(self) -> bool:
        """State Pending: the function's creation (CreateFunction) is not complete, or this is a version
        UpdateFunctionCode published that is still being created."""
        return any(t is not None and t[0] in (CREATING, "created") for t in (self.transition, self.root.transition))

    def check_active(self) -> None:
        """Invoke (every InvocationType) and InvokeAsync fail while the function is Pending, in AWS's words (the Lambda
        Developer Guide, "Troubleshoot invocation issues in Lambda": "ResourceConflictException: The operation cannot
        be performed at this time. The function is currently in the following state: Pending"; LocalStack's
        lambda_service.py answers the same, HTTP 409)."""
        if self.pending:
            raise ResourceConflictException(
                "The operation cannot be performed at this time. The function is currently in the following state: "
                "Pending"
            )

    def update_read(self) -> "Function | None":
        """GetFunction or GetFunctionConfiguration answered its state: an update (or a version's creation) in
        progress is complete. Answers $LATEST as it was before the update completed (its files and workers are no
        longer needed: registry.update_read), or None.

        Eddy's model of Lambda's asynchronous update: the update is in progress until its state is first read, as a
        caller that waits reads it (boto3's function_updated_v2 and function_active_v2 waiters poll
        GetFunctionConfiguration; SAM, the CDK and CloudFormation wait so), or its time on the clock is over
        (`update_started`). That read answers InProgress under the update's RevisionId, as AWS answered a GetFunction
        right after an update (LocalStack's test_lambda_api.snapshot.json, TestLambdaFunction::
        test_lambda_code_location_zipfile: "update-function-response" and "get-function-response-updated", both
        InProgress under one RevisionId); the next says Successful under a new RevisionId (TestLambdaRevisions::
        test_function_revisions_basic: rev3 answered by UpdateFunctionCode, rev4 once the waiter saw the update
        done). Until then the operations Lambda refuses during an update are refused (`check_not_updating`)."""
        self.transition = None
        return self.update_completed()

    def update_completed(self) -> "Function | None":
        """The update in progress is over (read, or its time on the clock past): $LATEST as it was before it, or
        None when none was in progress."""
        update, self.update = self.update, None
        return None if update is None else update.previous

    def check_not_updating(self, now: float) -> None:
        """UpdateFunctionCode, UpdateFunctionConfiguration and PublishVersion fail while an update is in progress (the
        Lambda Developer Guide, "Lambda function states"), in AWS's words (AWS-recorded: test_lambda_api.snapshot.json,
        TestLambdaFunction::test_lambda_concurrent_code_updates and test_lambda_concurrent_config_updates,
        "update-during-in-progress-update-exc": 409 ResourceConflictException naming the unqualified ARN)."""
        if self.updating(now):
            raise ResourceConflictException(
                f"The operation cannot be performed at this time. An update is in progress for resource: {self.arn}"
            )
        if self.root.transition is not None and self.root.transition[0] == CREATING:
            # while it is Pending after CreateFunction, in the words AWS answered an UpdateFunctionCode right after
            # CreateFunction (409, the unqualified ARN: aws/serverless-application-model#2356, 2022, and a GitHub
            # Actions run's boto3 traceback of 2026-07-11, both from real AWS; not in LocalStack's recordings)
            raise ResourceConflictException(
                f"The operation cannot be performed at this time. The resource {self.arn} is currently in the "
                "following state: 'Pending'. StateReasonCode: 'Creating'"
            )


#: a transition's kind: $LATEST's creation by CreateFunction (Pending until read: Function.creation_completed)
CREATING = "creating"
#: the moment (functions/configuration.py's states) each kind of transition is answered as
ANSWERED_AS = {CREATING: "created", "created": "created"}


@dataclass
class Update:
    """An update of $LATEST in progress (Function.update_started): when it ends on the emulator's clock unless read
    sooner, the RevisionId it is answered InProgress under, and $LATEST as it was before it (what invocations run
    meanwhile)."""

    ends: float
    revision_id: str
    previous: Function
    #: the version UpdateFunctionCode published with it (Publish), if it did: that version read Active completes it
    #: (registry.update_read)
    published: str | None = None


def timestamp(now: float) -> str:
    """Lambda's LastModified format, e.g. 2024-01-01T00:00:00.000+0000."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"
