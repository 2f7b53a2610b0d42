"""Ontology extension role: is the session's content covered by the ontology, and if not, which new
single-word terms should be added, under which existing parent.

VERSION 1. Parents are enumerated; terms are validated in code (``caim.ontology``).
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from caim.prompts.common import DATA_RULE, literal

VERSION = 1


def schema(parents: list[str]) -> type[BaseModel]:
    term = create_model(
        "NewTerm",
        parent=(literal(parents), Field(description="Existing category, or category/subcategory.")),
        term=(str, Field(description="One new lowercase English word.")),
    )
    return create_model(
        "Coverage",
        covered=(Literal["yes", "no"], Field(description="Do existing tags describe these facts well?")),
        new_terms=(list[term], Field(max_length=3)),
    )


def messages(facts: list[str], outline: str) -> list[BaseMessage]:
    listed = "\n".join(f"- {f}" for f in facts)
    return [
        SystemMessage(
            "You maintain a tag ontology (category: subcategory(attributes)). Decide whether the facts "
            "below can be tagged well with existing terms. If not, propose at most three new single-word "
            "lowercase terms, each under an existing parent. " + DATA_RULE + "\nOntology:\n" + outline
        ),
        HumanMessage(f"<data>\n{listed}\n</data>"),
    ]
