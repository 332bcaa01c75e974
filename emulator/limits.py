"""AWS's SQS limits: the one table every layer reads them from.

Numbers only; the wording of the errors that enforce them stays with the
check (api/validation.py, engine/attributes.py). Source: the SQS Developer
Guide's quotas pages, as docs/sqs-reference.md section 1 records them.
"""

# Time, in seconds.
MAX_DELAY_SECONDS = 900  # DelaySeconds, per queue and per message
MAX_VISIBILITY_TIMEOUT = 43_200  # 12 hours, also the cap on a message's total visibility
MAX_WAIT_SECONDS = 20  # long poll: WaitTimeSeconds, ReceiveMessageWaitTimeSeconds
MIN_RETENTION_SECONDS = 60
MAX_RETENTION_SECONDS = 1_209_600  # 14 days
DEFAULT_RETENTION_SECONDS = 345_600  # 4 days
DEFAULT_VISIBILITY_TIMEOUT = 30
MIN_KMS_REUSE_SECONDS = 60
MAX_KMS_REUSE_SECONDS = 86_400
DEDUP_WINDOW_SECONDS = 300  # FIFO deduplication ids and receive-attempt ids
PURGE_COOLDOWN_SECONDS = 60  # one PurgeQueue per queue per minute
RECREATE_COOLDOWN_SECONDS = 60  # a deleted queue's name is free again after this

# Sizes, in bytes.
MIN_MESSAGE_SIZE = 1024  # the smallest MaximumMessageSize a queue may set
MAX_MESSAGE_SIZE = 1_048_576  # 1 MiB: a message, and a whole batch
MAX_BATCH_BYTES = MAX_MESSAGE_SIZE

# Counts.
MAX_BATCH_ENTRIES = 10  # entries of a batch request, messages of one receive
MAX_MESSAGE_ATTRIBUTES = 10
MAX_INFLIGHT = 120_000  # in-flight messages per queue
MAX_LIST_RESULTS = 1000  # ListQueues, ListDeadLetterSourceQueues
MAX_TAGS = 50
MAX_TAG_KEY_LENGTH = 128
MAX_TAG_VALUE_LENGTH = 256
MAX_PERMISSION_ACTIONS = 7  # actions of one AddPermission, or of one statement of a Policy
MAX_RECEIVE_COUNT = 1000  # a redrive policy's maxReceiveCount
MAX_REDRIVE_SOURCES = 10  # queues a RedriveAllowPolicy byQueue may name
MAX_MOVE_RATE = 500  # messages per second of a move task
MAX_MOVE_TASK_RESULTS = 10  # ListMessageMoveTasks
