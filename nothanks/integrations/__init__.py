"""No Thanks! in the game-AI ecosystem: thin adapters over :mod:`nothanks.rules`.

- :mod:`.openspiel`: an OpenSpiel Python game (``python_no_thanks``);
- :mod:`.pettingzoo`: a PettingZoo AEC environment.

Both need the ``integrations`` extra (``pip install 'nothanks[integrations]'``, part of
``dev``); each module is imported by name.
"""
