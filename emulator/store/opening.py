"""Opening a data dir: the directory's lock, the file's identity, its schema.

Every refusal is a StoreError naming the file and what to do; nothing here
writes to a file that is not ours or not readable.

A data dir holds messages and is written into, so it must be the user's alone, by
ssh's rule for ~/.ssh: an existing directory that another user owns (or a link to
one that another user made), or that its group or others may write in, is refused;
a new one is made 0700. Its lock file is opened without following a link, made
exclusively where it is new, and must be a plain file of the user's (another user
could otherwise have `lock` point at a file of the victim's, which the lock's pid
would overwrite).
"""

import errno
import fcntl
import logging
import os
import sqlite3
import stat

from emulator.store.base import StoreError
from emulator.store.schema import APPLICATION_ID, MIGRATIONS, VERSION

log = logging.getLogger(__name__)

LOCK_FILE = "lock"
PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600
# SQLite gives its -wal and -shm files the mode of the database file.
SQLITE_SUFFIXES = ("", "-wal", "-shm")


def lock_directory(directory: str):
    """Hold DIR/lock for this process (flock); a second process is refused, naming the first.
    A directory that is not the user's alone, or a lock that is not a plain file of the
    user's, is refused (StoreError)."""
    try:
        # Messages are private: the directory and every file in it are the user's alone.
        os.makedirs(directory, mode=PRIVATE_DIRECTORY, exist_ok=True)
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise StoreError(f"cannot use data dir {directory}: {error.strerror}") from None
    try:
        _check_private(directory, os.lstat(directory), os.fstat(dir_fd))
        # Held open for the process's life: the lock lives as long as the file is open.
        lock_file = os.fdopen(_open_lock(directory, dir_fd), "a+")
    finally:
        os.close(dir_fd)
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock_file.seek(0)
        holder = lock_file.read().strip() or "unknown"
        lock_file.close()
        raise StoreError(
            f"data dir {directory} is in use by another sqs-emulator process (pid {holder}); "
            "stop that process or choose another --data-dir"
        ) from None
    lock_file.truncate(0)
    lock_file.write(f"{os.getpid()}\n")
    lock_file.flush()
    return lock_file


def _check_private(directory: str, link: os.stat_result, opened: os.stat_result) -> None:
    user = os.geteuid()
    if stat.S_ISLNK(link.st_mode) and link.st_uid != user:
        raise StoreError(
            f"data dir {directory} is a link made by another user (uid {link.st_uid}); choose a directory of your own"
        )
    if opened.st_uid != user:
        raise StoreError(
            f"data dir {directory} belongs to another user (uid {opened.st_uid}, not {user}); "
            "choose a directory of your own"
        )
    if opened.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise StoreError(
            f"data dir {directory} may be written by its group or others (mode {stat.S_IMODE(opened.st_mode):o}); "
            f"make it private (chmod 700 {directory}) or choose another --data-dir"
        )


def _open_lock(directory: str, dir_fd: int) -> int:
    """DIR/lock's descriptor, opened in the directory already checked, never through a link."""
    path = os.path.join(directory, LOCK_FILE)
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        try:
            fd = os.open(LOCK_FILE, flags | os.O_CREAT | os.O_EXCL, PRIVATE_FILE, dir_fd=dir_fd)
        except FileExistsError:
            fd = os.open(LOCK_FILE, flags | os.O_NONBLOCK, dir_fd=dir_fd)  # a FIFO must not hold the start
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise StoreError(f"{path} is a symbolic link, which a lock never is; remove it") from None
        raise StoreError(f"cannot use data dir {directory}: {error.strerror}") from None
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_uid != os.geteuid() or found.st_nlink != 1:
        os.close(fd)
        raise StoreError(f"{path} is not a plain file of this user's, as a lock is; remove it")
    return fd


def open_database(path: str, sync: str) -> sqlite3.Connection:
    """The store's file, checked as ours and migrated to the current schema; a clear StoreError otherwise."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_CREAT, PRIVATE_FILE))  # a new file is born private
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=2)
    except OSError as error:
        raise StoreError(f"cannot open {path}: {error.strerror}; check that it is a readable file") from None
    except sqlite3.Error as error:
        raise StoreError(f"cannot open {path}: {error}; check that it is a readable file") from None
    try:
        _check_and_migrate(db, path, sync)
    except sqlite3.OperationalError as error:
        db.close()
        if "locked" in str(error):
            raise StoreError(f"{path} is locked by another program; close whatever holds it and start again") from None
        raise StoreError(f"cannot open {path}: {error}; check that it is a readable file") from None
    except sqlite3.DatabaseError as error:
        db.close()
        raise damaged(path, error) from None
    except StoreError:
        db.close()
        raise
    _make_private(path)
    return db


def _make_private(path: str) -> None:
    """Files of a store written by an older version (0644) become the user's alone."""
    for name in (path + suffix for suffix in SQLITE_SUFFIXES):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, PRIVATE_FILE)
        except FileNotFoundError:
            pass
        except OSError as error:  # a store error, not the server's address (cli.py reports OSError so)
            raise StoreError(f"cannot make {name} private (chmod 600): {error.strerror}") from None


def damaged(path: str, error: Exception) -> StoreError:
    return StoreError(
        f"{path} is damaged or not an SQLite database ({error}). Nothing was changed: move the "
        "file away (or choose another --data-dir) to start with an empty store"
    )


def _check_and_migrate(db: sqlite3.Connection, path: str, sync: str) -> None:
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    has_tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    if has_tables and application_id != APPLICATION_ID:
        raise StoreError(
            f"{path} is an SQLite database of another program (application_id {application_id:#x}), "
            "not an emulator store. Nothing was changed: choose another --data-dir"
        )
    if version > VERSION:
        raise StoreError(
            f"{path} has schema version {version}, written by a newer sqs-emulator (this one knows "
            f"up to {VERSION}); upgrade the emulator or choose another --data-dir"
        )
    if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
        raise sqlite3.OperationalError("database is locked: cannot switch to WAL mode")
    db.execute(f"PRAGMA synchronous = {'OFF' if sync == 'off' else 'FULL'}")
    for number in range(version + 1, VERSION + 1):
        try:
            db.executescript(
                f"BEGIN IMMEDIATE; {MIGRATIONS[number - 1]}; PRAGMA application_id = "
                f"{APPLICATION_ID}; PRAGMA user_version = {number}; COMMIT;"
            )
        except sqlite3.Error:
            if db.in_transaction:
                db.rollback()
            raise
        if has_tables:  # a new file is not news: only an older store's upgrade is
            log.info("store %s: schema migrated to version %d", path, number)
