"""A mapping's settings and AWS's checks of them (emulator/events/spec.py), on a
manual-clock broker; each refusal cites its Lambda document."""

import sys

import pytest
from engine_support import ACCOUNT, REGION

from emulator.events.spec import MappingError, MappingSpec, parse


def handler(event, context):
    return None


@pytest.fixture
def fifo(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q.fifo", {"FifoQueue": "true", "VisibilityTimeout": "30"})
    return queue


def test_the_defaults_are_lambdas(queue):
    # services-sqs-parameters: BatchSize 10, MaximumBatchingWindowInSeconds 0, Enabled true;
    # a function's default timeout is 3 seconds.
    spec = parse({"target": handler}, queue)
    assert spec == MappingSpec(target=spec.target)
    assert spec.as_dict() == {
        "target": "<in-process handler>",
        "batch_size": 10,
        "batching_window_seconds": 0,
        "report_batch_item_failures": False,
        "maximum_concurrency": None,
        "filters": [],
        "enabled": True,
        "timeout_seconds": 3,
    }


def test_a_change_keeps_the_fields_it_does_not_name(queue):
    spec = parse({"target": handler, "batch_size": 5, "report_batch_item_failures": True}, queue)
    changed = parse({"enabled": False}, queue, spec)
    assert (changed.batch_size, changed.report_batch_item_failures, changed.enabled) == (5, True, False)


@pytest.mark.parametrize(
    "fields, field, problem",
    [
        ({}, "target", "is required"),
        ({"target": "not a target"}, "target", "'not a target' is neither an http(s) URL"),
        ({"target": "no_such_module_xyz:handler"}, "target", "cannot import no_such_module_xyz:handler"),
        ({"target": []}, "target", "a command is a non-empty list of strings"),
        ({"target": handler, "colour": "red"}, "colour", "is not a field of a mapping"),
        # services-sqs-parameters: BatchSize 1 to 10,000 on a standard queue
        ({"target": handler, "batch_size": 0}, "batch_size", "must be from 1 to 10000, not 0"),
        ({"target": handler, "batch_size": 10_001, "batching_window_seconds": 1}, "batch_size", "must be from"),
        ({"target": handler, "batch_size": "10"}, "batch_size", "must be an integer"),
        # CreateEventSourceMapping: MaximumBatchingWindowInSeconds 0 to 300; over 10 records need >= 1
        ({"target": handler, "batching_window_seconds": 301}, "batching_window_seconds", "must be from 0 to 300"),
        ({"target": handler, "batch_size": 11}, "batching_window_seconds", "must be at least 1 when batch_size"),
        # services-sqs-scaling: MaximumConcurrency 2 to 1,000
        ({"target": handler, "maximum_concurrency": 1}, "maximum_concurrency", "must be from 2 to 1000"),
        ({"target": handler, "maximum_concurrency": 1001}, "maximum_concurrency", "must be from 2 to 1000"),
        # invocation-eventfiltering: five filters by default
        ({"target": handler, "filters": [{"body": ["x"]}] * 6}, "filters", "at most 5 filters"),
        ({"target": handler, "filters": [{"body": "x"}]}, "filters[0]", "body: a pattern's values"),
        ({"target": handler, "enabled": "yes"}, "enabled", "must be true or false"),
        # with-sqs: the queue's visibility timeout must be at least the function's timeout
        (
            {"target": handler, "timeout_seconds": 31},
            "timeout_seconds",
            "Queue visibility timeout: 30 seconds is less than Function timeout: 31 seconds",
        ),
    ],
)
def test_bad_settings_are_refused_naming_the_field(queue, fields, field, problem):
    with pytest.raises(MappingError) as refused:
        parse(fields, queue)
    assert refused.value.field == field
    assert refused.value.problem.startswith(problem) or problem in refused.value.problem


def test_a_fifo_queue_takes_at_most_ten_records_and_no_batching_window(fifo):
    # services-sqs-parameters: "For FIFO queues, the maximum is 10"; "Batching window is not
    # supported for FIFO queues".
    with pytest.raises(MappingError, match="batch_size: must be from 1 to 10 for a FIFO queue"):
        parse({"target": handler, "batch_size": 11, "batching_window_seconds": 1}, fifo)
    with pytest.raises(MappingError, match="batching_window_seconds: is not supported for FIFO queues"):
        parse({"target": handler, "batching_window_seconds": 1}, fifo)
    assert parse({"target": handler, "batch_size": 10}, fifo).batch_size == 10


def test_targets_by_kind(queue):
    assert parse({"target": "http://127.0.0.1:9001/2015-03-31/functions/function/invocations"}, queue).target.name
    assert parse({"target": ["python3", "-c", "pass"]}, queue).target.describe() == ["python3", "-c", "pass"]
    assert parse({"target": "json:dumps"}, queue).target.describe() == "json:dumps"


def test_a_command_whose_program_does_not_exist_is_refused(queue, tmp_path):
    with pytest.raises(MappingError, match="target: no program 'no-such-program-xyz' on PATH"):
        parse({"target": ["no-such-program-xyz"]}, queue)
    with pytest.raises(MappingError, match="is not an executable file"):
        parse({"target": [str(tmp_path / "missing")]}, queue)


def test_a_module_target_from_http_imports_nothing(queue, monkeypatch):
    # The config file and Python import the module (its code is the operator's); over HTTP only a
    # module this process imported already is looked up, and its attributes without running code.
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    with pytest.raises(MappingError, match="module 'colorsys' is not imported by this server"):
        parse({"target": "colorsys:rgb_to_hsv"}, queue, remote=True)
    assert "colorsys" not in sys.modules
    assert parse({"target": "json:dumps"}, queue, remote=True).target.describe() == "json:dumps"
    with pytest.raises(MappingError, match="no 'nothing' in json"):
        parse({"target": "json:nothing"}, queue, remote=True)
    assert parse({"target": "colorsys:rgb_to_hsv"}, queue).target.describe() == "colorsys:rgb_to_hsv"
    assert "colorsys" in sys.modules
