"""What the debugger and the logs show of an event source mapping (events/registry.py)."""

from emulator.events.registry import EventSources


def handler(event, context):
    return None


def test_a_mapping_shows_its_id_queue_target_and_state(clock, broker, queue):
    sources = EventSources(clock)
    mapping = sources.create(queue, {"target": handler, "enabled": False})
    try:
        assert repr(mapping) == f"<Mapping {mapping.id} q1 -> handler: disabled>"
    finally:
        sources.clear()
