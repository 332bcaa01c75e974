"""The query protocol's XML writer writes what xmltodict wrote before it, byte for byte
(the recorded AWS answers in test_wire_fixtures check the documents themselves)."""

import xmltodict
from hypothesis import given
from hypothesis import strategies as st

from emulator.protocol.xml_writer import document

NAMES = st.sampled_from(["Body", "Message", "MessageId", "Attribute", "Name", "Value"])
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
# Nodes as awsquery builds them: a list (a repeated element) is only ever a dict's value.
NODES = st.recursive(
    st.none() | TEXT,
    lambda nodes: st.dictionaries(NAMES, nodes | st.lists(nodes, max_size=3), max_size=4),
    max_leaves=20,
)


def _xmltodict(tree: dict) -> str:
    # What the query protocol wrote before: xmltodict's text with CR escaped as AWS does.
    return xmltodict.unparse(tree, short_empty_elements=True).replace("\r", "&#xD;")


def test_an_envelope_with_every_kind_of_node():
    tree = {
        "ReceiveMessageResponse": {
            "@xmlns": "http://queue.amazonaws.com/doc/2012-11-05/",
            "ReceiveMessageResult": {"Message": [{"Body": "a&<>\"'\r\n\t]]> é😀", "MessageId": ""}, {"Body": None}]},
            "Empty": {},
            "Nothing": [],
            "ResponseMetadata": {"RequestId": "r"},
        }
    }
    assert document(tree) == _xmltodict(tree)
    assert "&amp;&lt;&gt;\"'&#xD;\n\t]]&gt; é😀</Body>" in document(tree)


@given(NAMES, NODES | st.lists(NODES, max_size=3))
def test_any_tree_as_xmltodict_wrote_it(name, value):
    tree = {"Root": {"@xmlns": "ns", name: value}}
    assert document(tree) == _xmltodict(tree)
