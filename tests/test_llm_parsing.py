"""Reading the JSON object out of what models really send back."""

from __future__ import annotations

import pytest

from kronograph.llm.parsing import NoJSONObjectError, extract_json_object, schema_instruction, strip_thinking


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}\n',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here it is:\n```JSON\n{"a": 1}\n```\nHope this helps!',
        'Sure! {"a": 1} Let me know.',
        '<think>The user wants {"a": 2}? No, {"a": 1}.</think>\n{"a": 1}\nThat is all.',
        '<THINK>\nhmm { unbalanced\n</THINK>{"a": 1}',
        'reasoning without an opening tag {"a": 3}</think>{"a": 1}',
        '<think>\n{"a": 1}',  # unclosed leading think block: the tag goes, the object stays
        'Use {braces} in prose, then {"a": 1}',
        '{"a": 1} {"a": 2}',
    ],
)
def test_finds_the_object(text: str) -> None:
    assert extract_json_object(text) == {"a": 1}


def test_braces_and_quotes_inside_strings_do_not_count() -> None:
    text = 'x {"s": "a } b { c \\" }", "n": {"m": [1, {"k": "}"}]}} y'
    assert extract_json_object(text) == {"s": 'a } b { c " }', "n": {"m": [1, {"k": "}"}]}}


def test_a_malformed_outer_object_does_not_yield_its_inner_one() -> None:
    with pytest.raises(NoJSONObjectError):
        extract_json_object('{"outer": {"inner": 1}, broken}')


def test_the_fence_is_preferred_to_a_loose_object_before_it() -> None:
    assert extract_json_object('Example: {not json}\n```json\n{"a": 1}\n```') == {"a": 1}


@pytest.mark.parametrize("text", ["", "   ", "no json here", "[1, 2]", '{"a": 1', "<think>{\"a\": 1}</think>"])
def test_no_object_is_a_clear_error(text: str) -> None:
    with pytest.raises(NoJSONObjectError, match="JSON object|empty"):
        extract_json_object(text)


def test_error_message_shows_a_short_preview() -> None:
    with pytest.raises(NoJSONObjectError) as info:
        extract_json_object("x" * 1000)
    assert len(str(info.value)) < 300
    assert info.value.text == "x" * 1000


def test_strip_thinking() -> None:
    assert strip_thinking("<think>a</think>b<think>c</think>d") == "bd"
    assert strip_thinking("<thinking>a</thinking>b") == "b"


def test_schema_instruction_carries_the_schema() -> None:
    text = schema_instruction({"type": "object", "properties": {"ä": {"type": "string"}}})
    assert "JSON" in text and '"ä"' in text


def test_nul_characters_are_dropped_from_every_string() -> None:
    answer = '{"entities": [{"name": "Ali\\u0000ce", "attributes": {"k\\u0000": "v"}}], "n": 1}'
    assert extract_json_object(answer) == {"entities": [{"name": "Alice", "attributes": {"k": "v"}}], "n": 1}
