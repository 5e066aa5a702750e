"""The four games as environments of other frameworks (docs/envs.md).

- :mod:`slagwerk.envs.pettingzoo`: PettingZoo AEC environments (extra ``[pettingzoo]``);
- :mod:`slagwerk.envs.openspiel`: OpenSpiel Python games (extra ``[openspiel]``,
  Python 3.11 or newer, where OpenSpiel publishes wheels).

Both read a game's observation encoding and compact action index from its
own package (:mod:`slagwerk.engine.encoding`) through :mod:`.encoded`.
Importing this package imports neither framework.
"""
