"""Playing agents on seeded deals and showing what they did: :mod:`agents.evaluation.evaluate` (the command line
and the library it re-exports: :mod:`~agents.evaluation.intervals`, :mod:`~agents.evaluation.episodes`,
:mod:`~agents.evaluation.blocks`; tables with intervals, per-deal scores, game records),
:mod:`agents.evaluation.watch` (a game as text, an image or a GIF) and :mod:`agents.evaluation.sharding`
(independent shards of work run serially, in processes or on Ray, kept in a state dir with one writer
(:mod:`~agents.evaluation.writer_lock`); it knows nothing of agents)."""
