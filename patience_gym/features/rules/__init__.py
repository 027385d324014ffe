"""Rules-only move encodings (``rules_moves``): each legal move by what it does, read from the visible position.

Every game's ``rules_moves`` observation is its plain ``planes`` encoding,
then two position values, then ``slots`` rows of :data:`ROW` values, one per
legal move in action order (see :mod:`patience_gym.features.rules.layout`).
These modules use the rules alone: they import nothing from
:mod:`patience_gym.heuristics` (an import-linter contract checks it) and hold
no evaluation, lookahead or replay. The one value computed past the move is
the number of legal moves in the position it leads to, and only when that
position shows no card that was hidden before it.
"""
