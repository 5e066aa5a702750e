"""``slagwerk bench``: speed measured, never asserted (:mod:`.suite` gathers the rows).

Each module measures one thing against a reference timed in the same run:
playouts (:mod:`.suite`), search iterations and start-up (:mod:`.search`),
the inferred belief (:mod:`.belief`), an external bot's overhead
(:mod:`.bot_overhead`), environment steps (:mod:`.envs`) and two workers
against one (:mod:`.jobs`); :mod:`.timing` is their clock.
"""
