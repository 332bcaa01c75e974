"""The message body check (validation.body): its fast path for ASCII bodies refuses
exactly what the XML character set refuses."""

import pytest

from emulator.api import validation
from emulator.errors import SqsError


@pytest.mark.parametrize("code", range(128))
def test_every_ascii_character_is_judged_as_the_xml_character_set_judges_it(code):
    text = f"before {chr(code)} after"
    allowed = validation.INVALID_CHARACTER.search(text) is None
    if allowed:
        assert validation.body(text) == text.encode()  # its UTF-8 bytes
    else:
        with pytest.raises(SqsError) as refused:
            validation.body(text)
        assert refused.value.name == "InvalidMessageContents"
        assert f"'#x{code:X}'" in refused.value.message


def test_a_body_beyond_ascii_is_still_checked_character_by_character():
    assert validation.body("é \U0001f600") == "é \U0001f600".encode()
    with pytest.raises(SqsError):
        validation.body("é \ufffe")
