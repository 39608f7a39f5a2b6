"""What the dashboard and `eddy tail --queue` read of moto's services: each queue's message events
(queue_activity.py, noted by moto_seam/sqs.py's wrappers), every queue's figures (queues.py), SNS subscriptions and
S3 buckets' notification configurations (notifications.py) and EventBridge rules (rules.py). Reads only: nothing
here changes what moto answers."""
