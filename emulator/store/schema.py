"""The SQLite schema, versioned by PRAGMA user_version, and its migrations.

A database is ours when its application_id is APPLICATION_ID. Each migration
takes the schema from the version before it to its own; a new version appends
one, never edits an old one, so any older file can be brought forward.
"""

APPLICATION_ID = 0x53515345  # "SQSE"

MIGRATIONS = [
    # 1: queues, their messages, FIFO deduplication ids, move tasks, re-create cooldowns, the manual clock
    """
    CREATE TABLE queues (
        id INTEGER PRIMARY KEY,
        account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
        fifo INTEGER NOT NULL,
        attributes TEXT NOT NULL, tags TEXT NOT NULL,
        created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL, purged_at REAL,
        seq INTEGER NOT NULL DEFAULT 0,  -- the highest arrival number given out
        UNIQUE (account, region, name)
    );
    CREATE TABLE messages (
        queue_id INTEGER NOT NULL, seq INTEGER NOT NULL,
        id TEXT NOT NULL, body TEXT NOT NULL, attributes TEXT, system_attributes TEXT,
        md5_of_body TEXT NOT NULL, md5_of_attributes TEXT,
        group_id TEXT, dedup_id TEXT, sequence_number TEXT,
        sent_at REAL NOT NULL, sender_id TEXT NOT NULL, dead_letter_source TEXT,
        state TEXT NOT NULL, receive_count INTEGER NOT NULL, first_receive_at REAL,
        nonce TEXT, received_at REAL NOT NULL, due REAL,
        PRIMARY KEY (queue_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE dedup (
        queue_id INTEGER NOT NULL, key TEXT NOT NULL,
        message_id TEXT NOT NULL, sequence_number TEXT, expires_at REAL NOT NULL,
        PRIMARY KEY (queue_id, key)
    ) WITHOUT ROWID;
    CREATE TABLE move_tasks (handle TEXT PRIMARY KEY, source_arn TEXT NOT NULL, state TEXT NOT NULL);
    CREATE TABLE cooldowns (
        account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, deleted_at REAL NOT NULL,
        PRIMARY KEY (account, region, name)
    ) WITHOUT ROWID;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
    """,
    # 2: a FIFO queue's deduplication scope as created, which its deduplication keeps whatever
    # SetQueueAttributes later says (AWS-recorded, issue 18); NULL: the row's attribute
    """
    ALTER TABLE queues ADD COLUMN dedup_scope TEXT;
    """,
]

VERSION = len(MIGRATIONS)
