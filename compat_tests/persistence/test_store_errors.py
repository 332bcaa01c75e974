"""A data dir the emulator cannot use stops the start with a message naming the
file and what to do, and leaves the file as it was."""

import hashlib
import os
import pwd
import sqlite3
from pathlib import Path

import pytest

from compat_tests.conftest import TARGET
from compat_tests.restartable import Emulator, refused_start

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own data dir")


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(data_dir, expected: str) -> str:
    result = refused_start("--data-dir", str(data_dir))
    assert result.returncode != 0
    assert expected in result.stderr, result.stderr
    return result.stderr


def _kept_store(tmp_path):
    with Emulator(tmp_path) as emulator:
        url = emulator.client.create_queue(QueueName="precious")["QueueUrl"]
        emulator.client.send_message(QueueUrl=url, MessageBody="keep me")
    return tmp_path / "sqs.db"


def test_a_second_process_on_the_same_data_dir_is_refused(tmp_path):
    with Emulator(tmp_path) as emulator:
        stderr = _refused(tmp_path, "is in use by another sqs-emulator process")
        assert f"pid {emulator.server.process.pid}" in stderr and str(tmp_path) in stderr
        assert emulator.client.list_queues().get("QueueUrls", []) == []  # the first one still serves


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path):
    db = tmp_path / "sqs.db"
    db.write_bytes(b"these are somebody's notes, not a database\n" * 200)
    before = _digest(db)
    stderr = _refused(tmp_path, "is damaged or not an SQLite database")
    assert str(db) in stderr and "move the file away" in stderr
    assert _digest(db) == before


def test_a_damaged_store_is_refused_and_left_alone(tmp_path):
    db = _kept_store(tmp_path)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    data[page + 16 : 3 * page] = b"\xff" * (2 * page - 16)  # pages of tables: garbage
    db.write_bytes(bytes(data))
    before = _digest(db)
    stderr = _refused(tmp_path, str(db))
    assert "damaged" in stderr
    assert _digest(db) == before


def test_another_programs_database_is_refused_and_left_alone(tmp_path):
    db = tmp_path / "sqs.db"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE users (name TEXT)")
        other.execute("INSERT INTO users VALUES ('ada')")
    other.close()
    before = _digest(db)
    _refused(tmp_path, "is an SQLite database of another program")
    assert _digest(db) == before


def test_a_store_from_a_newer_version_is_refused(tmp_path):
    db = _kept_store(tmp_path)
    with sqlite3.connect(db) as newer:
        newer.execute("PRAGMA user_version = 99")
    newer.close()
    _refused(tmp_path, "has schema version 99, written by a newer sqs-emulator")


def test_a_store_locked_by_another_program_is_refused(tmp_path):
    db = _kept_store(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        _refused(tmp_path, f"{db} is locked by another program")
    finally:
        holder.close()
    with Emulator(tmp_path) as emulator:  # once the other program let go, everything is there
        url = emulator.client.get_queue_url(QueueName="precious")["QueueUrl"]
        assert emulator.client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "keep me"


def test_an_unopenable_database_path_and_an_unusable_data_dir_are_refused(tmp_path):
    (tmp_path / "sqs.db").mkdir()
    _refused(tmp_path, f"cannot open {tmp_path / 'sqs.db'}")
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    # A file is refused with the options, in words; a directory that cannot be made, by the store.
    _refused(not_a_dir, f"--data-dir must name a directory (an existing one or one to create), not '{not_a_dir}'")
    _refused(not_a_dir / "sub", f"cannot use data dir {not_a_dir / 'sub'}: Not a directory")


# -- a data dir must be the user's alone (issue 31, item 3; ssh's rule for ~/.ssh) -------


def _listing(directory) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_a_data_dir_of_another_user_is_refused_and_nothing_is_written_in_it(tmp_path):
    """Another local user who made the dir could read every message and swap its files. As root
    the test gives a directory to nobody; otherwise it names one of root's."""
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o700)
        nobody = pwd.getpwnam("nobody")
        os.chown(foreign, nobody.pw_uid, nobody.pw_gid)
        owner = nobody.pw_uid
    else:
        foreign, owner = Path("/"), 0
    stderr = _refused(foreign, f"data dir {foreign} belongs to another user (uid {owner}, not {os.geteuid()})")
    assert stderr.count("\n") == 1  # one line
    if os.geteuid() == 0:
        assert _listing(foreign) == []


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777], ids=["777", "770", "1777"])
def test_a_data_dir_its_group_or_others_may_write_is_refused(tmp_path, mode):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    stderr = _refused(shared, f"data dir {shared} may be written by its group or others (mode {mode:o})")
    assert "chmod 700" in stderr and stderr.count("\n") == 1
    assert _listing(shared) == []


def test_a_lock_that_links_to_another_file_is_never_followed(tmp_path):
    """`lock -> ~victim/somefile` had the victim's file truncated and overwritten with a pid."""
    victim = tmp_path / "victim-notes.txt"
    victim.write_text("somebody's notes\n")
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    (data_dir / "lock").symlink_to(victim)
    _refused(data_dir, f"{data_dir / 'lock'} is a symbolic link, which a lock never is; remove it")
    assert victim.read_text() == "somebody's notes\n"
    hard = tmp_path / "hard"
    hard.mkdir(mode=0o700)
    os.link(victim, hard / "lock")  # a second name of the victim's file
    _refused(hard, f"{hard / 'lock'} is not a plain file of this user's, as a lock is; remove it")
    assert victim.read_text() == "somebody's notes\n"


def test_a_data_dir_of_ones_own_with_a_lock_of_ones_own_is_used(tmp_path):
    data_dir = tmp_path / "mine"
    data_dir.mkdir(mode=0o755)  # not writable by others: fine, as ssh takes it
    (data_dir / "lock").write_text("12345\n")  # a lock a killed process left
    with Emulator(data_dir) as emulator:
        emulator.client.create_queue(QueueName="kept")
    assert "sqs.db" in _listing(data_dir)
