"""The league: a competition strangers join by submitting bots (``arena league``, ``arena
submit``; docs/league.md).

- :mod:`.archive`: submitted archives, checked before unpacking, stored by content;
- :mod:`.manifest`: ``bot.toml``, a submitted bot's manifest;
- :mod:`.tokens`: participants' tokens, stored hashed;
- :mod:`.store`: participants, submissions and versions beside the tournament store.
"""
