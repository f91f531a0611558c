"""A socket's queue is woken whichever thread or event loop queues a message for it: an
asyncio queue is not thread-safe, and a put from another loop (a test client's request runs
on a loop of its own; a worker thread) left the socket's sender asleep with the message in its
queue — two CI runs hung waiting for a screen that was queued."""

from __future__ import annotations

import asyncio
import threading

from caltrop.store.repository import Seat
from caltrop.web.subscriber import Subscriber


def seat() -> Seat:
    return Seat(id=1, table_id="t", role="player", creature_id="aria", revoked=False)


class SocketSide:
    """A socket's loop in a thread of its own, waiting on its queue with no timer (a loop with
    nothing else to do sleeps until something wakes it)."""

    def __init__(self, count: int) -> None:
        self.got: list[object] = []
        self.ready = threading.Event()
        self.done = threading.Event()
        self.subscriber: Subscriber | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.count = count
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()))
        self.thread.start()
        assert self.ready.wait(20)

    async def _run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.subscriber = Subscriber(seat())  # made on the socket's own loop, as the hub does
        self.ready.set()
        for _ in range(self.count):
            message = await self.subscriber.queue.get()
            self.got.append(message.data["n"])
        self.done.set()

    def finish(self) -> bool:
        """Whether every message arrived while the loop was left alone (10 s); then the loop
        is woken either way, so the thread ends."""
        arrived = self.done.wait(10)
        assert self.loop is not None
        while not self.done.is_set():  # a loop left asleep: wake it until it is through
            self.loop.call_soon_threadsafe(lambda: None)
            self.done.wait(0.1)
        self.thread.join(20)
        return arrived


def test_a_put_from_another_thread_wakes_the_sockets_loop() -> None:
    side = SocketSide(1)
    assert side.subscriber is not None
    side.subscriber.put({"type": "view", "n": 1})  # from this thread: no loop runs here
    assert side.finish(), "the message sat in the queue and the socket's loop slept"
    assert side.got == [1]


def test_a_put_from_another_event_loop_wakes_it_too_in_order() -> None:
    side = SocketSide(2)
    subscriber = side.subscriber
    assert subscriber is not None

    async def other_loop() -> None:  # as a second test client's request would
        subscriber.put({"type": "view", "n": 1})
        subscriber.put({"type": "view", "n": 2})

    asyncio.run(other_loop())
    assert side.finish(), "the messages sat in the queue and the socket's loop slept"
    assert side.got == [1, 2]


def test_on_its_own_loop_a_put_is_queued_at_once() -> None:
    async def same_loop() -> list[object]:
        subscriber = Subscriber(seat())
        subscriber.put({"type": "view", "n": 1})
        assert subscriber.queue.qsize() == 1  # no hop through the loop's callbacks
        return [subscriber.queue.get_nowait().data]

    assert asyncio.run(same_loop()) == [{"type": "view", "n": 1}]
