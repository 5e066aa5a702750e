"""Self-play training of the ``net`` agent's network (``slagwerk train``).

- :mod:`.config`: a training run's settings (one model: flags, ``config.json``, resume check);
- :mod:`.selfplay`: the actors, which play deals on the engines with the current network
  (numpy and numba only) and return what each seat saw, chose and finally got;
- :mod:`.learner`: the network in PyTorch and its update (the optional extra ``train``);
- :mod:`.folder` and :mod:`.run`: the results folder and the loop of rounds, resumable.

The method is Deep Monte-Carlo (Zha et al. 2021, DouZero): the network gives a value for
every action index; actors choose the best legal one (a random one with probability
epsilon); each decision's value is regressed on the return its seat got at the deal's end.
docs/learned.md says why this method and what was measured.
"""
