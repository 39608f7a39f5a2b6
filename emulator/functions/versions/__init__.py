"""A function's published versions and aliases, as Lambda keeps them (published.py's VersionedRegistry: the registry's
part).

    version = registry.publish_version(function, description=None)     # "1", "2", ...: frozen copies of $LATEST
    alias = Alias("live", "2", routing={"3": 0.1})                      # 10% of invocations run version 3

A version is a copy of $LATEST's code and configuration at PublishVersion, never changed afterwards; its number is
one more than the highest ever published for the function (a deleted version's number is not given again).
PublishVersion when neither code nor configuration changed since the last version answers that version again and
publishes nothing (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaVersions::test_version_lifecycle,
"third_publish_response" is version 2 again, its Description unchanged). An alias names one version ($LATEST too),
and may send a share of invocations to one other version (RoutingConfig.AdditionalVersionWeights): Invoke picks the
version by those weights, each time.
"""

from eddy.emulator.functions.versions.aliases import LATEST, NOT_LISTED, VOLATILE, Alias, fingerprint, listed

__all__ = ["LATEST", "NOT_LISTED", "VOLATILE", "Alias", "fingerprint", "listed"]
