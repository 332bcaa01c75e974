"""The queue URL forms (emulator/api/queue_urls.py): what each renders, and what any URL names."""

import pytest

from emulator.api.queue_urls import Address, parse, render

BASE = "http://127.0.0.1:9324"


@pytest.mark.parametrize(
    "form,region,url",
    [
        ("aws", "us-east-1", f"{BASE}/000000000000/q"),
        ("aws", "eu-west-1", f"{BASE}/000000000000/q"),
        ("path", "us-east-1", f"{BASE}/000000000000/q"),
        ("path", "eu-west-1", f"{BASE}/eu-west-1/000000000000/q"),
        ("host", "us-east-1", "http://sqs.us-east-1.127.0.0.1:9324/000000000000/q"),
        ("host", "eu-west-1", "http://sqs.eu-west-1.127.0.0.1:9324/000000000000/q"),
    ],
)
def test_each_form_renders_its_shape(form, region, url):
    assert render(form, BASE, region, "000000000000", "q", "us-east-1") == url


def test_the_host_form_replaces_a_regional_host_the_request_came_to():
    base = "http://sqs.eu-west-1.localhost:4566"
    assert render("host", base, "ap-south-1", "000000000000", "q", "us-east-1") == (
        "http://sqs.ap-south-1.localhost:4566/000000000000/q"
    )


@pytest.mark.parametrize(
    "url,address",
    [
        ("q", Address(None, None, "q")),
        (f"{BASE}/000000000000/q", Address(None, "000000000000", "q")),
        (f"{BASE}/eu-west-1/000000000000/q", Address("eu-west-1", "000000000000", "q")),
        ("https://sqs.eu-west-1.amazonaws.com/000000000000/q", Address("eu-west-1", "000000000000", "q")),
        (
            "http://sqs.us-gov-west-1.localhost:4566/000000000000/q.fifo",
            Address("us-gov-west-1", "000000000000", "q.fifo"),
        ),
        # A --hostname that starts with sqs. names no region.
        ("http://sqs.internal:4566/000000000000/q", Address(None, "000000000000", "q")),
        ("/000000000000/q/", Address(None, "000000000000", "q")),
    ],
)
def test_any_form_is_read(url, address):
    assert parse(url) == address


@pytest.mark.parametrize("url", ["", f"{BASE}/", f"{BASE}/q", f"{BASE}/a/b/c/d", f"{BASE}//q"])
def test_a_url_that_names_no_queue(url):
    assert parse(url) is None
