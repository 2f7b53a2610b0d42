"""Code signals that a message needs memory (``caim.memory.text.memory_signals``): the controller
never routes these to "no memory", whatever the model says."""

from __future__ import annotations

import pytest

from caim.memory.text import memory_signals


@pytest.mark.parametrize(
    "message,signal",
    [
        ("Do you remember what I said about my sister?", "past_reference"),
        ("You recommended a podcast last time, which one was it?", "past_reference"),
        ("I once recommended a cooking show to you, what was it called?", "past_reference"),
        ("We once talked about a hiking trail. Where was it?", "past_reference"),
        ("I showed you a photo of my garden, what flowers were in it?", "past_reference"),
        ("What is my dog's name?", "self_question"),
        ("When I was at the museum, I bought a poster. What was on it?", "self_question"),
        ("What did I do yesterday?", "time_reference"),
    ],
)
def test_memory_questions_raise_a_signal(message, signal):
    assert memory_signals(message)[signal] is True


@pytest.mark.parametrize(
    "message", ["What is the capital of France?", "How do I boil an egg?", "Tell me a joke about cats."]
)
def test_general_questions_raise_none(message):
    signals = memory_signals(message)
    assert not any(v for k, v in signals.items() if k != "question")
