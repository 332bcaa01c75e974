"""Real clients other than boto3 against the server: the AWS CLI, the AWS SDK for
JavaScript v3 (node/), and Celery through kombu's SQS transport."""
