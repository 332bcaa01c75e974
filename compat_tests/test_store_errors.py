"""A data dir the emulator cannot use stops the start with a message naming the
file and what to do, and leaves the file as it was."""

import hashlib
import sqlite3

import pytest

from compat_tests.conftest import TARGET
from compat_tests.persistence import Emulator, refused_start

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
