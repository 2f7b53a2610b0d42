"""The default ontology and its validated, versioned extension."""

import json

from caim.ontology import Ontology, OntologyStore, Proposal


def test_default_is_three_levels_of_single_lowercase_words():
    o = Ontology.default()
    assert {"personal", "family", "food", "health", "sports", "music", "books", "travel", "work", "pets"} <= set(o.tree)
    for tag in o.tags:
        assert tag.isalpha() and tag.islower(), tag
    assert len(o.tags) == len(set(o.tags))
    assert "pizza" not in o and o.path("pizza") == "pizza"  # an unknown term is its own path
    assert "tea" in o and o.path("tea") == "food/drinks/tea"
    assert o.path("name") == "personal/identity/name"


def test_extension_validates_and_persists_a_new_version(tmp_path):
    store = OntologyStore(tmp_path)
    before = store.current
    accepted, rejected = store.extend(
        [
            Proposal("hobbies", "knitting"),  # bad parent (not a category)
            Proposal("personal/hobbies", "knitting"),
            Proposal("personal/hobbies", "Two Words"),
            Proposal("food", "pizza"),  # new subcategory under a category
            Proposal("food", "tea"),  # already present
            Proposal("nonexistent", "thing"),
        ]
    )
    assert [p.term for p in accepted] == ["knitting", "pizza"]
    assert len(rejected) == 4
    assert "knitting" in store.current and "pizza" in store.current
    assert store.current.version == before.version + 1
    saved = json.loads((tmp_path / "ontology" / f"v{store.current.version}.json").read_text())
    assert "knitting" in saved["personal"]["hobbies"] and "pizza" in saved["food"]
    # the shipped default is untouched and a new store picks up the extension
    assert "knitting" not in Ontology.default()
    assert "knitting" in OntologyStore(tmp_path).current


def test_another_form_of_a_term_already_there_is_refused():
    # "dance" and "dream" were accepted beside "dancing" and "dreams" in a bundled-model LoCoMo run
    accepted, rejected = Ontology.default().validate(
        [Proposal("travel", "dream"), Proposal("personal/hobbies", "dance"), Proposal("personal/hobbies", "origami")]
    )
    assert [p.term for p in accepted] == ["origami"]
    assert rejected == [
        "'dream': already in the ontology (as 'dreams')",
        "'dance': already in the ontology (as 'dancing')",
    ]
    # two forms of one new word in one call: the second is refused
    accepted, _ = Ontology.default().validate([Proposal("music", "kazoo"), Proposal("music", "kazoos")])
    assert [p.term for p in accepted] == ["kazoo"]


def test_at_most_three_new_terms_per_call(tmp_path):
    store = OntologyStore(tmp_path)
    accepted, rejected = store.extend(
        [Proposal("personal/hobbies", w) for w in ("knitting", "pottery", "origami", "quilting")]
    )
    assert len(accepted) == 3 and len(rejected) == 1


def test_workers_sharing_a_database_share_the_ontology(tmp_path):
    from caim.memory.storage.db import RecordDB

    db = RecordDB(tmp_path / "records.sqlite")
    a = OntologyStore(tmp_path / "worker-a", shared=db, refresh_s=0)
    b = OntologyStore(tmp_path / "worker-b", shared=db, refresh_s=0)
    accepted, _ = a.extend([Proposal("personal/hobbies", "knitting")])
    assert [p.term for p in accepted] == ["knitting"]
    assert "knitting" in b.current  # the other worker sees it, with nothing in its data dir
    assert not (tmp_path / "worker-a" / "ontology").exists()
    # b extends from the latest version, so a's term is kept and the version numbers do not collide
    b.extend([Proposal("food", "pizza")])
    assert "knitting" in a.current and "pizza" in a.current
    assert a.current.version == b.current.version == Ontology.default().version + 2
    assert "pizza" in OntologyStore(None, shared=db).current  # a restarted worker
