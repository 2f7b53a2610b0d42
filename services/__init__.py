"""The operations both the graph's nodes and the library's ``Memory`` need, below both of them.

A node and ``Memory`` call down to the same function here, so a rule has one home: the ranked search
with its query analysis (``search``), the privacy bounds (``bounds``), keeping the profile true to
what is stored (``profile``), the records a correction, a forgetting or a denial makes (``records``),
and adding turns that already happened to a session (``sessions``). The package sits on ``memory``,
``ontology`` and ``core``; nothing here knows the graph's state, steps or ``Env``.
"""
