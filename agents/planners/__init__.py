"""Search planners that see only the visible position: they sample the unseen cards (determinization).

The shared mechanism is :class:`agents.planners.base.DeterminizationPlanner`;
each game adds how to list its visible cards, how to put a sampled order in
its face-down place, and how to score a move in a sampled world:
:mod:`agents.planners.golf`, :mod:`agents.planners.puss`,
:mod:`agents.planners.milligan`. (Import those modules directly: this
package imports none of them, so that a game's planner loads only what it needs.)
"""
