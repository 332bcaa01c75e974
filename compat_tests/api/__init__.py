"""The SQS API as real boto3 clients see it, in both protocols: each operation's behaviour, validation, errors and wire shapes, against AWS's documented and recorded behaviour."""
