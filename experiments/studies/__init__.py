"""Studies built on the harness: questions about the agents, answered with measurements.

Strength against budget and the value of information (:mod:`.budget`,
:mod:`.information`: ``slagwerk experiment``), the search agents against
baselines (:mod:`.search_strength`), and the opponent model of
``belief=inferred``: its fit (:mod:`.belief_model`), its accuracy
(:mod:`.belief_accuracy`) and its ceiling (:mod:`.belief_ceiling`).
"""
