"""Experiments on the agents: the tournament machinery (:mod:`.harness`), the benchmarks
(:mod:`.bench`), the studies (:mod:`.studies`) and parameter tuning (:mod:`.tuning`)."""
