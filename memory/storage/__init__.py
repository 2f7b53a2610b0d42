"""Storage: the record database (SQLite or PostgreSQL), the Chroma vector index, the job queue, locks and caches.

``store.MemoryStore`` is the one door to the rest; ``db.RecordDB`` holds records, postings, jobs and
metadata; ``sql`` speaks SQLite and PostgreSQL; ``migrations`` is the schema; ``vectors`` the
Chroma index; ``jobs`` the queue of ended sessions; ``locks`` named locks across processes;
``terms`` each user's learned ontology terms; ``cache`` values kept per user's write version.
"""
