"""The extensible three-level tag ontology (categories → subcategories → attributes)."""

from caim.ontology.ontology import Ontology, OntologyStore, Proposal

__all__ = ["Ontology", "OntologyStore", "Proposal"]
