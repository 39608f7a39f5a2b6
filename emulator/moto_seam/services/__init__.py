"""The seam of moto's plain services (S3, SQS, SNS, IAM, layers, ...) for their durability: a request's moment
(moments.py), a request as the journal keeps and replays it (requests.py), their state for snapshots (state.py)."""
