"""Search over any game of the engine, written once in numba.

- :mod:`.tree`: the shared tree arrays and MCTS kernel (UCB1 over
  availability counts, expansion, playout, backup), run as SO-ISMCTS
  (a redeal per iteration) or as UCT on one fixed world;
- :mod:`.ismcts`: single-observer information set MCTS;
- :mod:`.pimc`: determinized search (UCT or flat Monte Carlo per world)
  and perfect-information UCT on a given state (the cheating reference);
- :mod:`.bench`: iterations per second against random playouts, and
  cold/warm start-up of the first decision.
"""
