"""Helpers the store tests share: a broker on an SQLite store in a directory, and
reading the store's file from another connection."""

import sqlite3

from engine_support import T0

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.server.drivers import committed_here
from emulator.store.sqlite import SqliteStore


def open_broker(path, sync="interval", interval_ms=10):
    """A broker on a manual clock whose journal is a store on `path`, recovered."""
    store = SqliteStore(str(path), sync, interval_ms)
    broker = Broker(ManualClock(store.clock_time or T0), journal=store)
    store.recover(broker)
    return broker, store


def close(broker, store):
    broker.close()
    store.close()


def rows(path, sql, params=()):
    with sqlite3.connect(path / "sqs.db") as db:
        return db.execute(sql, params).fetchall()


def durable(store):
    """Return once every change so far is committed, as the server's thread driver waits for
    it (a callback from the writer, an Event); raise the write's error."""
    error = committed_here(store)
    if error is not None:
        raise error
