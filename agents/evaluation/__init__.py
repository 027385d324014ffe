"""Playing agents on seeded deals and showing what they did: :mod:`agents.evaluation.evaluate` (tables with
intervals, per-deal scores, game records), :mod:`agents.evaluation.watch` (a game as text, an image or a GIF)
and :mod:`agents.evaluation.sharding` (independent shards of work run serially, in processes or on Ray; it
knows nothing of agents)."""
