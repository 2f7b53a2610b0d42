"""The extensible three-level tag ontology (categories → subcategories → attributes), and tags by meaning."""

from caim.ontology.ontology import Ontology, OntologyStore, Proposal
from caim.ontology.tagger import TagIndex

__all__ = ["Ontology", "OntologyStore", "Proposal", "TagIndex"]
