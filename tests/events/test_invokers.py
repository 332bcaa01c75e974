"""The process's pool of invocation threads (emulator/events/invokers.py): a cap, and work
beyond it waiting its turn in order, counted."""

import threading

from emulator.events.invokers import Invokers


def test_work_beyond_the_cap_waits_its_turn_in_order_and_is_counted():
    pool = Invokers(max_threads=1)
    release = threading.Event()
    started, order, finished = threading.Semaphore(0), [], threading.Semaphore(0)

    def blocking(name):
        def work():
            order.append(name)
            started.release()
            release.wait(10)
            finished.release()

        return work

    for name in "abcde":
        pool.submit(blocking(name))
    assert started.acquire(timeout=10)
    shown = pool.as_dict()
    assert (shown["threads"], shown["running"], shown["waiting"], shown["waited"]) == (1, 1, 4, 4)
    release.set()
    for _ in "abcde":
        assert finished.acquire(timeout=10)
    assert order == list("abcde")
    assert pool.as_dict()["threads"] == 1  # never more than the cap


def test_an_idle_thread_takes_new_work_without_a_new_thread():
    pool = Invokers(max_threads=4)
    done = threading.Semaphore(0)
    for _ in range(3):
        pool.submit(done.release)
        assert done.acquire(timeout=10)
    assert pool.as_dict()["threads"] == 1 and pool.as_dict()["waited"] == 0
