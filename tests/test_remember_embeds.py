"""What remembering a session embeds, LLM-free: each new record's embedded text once, in one batch,
and the user's turns that no verbatim record holds, for the intents; maintenance and the intents
read records by the vectors the store holds, so no stored record is embedded again and no thought
or turn is embedded apart from its record."""

from __future__ import annotations

from caim.agent.memory import Memory
from caim.core.scripted import ScriptedChatModel
from caim.core.settings import Settings

FIRST = [
    ("user", "My sister Ana moved to Lisbon last spring and she loves the city."),
    ("assistant", "That sounds lovely. Does she like her new job there?"),
    ("user", "Yes, she works as a nurse at the children's hospital in Lisbon."),
    ("assistant", "What a meaningful job."),
    ("user", "I play the cello in a string quartet every Tuesday evening."),
    ("assistant", "How long have you played?"),
]
SECOND = [
    ("user", "My sister Ana still lives in Lisbon and she works at the children's hospital as a nurse."),
    ("assistant", "Good to hear she is settled."),
    ("user", "Our quartet plays a Haydn piece at the town hall next month, I practise the cello daily."),
    ("assistant", "Good luck with the concert!"),
]


def _messages(session: list[tuple[str, str]], day: int) -> list[dict]:
    return [
        {"role": role, "content": text, "time": f"2024-03-{day:02d}T10:{i:02d}:00"}
        for i, (role, text) in enumerate(session)
    ]


def test_a_session_embeds_each_record_once_and_maintenance_embeds_nothing(tmp_path, monkeypatch):
    settings = Settings(_env_file=None, data_dir=tmp_path, use_model_for=[])
    with Memory(settings, models=ScriptedChatModel(), background=False) as memory:
        store = memory.services.store
        memory.remember(_messages(FIRST, 1), user_id="ann", background=False)
        before = {r.id for r in store.list("ann")}
        assert before
        embedder = memory.services.embedder
        assert embedder is store.embedder
        calls: list[list[str]] = []
        real = embedder.embed

        def counted(texts: list[str]) -> list[list[float]]:
            calls.append(list(texts))
            return real(texts)

        monkeypatch.setattr(embedder, "embed", counted)
        # the embedder remembers no text: as after a restart, every text asked for is embedded
        monkeypatch.delitem(embedder.__dict__, "_remembered", raising=False)
        memory.remember(_messages(SECOND, 2), user_id="ann", background=False)
        records = store.list("ann")
    new = [r for r in records if r.id not in before]
    assert new, "the second session stored nothing"
    embedded = [t for call in calls for t in call]
    assert len(embedded) == len(set(embedded)), "a text was embedded twice"
    # the new records' texts went to the embedder in one call
    texts = {r.embedded_text() for r in new}
    assert any(texts <= set(call) for call in calls), calls
    # besides those, only the user's turns not kept verbatim (read for the intents): no stored
    # record's text or thought, no new record's thought alone, though maintenance compared them,
    # and no turn a verbatim record holds (the intents read it by that record's vector)
    verbatim = {r.thought for r in new if r.kind == "raw" and r.by_user}
    assert verbatim
    said = {text for role, text in SECOND if role == "user"} - verbatim
    others = [t for t in embedded if t not in texts and t not in said]
    assert not others, others
