"""The bookkeeping of an index that deletes lazily.

The ready orders (standard.py, fifo.py), the arrival order (retention.py) and
the deadlines (deadlines.py) leave an entry of a message that went away in
place, to be dropped when it surfaces or when the index compacts: removing it
at once would cost a search. LazyDeletions counts the live and departed
entries and says when to compact.
"""

# Compact when more than this many entries belong to departed messages (and
# they outnumber the live ones): the index stays at most about twice its size.
COMPACT_AFTER = 1024


class LazyDeletions:
    """Counts of an index that leaves departed messages' entries in place: compact
    when they pile up. The index adds 1 to `live` for an entry it adds and takes 1
    off for one it pops (a field, not a call: these run for every message)."""

    __slots__ = ("gone", "live")

    def __init__(self):
        self.live = 0  # entries of messages still there
        self.gone = 0  # entries of messages that went away, at most

    def departed(self) -> bool:
        """A message went away and its entry stays: True when the index should compact now."""
        self.live -= 1
        self.gone += 1
        return self.gone > COMPACT_AFTER and self.gone > self.live

    def compacted(self) -> None:
        self.gone = 0
