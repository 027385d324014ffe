"""Issue 34 study (section 22 of the research notes): search and solver labels that use what PPO learned.

- ``golf_q_labels``: positions of epsilon-greedy Golf holes (or of a fitted student's, a DAgger round),
  each legal move labelled with its exact value in the true deal (the perfect-knowledge solver);
- ``golf_q_fit``: ``GolfMoves`` on ``rules_moves`` fitted to those values (amortised hindsight
  optimisation), then played on the report's 1,000 deals against the greedy;
- ``golf_q_regret``: on the student's own positions, each move's mean exact value over 16 sampled worlds,
  and the student's and the greedy's shortfall from the best;
- ``golf_q_ppo``: MaskablePPO from a fitted network (its critic first);
- ``milligan_learned_planner``: the family planner with the learned policy's top moves added to its
  candidates (``--prior K``), or its rollouts' last positions scored by the learned critic (``--critic MIX``).
"""
