"""Real clients other than boto3 against the server: the AWS CLI, the AWS SDKs for JavaScript
v3 and Go v2, AsyncAws and Symfony Messenger for PHP, and Celery through kombu's SQS transport."""
