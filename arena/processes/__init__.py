"""Bot processes: started, registered, leased to matches, restarted, never orphaned.

- :mod:`.pool`: :class:`~.pool.BotPool`, the instances of every configured bot, leased to
  matches (starts, crashes, restarts, disqualifications);
- :mod:`.spawn`: starting one process under its supervisor, ending it, ending them all;
- :mod:`.supervisor`: the parent of every bot process (a script run outside the sandbox);
- :mod:`.reaper`, :mod:`.proctable`, :mod:`.procstat`: what a killed arena left behind, found
  and ended by the next one (the store's process table);
- :mod:`.peercheck`: that a registration comes from the process started for its token.

Above the sandbox (:mod:`arena.sandbox` wraps each start) and the protocol edge (the bots'
gRPC sessions), below the tournament that leases them.
"""
