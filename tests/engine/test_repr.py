"""What the debugger and the logs show of a queue, a message and the broker: their
state in a line, read without the queue's lock and without walking the messages."""

import threading

from engine_support import ACCOUNT, REGION, send


def test_a_queue_shows_its_kind_name_and_counts(broker, queue):
    send(queue, "visible")
    send(queue, "delayed", delay=60)
    queue.receive(1, 30, 0)
    send(queue, "visible again")
    assert repr(queue) == "<StandardQueue q1 000000000000/us-east-1: 1 visible, 1 in flight, 1 delayed>"
    fifo, _ = broker.create_queue(ACCOUNT, REGION, "f.fifo", {"FifoQueue": "true"})
    broker.delete_queue(fifo)
    assert repr(fifo) == "<FifoQueue f.fifo 000000000000/us-east-1 deleted: 0 visible, 0 in flight, 0 delayed>"


def test_a_queue_shows_itself_while_another_thread_holds_its_lock(queue):
    shown = []
    with queue._lock:  # a debugger may stop a thread here
        reader = threading.Thread(target=lambda: shown.append(repr(queue)), daemon=True)
        reader.start()
        reader.join(2.0)
    assert shown, "repr(queue) waited for the queue's lock"


def test_a_message_shows_its_id_place_state_and_receives_but_not_its_body(queue):
    message = send(queue, "the secret body", group_id="tenant-1")
    queue.receive(1, 30, 0)
    assert repr(message) == f"<Message {message.id} #1 inflight, received 1, group 'tenant-1'>"
    assert "secret" not in repr(message)


def test_the_broker_shows_its_queues_and_its_clock(broker, queue):
    assert repr(broker) == "<Broker 1 queues, ManualClock at 1000000.000>"
